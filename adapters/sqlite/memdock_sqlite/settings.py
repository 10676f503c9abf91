"""The sqlite adapter's settings, declared once: these fields are held to adapter.json's `config_schema`, and the
embedding key's variable is the one adapter.json's `env` list names (memdock.sdk.kit.settings)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from memdock_entries.embedders import EmbeddingSettings

from memdock.sdk import adapter_json

from .context import CONTEXT_TURNS
from .hits import RRF_K, VECTOR_WEIGHT
from .ingest import BATCH
from .rerank import DATED_CUE_WEIGHT
from .score_fusion import COSINE_WEIGHT
from .search import DATED_CANDIDATES


@dataclass(frozen=True)
class Settings(EmbeddingSettings):
    DESCRIPTOR: ClassVar[str] = adapter_json(__file__)
    batch_size: int = BATCH
    embedding_query_int8: bool | None = None  # embedders.SentenceTransformerEmbedder: int8 copy for questions
    hybrid_vector_weight: float = VECTOR_WEIGHT
    hybrid_rrf_k: int = RRF_K
    hybrid_lexical_order: str = "coverage"
    hybrid_fusion: str = "score"
    hybrid_cosine_weight: float = COSINE_WEIGHT
    neighbour_weight: float | None = None
    session_pool_weight: float | None = None
    time_cue_weight: float | None = None
    question_date_weight: float | None = None
    addressed_turn_weight: float | None = None
    context_turn_weight: float | None = None
    context_turns: int = CONTEXT_TURNS
    substance_weight: float | None = None
    session_spread_weight: float | None = None
    many_pool_weight: float | None = None
    dated_candidates: int = DATED_CANDIDATES
    dated_cue_weight: float = DATED_CUE_WEIGHT

    def search_options(self) -> dict[str, object]:
        """The keyword arguments `search.run` takes from the config (None: the search's own default)."""
        return {
            "vector_weight": float(self.hybrid_vector_weight),
            "rrf_k": int(self.hybrid_rrf_k),
            "lexical_order": self.hybrid_lexical_order,
            "fusion": self.hybrid_fusion,
            "cosine_weight": float(self.hybrid_cosine_weight),
            "neighbour_weight": _float(self.neighbour_weight),
            "pool_weight": _float(self.session_pool_weight),
            "time_weight": _float(self.time_cue_weight),
            "date_weight": _float(self.question_date_weight),
            "addressed_weight": _float(self.addressed_turn_weight),
            "context_weight": _float(self.context_turn_weight),
            "context_turns": int(self.context_turns),
            "substance_weight": _float(self.substance_weight),
            "spread_weight": _float(self.session_spread_weight),
            "many_pool_weight": _float(self.many_pool_weight),
            "dated_candidates": int(self.dated_candidates),
            "dated_cue_weight": float(self.dated_cue_weight),
        }


def _float(value: float | None) -> float | None:
    return None if value is None else float(value)
