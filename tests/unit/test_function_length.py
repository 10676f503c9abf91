"""No function in src/ or adapters/ is over 80 lines (def line to last line, decorators excluded)."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MAX_LINES = 80
# each entry must still be over the limit, so a fixed one leaves this list
KNOWN: set[str] = set()


def long_functions(source: str, name: str = "<source>") -> dict[str, int]:
    tree = ast.parse(source, name)
    return {
        f"{name}:{node.name}": node.end_lineno - node.lineno + 1
        for node in ast.walk(tree)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.end_lineno - node.lineno + 1 > MAX_LINES
    }


def python_files():
    for top in ("src", "adapters"):
        for path in sorted((ROOT / top).rglob("*.py")):
            rel = path.relative_to(ROOT)
            if not any(part.startswith(".") or part in {"node_modules", "vendor"} for part in rel.parts):
                yield path, rel.as_posix()


def test_no_function_over_80_lines_in_src_or_adapters():
    found: dict[str, int] = {}
    for path, rel in python_files():
        found.update(long_functions(path.read_text(), rel))
    over = {k: v for k, v in found.items() if k not in KNOWN}
    assert not over, "\n".join(f"{k}: {v} lines (at most {MAX_LINES})" for k, v in sorted(over.items()))
    assert set(found) >= KNOWN, f"no longer over {MAX_LINES} lines, drop from KNOWN: {sorted(KNOWN - set(found))}"


def test_the_length_check_counts_from_def_to_last_line():
    body = "\n".join(f"    x{i} = {i}" for i in range(MAX_LINES - 1))
    assert long_functions(f"def fits():\n{body}\n") == {}
    nested = f"class C:\n    async def long(self):\n    {body.replace(chr(10), chr(10) + '    ')}\n        y = 1\n"
    assert long_functions(nested) == {"<source>:long": MAX_LINES + 1}
