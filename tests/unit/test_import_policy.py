"""The core imports nothing beyond the standard library and its three dependencies.

Optional accelerators and extras are allowed only inside a function (imported
when used, behind an ImportError guard where they are optional).
"""

import ast
import sys
from pathlib import Path

CORE = Path(__file__).resolve().parents[2] / "src" / "memdock"
ALLOWED = set(sys.stdlib_module_names) | {"jsonschema", "orjson", "filelock", "memdock"}
OPTIONAL = {"jsonschema_rs", "isal", "tiktoken", "mcp", "pytest", "ray", "openai"}
# pytest: memdock.testing; ray: --executor; isal: the journal's deflate (bundle/deflate.py); openai: memdock.sdk.kit
# classifies model errors inside the adapters that run on openai
# subpackages that exist for an extra: they may import it at module level, and nothing in the core imports
# them at module level (`memdock mcp` imports memdock.mcp.server inside the command, behind an ImportError guard)
EXTRA_PACKAGES = {
    "mcp": {"mcp", "mcp_types", "pydantic", "anyio", "uvicorn", "h11"},  # the mcp extra brings anyio, uvicorn, h11
    "integrations": {"langchain_core", "llama_index", "pydantic"},  # memdock[langchain], memdock[llama-index]
    "ui": {"starlette", "uvicorn"},  # memdock[ui] (or memdock[mcp]); `memdock ui` imports it inside the command
}


def imports(tree):
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                yield node, a.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node, node.module.split(".")[0]


def top_level_nodes(tree):
    out = set()
    for node in tree.body:
        out.add(node)
        if isinstance(node, (ast.Try, ast.If)):
            for sub in ast.walk(node):
                out.add(sub)
    return out


def test_core_imports_only_stdlib_and_its_three_dependencies():
    bad = []
    for path in CORE.rglob("*.py"):
        tree = ast.parse(path.read_text(), str(path))
        module_level = top_level_nodes(tree)
        extra = EXTRA_PACKAGES.get(path.relative_to(CORE).parts[0], set())
        for node, name in imports(tree):
            if name in ALLOWED or name in extra:
                continue
            if name in OPTIONAL and node not in module_level:
                continue
            bad.append(f"{path.relative_to(CORE)}:{node.lineno}: imports {name}")
    assert not bad, "\n".join(bad)


def test_the_policy_check_catches_a_violation(tmp_path):
    tree = ast.parse("import numpy\nfrom requests import get\nimport jsonschema_rs\n")
    found = [
        n for node, n in imports(tree) if n not in ALLOWED and not (n in OPTIONAL and node not in top_level_nodes(tree))
    ]
    assert found == ["numpy", "requests", "jsonschema_rs"]


def test_no_core_module_imports_an_extra_package_at_module_level():
    bad = []
    for path in CORE.rglob("*.py"):
        if path.relative_to(CORE).parts[0] in EXTRA_PACKAGES:
            continue
        tree = ast.parse(path.read_text(), str(path))
        for node in top_level_nodes(tree):
            if isinstance(node, ast.ImportFrom) and node.module:
                module = node.module if node.level == 0 else "." * node.level + node.module
                if any(f"{pkg}" == module.lstrip(".").split(".")[0] and node.level for pkg in EXTRA_PACKAGES):
                    bad.append(f"{path.relative_to(CORE)}:{node.lineno}: imports {module}")
    assert not bad, "\n".join(bad)
