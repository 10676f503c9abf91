"""The public surface is what `memdock.__all__` says, each name importable and documented, the package ships
its types (py.typed), and the layers stay as the docs draw them: the service knows backends only through
the contract; the runner and the in-process backend sit side by side below it."""

import ast
import importlib
import inspect
from pathlib import Path

import memdock

SRC = Path(memdock.__file__).resolve().parent

PUBLIC = {
    "__version__", "PAYLOAD_VERSION", "PROTOCOL_VERSION",
    "Memory", "AsyncMemory", "MemoryService", "Filters", "Remembered", "Status", "Entry",
    "MemoryBackend", "Capabilities", "HealthStatus", "IndexResult", "SearchResult", "GetResult", "DeleteResult", "Hit",
    "thread_id_for",
    "MemdockError", "ConfigError", "InvalidInputError", "UnsupportedOperationError", "TransientError", "BackendError",
    "CancelledError", "VersionError",
    "Adapter",
}  # fmt: skip


def test_all_is_the_public_surface():
    assert set(memdock.__all__) == PUBLIC, "a change to the public surface is a decision: update PUBLIC and the docs"
    assert len(memdock.__all__) == len(PUBLIC)


def test_every_public_name_imports_and_is_documented():
    for name in memdock.__all__:
        value = getattr(memdock, name)
        if inspect.isclass(value) or inspect.isfunction(value):
            assert inspect.getdoc(value), f"memdock.{name} has no docstring"
    assert issubclass(memdock.InvalidInputError, memdock.MemdockError)


def test_the_package_ships_its_types():
    assert (SRC / "py.typed").is_file()


def test_importing_memdock_loads_no_service_layer():
    """Adapters import memdock (the SDK); the front doors load on first use."""
    import subprocess
    import sys

    code = "import sys, memdock, memdock.sdk; print(sorted(m for m in sys.modules if m.startswith('memdock.')))"
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    for heavy in ("memdock.api", "memdock.service", "memdock.runner", "memdock.bundle"):
        assert f"'{heavy}" not in loaded, loaded


def test_a_python_adapter_starts_without_the_costly_standard_modules():
    """What a one-shot call of the null adapter imports before its request: not `dataclasses` (with `inspect`,
    `ast`, `dis`), `typing`, `pathlib` or `threading`, which together cost it more than the rest of its start."""
    import subprocess
    import sys

    code = (
        f"import sys; sys.path.insert(0, {str(SRC.parents[1] / 'adapters' / 'null')!r});"
        "import memdock_null.adapter, memdock.sdk, memdock.contract; print(' '.join(sorted(sys.modules)))"
    )
    loaded = set(subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True).stdout.split())
    assert "memdock_null.adapter" in loaded
    assert not loaded & {"dataclasses", "inspect", "typing", "pathlib", "threading"}


def _imports(package: str) -> dict[str, set[str]]:
    """Each module of PACKAGE and the memdock modules it imports (absolute names), read from the source."""
    out: dict[str, set[str]] = {}
    base = SRC / package.replace("memdock.", "").replace(".", "/")
    files = [base.with_suffix(".py")] if base.with_suffix(".py").is_file() else sorted(base.rglob("*.py"))
    for file in files:
        rel = file.relative_to(SRC.parent).with_suffix("")
        module = ".".join(rel.parts).removesuffix(".__init__")
        pkg = module if file.name == "__init__.py" else module.rsplit(".", 1)[0]
        found = set()
        for node in ast.walk(ast.parse(file.read_text())):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    anchor = pkg.split(".")
                    anchor = anchor[: len(anchor) - node.level + 1]
                    target = ".".join(anchor + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                found.add(target)
                found.update(f"{target}.{a.name}" for a in node.names)
            elif isinstance(node, ast.Import):
                found.update(a.name for a in node.names)
        out[module] = {m for m in found if m.startswith("memdock")}
    return out


def _reaches(imports: set[str], forbidden: tuple[str, ...]) -> set[str]:
    return {m for m in imports if any(m == f or m.startswith(f + ".") for f in forbidden)}


BACKENDS = ("memdock.runner", "memdock.inprocess", "memdock.connect", "memdock.registry", "memdock.installs")


def test_the_service_depends_on_the_contract_not_on_a_backend():
    graph = _imports("memdock.service")
    assert graph, "the service package was found"
    for module, imports in graph.items():
        assert not _reaches(imports, BACKENDS), f"{module} imports {_reaches(imports, BACKENDS)}"
    assert any("memdock.contract.MemoryBackend" in imports for imports in graph.values())


def test_the_contract_and_the_operations_table_stand_alone():
    for package in (
        "memdock.contract",
        "memdock.seam",
        "memdock.plain",
        "memdock.records",
        "memdock.operations",
        "memdock.threads",
    ):
        for module, imports in _imports(package).items():
            bad = _reaches(imports, (*BACKENDS, "memdock.service", "memdock.api", "memdock.cli", "memdock.mcp"))
            assert not bad, f"{module} imports {bad}"


def test_the_store_engine_does_not_know_how_an_adapter_is_reached():
    graph = _imports("memdock.engine")
    assert "memdock.engine.index" in graph and "memdock.engine.parallel" in graph
    for module, imports in graph.items():
        bad = _reaches(imports, ("memdock.runner", "memdock.inprocess", "memdock.connect"))
        assert not bad, f"{module} imports {bad}"


def test_both_backends_implement_the_seam():
    from memdock.contract import MemoryBackend
    from memdock.inprocess import InProcessBackend
    from memdock.runner.backend import SubprocessBackend

    for cls in (SubprocessBackend, InProcessBackend):
        for name, member in inspect.getmembers(MemoryBackend):
            if name.startswith("_"):
                continue
            assert hasattr(cls, name), f"{cls.__name__} lacks {name}"
            if inspect.isfunction(member):
                wanted = set(inspect.signature(member).parameters)
                got = set(inspect.signature(getattr(cls, name)).parameters)
                assert wanted <= got, f"{cls.__name__}.{name} lacks {wanted - got}"


def test_every_operation_list_comes_from_the_one_table():
    from memdock import operations
    from memdock.runner import launch

    assert tuple(op.name for op in operations.TABLE) == operations.OPERATIONS
    assert set(launch.DEFAULT_TIMEOUTS) == set(operations.OPERATIONS) | {"idle"}
    assert {
        "query", "search_nodes", "search_facts", "search_episodes", "get_node", "get_edge"
    } == operations.RETRIEVAL_OPERATIONS  # fmt: skip
    assert {"prepare", "index", "delete"} == operations.WRITE_OPERATIONS
    assert not operations.WRITE_OPERATIONS & operations.IDEMPOTENT_OPERATIONS
    for module in ("memdock.runner.worker", "memdock.conformance.checks", "memdock.service.core"):
        source = inspect.getsource(importlib.import_module(module))
        assert '"search_episodes", "get_node"' not in source, f"{module} restates the operations"
