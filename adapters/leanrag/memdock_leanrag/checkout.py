"""Finding the LeanRAG checkout and proving it is the pinned commit, by reading its git files (no git binary needed).

A submodule's `.git` is a file naming the real git dir; HEAD is a commit, or a ref found loose or in packed-refs.
"""

from __future__ import annotations

from pathlib import Path

from memdock.errors import ConfigError

from .settings import PINNED_COMMIT, Settings

NEEDED = (
    "build_graph.py",
    "query_graph.py",
    "_cluster_utils.py",
    "prompt.py",
    "GraphExtraction/chunk.py",
    "GraphExtraction/deal_triple.py",
    "tools/utils.py",
    "config.yaml",
)


def _git_dir(root: Path) -> Path:
    dot = root / ".git"
    if dot.is_file():
        text = dot.read_text(encoding="utf-8").strip()
        if not text.startswith("gitdir:"):
            raise ConfigError(f"leanrag_path {root}: .git is a file but names no gitdir")
        target = Path(text.split(":", 1)[1].strip())
        return target if target.is_absolute() else (root / target).resolve()
    if dot.is_dir():
        return dot
    raise ConfigError(f"leanrag_path {root}: not a git checkout (no .git); clone LeanRAG there at {PINNED_COMMIT}")


def head_commit(root: Path) -> str:
    git = _git_dir(root)
    head = (git / "HEAD").read_text(encoding="utf-8").strip()
    if not head.startswith("ref:"):
        return head
    ref = head.split(":", 1)[1].strip()
    common = git
    if (git / "commondir").is_file():  # a worktree
        common = (git / (git / "commondir").read_text().strip()).resolve()
    for base in (git, common):
        loose = base / ref
        if loose.is_file():
            return loose.read_text(encoding="utf-8").strip()
    packed = common / "packed-refs"
    if packed.is_file():
        for line in packed.read_text(encoding="utf-8").splitlines():
            parts = line.split()
            if len(parts) == 2 and parts[1] == ref:
                return parts[0]
    raise ConfigError(f"leanrag_path {root}: HEAD names {ref}, which has no commit")


def locate(settings: Settings) -> Path:
    """The checkout's root, checked: present, LeanRAG's files there, and at the pinned commit unless allowed
    otherwise."""
    if not settings.leanrag_path:
        var = Settings.env_name("leanrag_path")
        raise ConfigError(
            f"leanrag: no checkout configured: set leanrag_path (or {var}) to a LeanRAG clone at {PINNED_COMMIT}"
        )
    root = Path(settings.leanrag_path).expanduser().resolve()
    if not root.is_dir():
        raise ConfigError(f"leanrag_path {root}: no such directory; clone LeanRAG there at {PINNED_COMMIT}")
    missing = [n for n in NEEDED if not (root / n).is_file()]
    if missing:
        raise ConfigError(f"leanrag_path {root}: not a LeanRAG checkout (missing {', '.join(missing)})")
    commit = head_commit(root)
    if commit != PINNED_COMMIT and not settings.allow_other_commit:
        raise ConfigError(
            f"leanrag_path {root}: checkout is at commit {commit}, this adapter is pinned to {PINNED_COMMIT}; "
            f"check out {PINNED_COMMIT[:7]} there, or set allow_other_commit=true to try it anyway"
        )
    return root
