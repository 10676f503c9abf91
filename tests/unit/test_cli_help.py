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
