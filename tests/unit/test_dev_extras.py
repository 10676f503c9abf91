"""`pip install -e '.[dev]'` brings what the test suite imports, so the README's test command runs the
integration tests of the MCP server, LangChain and LlamaIndex rather than skipping them."""

import tomllib
from pathlib import Path

from packaging.requirements import Requirement

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"


def test_dev_holds_every_extra_the_integration_tests_import():
    extras = tomllib.loads(PYPROJECT.read_text())["project"]["optional-dependencies"]
    dev = {Requirement(r).name for r in extras["dev"]}
    for extra in ("mcp", "langchain", "llama-index"):
        wanted = {Requirement(r).name for r in extras[extra]}
        assert wanted <= dev, f"[dev] lacks {sorted(wanted - dev)} from [{extra}]"


def test_doctor_names_each_extra_and_how_to_install_a_missing_one(monkeypatch):
    from memdock.cli import doctor

    monkeypatch.setitem(doctor.EXTRAS, "imaginary", ("memdock_no_such_module",))
    said = doctor.extras()
    assert "imaginary: missing (pip install 'memdock[imaginary]')" in said
    assert "mcp: installed" in said
