"""`healthcheck`: the checkout at the pinned commit (checked when the runtime opens), the models configured and
answering."""

from __future__ import annotations

from typing import Any

from memdock.errors import MemdockError

from .checkout import head_commit
from .runtime import Runtime


def check(rt: Runtime) -> dict[str, Any]:
    s = rt.settings
    checks: dict[str, Any] = {"checkout": f"{rt.root} at {head_commit(rt.root)}", **rt.catalog.counts()}
    problems = [p for p in (s.llm_configured(), s.embedder_configured()) if p]
    if not problems:
        try:
            llm = rt.llm()
            llm.purpose = "healthcheck"
            llm.complete("Reply with the word ok.")
            checks["llm"] = f"{s.llm_model} @ {s.llm_base_url} answers"
        except MemdockError as exc:
            problems.append(exc.message)
        try:
            checks["embedder"] = f"{s.embedding_provider}: {s.embedding_model}, {rt.embedder.dim}-d"
        except MemdockError as exc:
            problems.append(exc.message)
    ok = not problems
    return {
        "ok": ok,
        "backend": "leanrag",
        "checks": checks,
        "message": "checkout and models ready" if ok else "; ".join(problems),
    }
