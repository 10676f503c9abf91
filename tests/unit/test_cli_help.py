"""Every command's --help ends with examples, and every option says what it does."""

import argparse

from memdock.cli.main import build_parser


def commands(parser: argparse.ArgumentParser, prefix: str = "memdock") -> list[tuple[str, argparse.ArgumentParser]]:
    out = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            seen = set()
            for name, sub in action.choices.items():
                if id(sub) in seen:  # an alias (query for recall)
                    continue
                seen.add(id(sub))
                out.append((f"{prefix} {name}", sub))
                out += commands(sub, f"{prefix} {name}")
    return out


def test_every_command_has_examples_and_every_option_a_help():
    missing = []
    for name, parser in commands(build_parser()):
        nested = any(isinstance(a, argparse._SubParsersAction) for a in parser._actions)
        if "examples:" not in (parser.epilog or "") and not nested:
            missing.append(f"{name}: no examples")
        for action in parser._actions:
            if action.help is None and not isinstance(action, argparse._SubParsersAction):
                missing.append(f"{name} {'/'.join(action.option_strings) or action.dest}: no help")
    assert not missing, "\n".join(missing)


def test_the_checker_sees_a_missing_help():
    parser = argparse.ArgumentParser(prog="x")
    sub = parser.add_subparsers()
    p = sub.add_parser("y")
    p.add_argument("--z")
    found = [(n, [a.dest for a in q._actions if a.help is None]) for n, q in commands(parser)]
    assert found == [("memdock y", ["z"])]


def test_each_command_is_registered_by_the_module_main_imports_for_it():
    import importlib

    from memdock.cli.main import COMMAND_MODULES, COMMANDS

    registered = {}
    for module in COMMAND_MODULES:
        parser = argparse.ArgumentParser()
        importlib.import_module(f"memdock.cli.{module}").register(parser.add_subparsers())
        (action,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        registered.update(dict.fromkeys(action.choices, module))
    assert registered == COMMANDS


def test_a_command_line_imports_only_its_module():
    import subprocess
    import sys

    code = (
        "import sys; from memdock.cli.main import build_parser; build_parser(sys.argv[1:]);"
        "print(sorted(m for m in sys.modules if m.startswith('memdock.')))"
    )
    version = subprocess.run([sys.executable, "-c", code, "--version"], capture_output=True, text=True, check=True)
    assert "memdock.runner" not in version.stdout and "memdock.cli.ops" not in version.stdout
    recall = subprocess.run([sys.executable, "-c", code, "recall", "x"], capture_output=True, text=True, check=True)
    assert "memdock.cli.ops" in recall.stdout and "memdock.cli.conformance" not in recall.stdout


def test_version_is_answered_before_the_parser_is_built():
    import subprocess
    import sys

    from memdock import __version__

    code = (
        "import sys; from memdock.cli.main import main; main(['--version']);"
        "print([m for m in ('argparse', 'memdock.errors') if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.splitlines() == [f"memdock {__version__}", "[]"]


def test_tomllib_is_imported_only_to_read_a_memdock_toml(tmp_path):
    import subprocess
    import sys

    (tmp_path / "memdock.toml").write_text('backend = "sqlite"\n')
    code = (
        "import sys; from memdock.config import load_file; from pathlib import Path;"
        "print('tomllib' in sys.modules); print(load_file(Path(sys.argv[1])) if sys.argv[1:] else '');"
        "print('tomllib' in sys.modules)"
    )
    without = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert without.stdout.split() == ["False", "False"]
    read = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "memdock.toml")], capture_output=True, text=True, check=True
    )
    assert read.stdout.splitlines() == ["False", "{'backend': 'sqlite'}", "True"]
