"""A sentence model of the plainest form (a BERT encoder, mean pooling, normalisation: all-MiniLM-L6-v2's), run
by torch's own layers from the model's safetensors file and the tokenizers library.

Its vectors are sentence-transformers' own for the same model (a cosine of 1 to float precision, tests check it),
but an adapter's process that embeds skips importing transformers and sentence-transformers, which pull
scikit-learn, scipy and most of torch's compiler and distributed modules: the larger part of the model's start, paid
once per store (bench/embed_throughput.py prints both starts and both rates in one run). A model of any other form
stays with sentence-transformers.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from memdock.errors import ConfigError

_TYPES = ("Transformer", "Pooling", "Normalize")
_MEAN = "pooling_mode_mean_tokens"
_FILES = ("model.safetensors", "tokenizer.json")


def _read(path: Path) -> Any:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def plain_form(path: Path) -> bool:
    """Whether the sentence-transformers model in PATH is a BERT encoder at its root (safetensors weights, a fast
    tokenizer's file), mean pooling of its tokens alone and normalisation, cased as written, with no prompt."""
    modules = _read(path / "modules.json")
    if not isinstance(modules, list) or len(modules) != len(_TYPES) or not all(isinstance(m, dict) for m in modules):
        return False
    kinds = tuple(str(m.get("type", "")).rsplit(".", 1)[-1] for m in modules)
    if kinds != _TYPES or modules[0].get("path") not in ("", None):
        return False
    pooling = _read(path / str(modules[1].get("path", "")) / "config.json")
    if not isinstance(pooling, dict) or pooling.get(_MEAN) is not True or "pooling_mode" in pooling:
        return False
    if any(v is True for k, v in pooling.items() if k.startswith("pooling_mode_") and k != _MEAN):
        return False
    config, bert = _read(path / "sentence_bert_config.json"), _read(path / "config.json")
    if not isinstance(config, dict) or config.get("do_lower_case") or not isinstance(bert, dict):
        return False
    plain_bert = bert.get("model_type") == "bert" and bert.get("hidden_act") == "gelu"
    absolute = bert.get("position_embedding_type", "absolute") == "absolute"
    return plain_bert and absolute and all((path / f).is_file() for f in _FILES) and _no_prompts(path)


def _no_prompts(path: Path) -> bool:
    extra = _read(path / "config_sentence_transformers.json") or {}
    return not (isinstance(extra, dict) and (extra.get("prompts") or extra.get("default_prompt_name")))


class MeanPooled:
    """The model in PATH (of plain_form), encoding as sentence-transformers' `encode` does: texts longest first in
    batches padded to their longest, cut at the model's max_seq_length, the tokens' mean under the attention mask,
    L2-normalised."""

    def __init__(self, path: Path):
        from safetensors.torch import load_file
        from tokenizers import Tokenizer

        config = _read(path / "config.json")
        if not isinstance(config, dict):
            raise ConfigError(f"embedding_model {path / 'config.json'}: missing or not a JSON object")
        try:
            self.heads, self.eps = int(config["num_attention_heads"]), float(config.get("layer_norm_eps", 1e-12))
            self.layers = int(config["num_hidden_layers"])
            limit = int((_read(path / "sentence_bert_config.json") or {}).get("max_seq_length") or 512)
            limit = min(limit, int(config.get("max_position_embeddings", 512)))
            pad = int(config.get("pad_token_id", 0))
        except (KeyError, TypeError, ValueError) as exc:
            raise ConfigError(f"embedding_model {path / 'config.json'}: field {exc} missing or not a number") from None
        self.tokenizer = _opened(path / "tokenizer.json", Tokenizer.from_file)
        self.tokenizer.enable_truncation(limit)
        self.tokenizer.enable_padding(pad_id=pad)
        weights = _opened(path / "model.safetensors", load_file)
        self.weights = {k.removeprefix("bert."): v for k, v in weights.items()}
        absent = [k for k in _names(self.layers) if k not in self.weights]
        if absent:
            raise ConfigError(
                f"embedding_model {path / 'model.safetensors'}: no weight {absent[0]} "
                f"({len(absent)} of the {self.layers}-layer BERT's weights missing)"
            )

    def encode(self, texts: list[str], batch_size: int = 32, **_: Any) -> Any:
        """TEXTS' vectors, a float32 numpy array in TEXTS' order (sentence-transformers' keyword arguments are
        taken and ignored: the vectors are always normalised numpy)."""
        import numpy as np
        import torch

        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
        out = np.zeros((len(texts), self.weights["embeddings.LayerNorm.weight"].shape[0]), dtype=np.float32)
        step = max(1, batch_size)
        with torch.inference_mode():
            for start in range(0, len(order), step):
                picked = order[start : start + step]
                encoded = self.tokenizer.encode_batch([texts[i] for i in picked])
                ids = torch.tensor([e.ids for e in encoded], dtype=torch.long)
                types = torch.tensor([e.type_ids for e in encoded], dtype=torch.long)
                mask = torch.tensor([e.attention_mask for e in encoded], dtype=torch.float32)
                tokens = self._forward(ids, types, mask)
                pooled = (tokens * mask[:, :, None]).sum(1) / mask.sum(1, keepdim=True).clamp(min=1e-9)
                out[picked] = torch.nn.functional.normalize(pooled, p=2, dim=1).numpy()
        return out

    def _forward(self, ids: Any, types: Any, mask: Any) -> Any:
        import torch

        w, eps = self.weights, self.eps
        positions = torch.arange(ids.shape[1])
        x = w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][positions]
        x = _norm(x + w["embeddings.token_type_embeddings.weight"][types], w, "embeddings.LayerNorm", eps)
        allowed = mask.bool()[:, None, None, :]
        for i in range(self.layers):
            x = _block(x, w, f"encoder.layer.{i}.", allowed, self.heads, eps)
        return x


def _opened(path: Path, opener: Any) -> Any:
    try:
        return opener(str(path))
    except Exception as exc:  # tokenizers and safetensors raise their own kinds for a damaged file
        raise ConfigError(f"embedding_model {path}: could not be read ({exc})") from None


def _names(layers: int) -> list[str]:
    """The weights a BERT of LAYERS layers has (biases beside every weight)."""
    names = [f"embeddings.{k}_embeddings.weight" for k in ("word", "position", "token_type")]
    names += ["embeddings.LayerNorm.weight", "embeddings.LayerNorm.bias"]
    parts = ["attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense"]
    parts += ["attention.output.LayerNorm", "intermediate.dense", "output.dense", "output.LayerNorm"]
    kinds = ("weight", "bias")
    return names + [f"encoder.layer.{i}.{p}.{kind}" for i in range(layers) for p in parts for kind in kinds]


def _dense(x: Any, w: dict[str, Any], name: str) -> Any:
    import torch

    return torch.nn.functional.linear(x, w[f"{name}.weight"], w[f"{name}.bias"])


def _norm(x: Any, w: dict[str, Any], name: str, eps: float) -> Any:
    import torch

    return torch.nn.functional.layer_norm(x, x.shape[-1:], w[f"{name}.weight"], w[f"{name}.bias"], eps)


def _block(x: Any, w: dict[str, Any], at: str, allowed: Any, heads: int, eps: float) -> Any:
    """BERT's encoder layer: self-attention over the unmasked tokens, then the feed-forward (exact GELU), each added
    back and normalised."""
    import torch

    batch, length, width = x.shape

    def split(t: Any) -> Any:
        return t.view(batch, length, heads, width // heads).transpose(1, 2)

    q, k, v = (split(_dense(x, w, f"{at}attention.self.{n}")) for n in ("query", "key", "value"))
    context = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=allowed)
    context = context.transpose(1, 2).reshape(batch, length, width)
    x = _norm(_dense(context, w, f"{at}attention.output.dense") + x, w, f"{at}attention.output.LayerNorm", eps)
    up = torch.nn.functional.gelu(_dense(x, w, f"{at}intermediate.dense"))
    return _norm(_dense(up, w, f"{at}output.dense") + x, w, f"{at}output.LayerNorm", eps)
