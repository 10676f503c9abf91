"""The tried-as-a-new-user path, end to end, from a wheel in a fresh virtualenv: add a notes folder with no
flags, recall by a title word, remember from stdin with metadata, filter on it, an error as JSON, then from
Python list and count everything, update a note, forget a thread by name, and recall through LangChain and
LlamaIndex. Builds the wheel and a venv (a minute or two, and pip's index), so it runs with MEMDOCK_IT_WHEEL=1."""

import json
import os
import subprocess
import sys
import venv
from pathlib import Path

import pytest

# pip installing the wheel with langchain and llama-index alone took over 300 s (the suite's timeout) on a loaded box
pytestmark = [pytest.mark.integration_wheel, pytest.mark.slow, pytest.mark.timeout(1800)]
ROOT = Path(__file__).resolve().parents[2]

PYTHON_PART = """
from memdock import Memory
from memdock.integrations.langchain import MemdockRetriever as LangChain
from memdock.integrations.llama_index import MemdockRetriever as LlamaIndex
with Memory() as m:
    out = {"count": m.count(), "listed": len(m.list(limit=1000))}
    note = m.remember("the kettle is in the attic", metadata={"room": "attic"})
    m.update(note.id, metadata={"room": "kitchen"})
    out["where"] = [h.text for h in m.recall("kettle", where={"room": "kitchen"}).hits]
    out["forgot"] = len(m.forget("prefs").deleted)
    out["after"] = m.count()
    out["langchain"] = [d.page_content for d in LangChain(memory=m, where={"room": "kitchen"}).invoke("kettle", k=1)]
    out["llama"] = [n.node.get_content() for n in LlamaIndex(m, limit=1).retrieve("coffee")]
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def fresh(tmp_path_factory):
    if not os.environ.get("MEMDOCK_IT_WHEEL"):
        pytest.skip("set MEMDOCK_IT_WHEEL=1 (builds a wheel and a fresh venv with pip)")
    root = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", str(ROOT), "-w", str(root)], check=True)
    wheel = next(root.glob("memdock-*.whl"))
    venv.EnvBuilder(with_pip=True).create(root / "venv")
    python = root / "venv" / "bin" / "python"
    subprocess.run([python, "-m", "pip", "install", "-q", f"{wheel}[mcp,langchain,llama-index]"], check=True)
    return python, root


def test_the_new_user_path_from_a_wheel(fresh):
    python, root = fresh
    env = {**os.environ, "MEMDOCK_HOME": str(root / "home")}
    notes = root / "notes"
    notes.mkdir()
    (notes / "coffee.md").write_text("# Office coffee machine\n\nDescale it monthly.\n")
    (notes / "printer.md").write_text("# Printer\n\nToner is in the cupboard.\n")

    def memdock(*args, stdin=None):
        return subprocess.run(
            [python, "-m", "memdock", *args], input=stdin, capture_output=True, text=True, env=env, timeout=300
        )

    added = memdock("add", str(notes))
    assert added.returncode == 0 and "format: text" in added.stderr, added.stderr
    card = memdock("recall", "coffee", "-n", "1").stdout
    assert "Office coffee machine" in card and "from coffee.md" in card, card
    assert (
        memdock("remember", "-", "--thread", "prefs", "--meta", "team=ops", stdin="Fire drill Thursday").returncode == 0
    )
    assert "Fire drill" in memdock("recall", "drill", "--where", "team=ops").stdout
    bad = memdock("recall", "x", "-n", "5000", "--json")
    assert bad.returncode == 4 and json.loads(bad.stdout)["error"]["category"] == "invalid_input"
    ran = subprocess.run(
        [python, "-c", "import json\n" + PYTHON_PART], capture_output=True, text=True, env=env, timeout=300
    )
    assert ran.returncode == 0, ran.stderr
    out = json.loads(ran.stdout)
    assert out["count"] == out["listed"] == 3 and out["after"] == 3
    assert out["where"] == out["langchain"] == ["the kettle is in the attic"] and out["forgot"] >= 1
    assert out["llama"][0].startswith("Office coffee machine")
