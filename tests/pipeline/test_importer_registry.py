"""importers.IMPORTERS names each format's importer without importing it; get_importer imports the one asked for."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from memdock.errors import ConfigError
from memdock.importers import IMPORTERS, get_importer, importer_class


@pytest.mark.parametrize("name", sorted(IMPORTERS))
def test_each_format_names_its_importer(name: str) -> None:
    assert importer_class(name).name == name
    assert get_importer(name).name == name


def test_an_unknown_format_is_refused() -> None:
    with pytest.raises(ConfigError, match="unknown format 'nope'"):
        get_importer("nope")


def test_the_package_imports_no_importer_until_asked() -> None:
    code = (
        "import json, sys, memdock.importers as m; "
        "names = lambda: json.dumps(sorted(k for k in sys.modules if k.startswith('memdock.importers.'))); "
        "print(names()); m.get_importer('jsonl'); print(names())"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.splitlines()
    before, after = (set(json.loads(line)) for line in out)
    assert not {f"memdock.importers.{m}" for m, _ in IMPORTERS.values()} & before
    assert "memdock.importers.jsonl" in after
    assert "memdock.importers.watercooler" not in after
