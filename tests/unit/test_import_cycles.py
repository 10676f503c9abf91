"""No two memdock modules import each other, directly or round a longer loop, counting every import in the source:
lazy ones inside functions and those under TYPE_CHECKING too (a lazy import that closes a circle hides a layer in
the wrong place). A package and its own submodules do not count as a loop."""

import ast
from pathlib import Path

import memdock

SRC = Path(memdock.__file__).resolve().parent
# loops in code other issues are changing this session (#31 engine, #38 HTTP serving); not to grow
KNOWN = {
    frozenset({"memdock.engine.backend", "memdock.engine.index"}),
    frozenset({"memdock.mcp.http", "memdock.ui.app", "memdock.ui.auth", "memdock.ui.mount"}),
}


def module_files(root: Path = SRC) -> dict[str, Path]:
    out = {}
    for file in root.rglob("*.py"):
        rel = file.relative_to(root.parent).with_suffix("")
        out[".".join(rel.parts).removesuffix(".__init__")] = file
    return out


def import_graph(files: dict[str, Path]) -> dict[str, set[str]]:
    """Each module and the modules of its package tree it imports (a `from X import name` counts as X.name when
    that is a module, else X), leaving out a package's edges to and from its own submodules."""
    graph: dict[str, set[str]] = {}
    for module, file in files.items():
        pkg = module if file.name == "__init__.py" else module.rsplit(".", 1)[0]
        found: set[str] = set()
        for node in ast.walk(ast.parse(file.read_text(), str(file))):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    parts = pkg.split(".")[: len(pkg.split(".")) - node.level + 1]
                    base = ".".join(parts + ([node.module] if node.module else []))
                else:
                    base = node.module or ""
                names = [f"{base}.{a.name}" for a in node.names] + [base]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                continue
            for name in names:
                while name and name not in files:
                    name = name.rpartition(".")[0]
                if name:
                    found.add(name)
                    break
        graph[module] = {
            m for m in found if m != module and not m.startswith(module + ".") and not module.startswith(m + ".")
        }
    return graph


def loops(graph: dict[str, set[str]]) -> set[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: set[frozenset[str]] = set()
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            v, edges = work[-1]
            for w in edges:
                if w not in graph:
                    continue
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    component = set()
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        component.add(w)
                        if w == v:
                            break
                    if len(component) > 1:
                        found.add(frozenset(component))
    return found


def test_no_import_loops_in_the_core():
    new = loops(import_graph(module_files())) - KNOWN
    assert not new, "import loops: " + "; ".join(" <-> ".join(sorted(c)) for c in new)


def test_the_loop_check_sees_a_lazy_and_a_type_only_import(tmp_path):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from . import a\n")
    (pkg / "a.py").write_text("def f():\n    from .b import g\n")
    (pkg / "b.py").write_text("TYPE_CHECKING = False\nif TYPE_CHECKING:\n    from .c import h\n")
    (pkg / "c.py").write_text("from pkg import a\n")
    (pkg / "d.py").write_text("from . import a\n")
    assert loops(import_graph(module_files(pkg))) == {frozenset({"pkg.a", "pkg.b", "pkg.c"})}
