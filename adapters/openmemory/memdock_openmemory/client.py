"""OpenMemory's REST API over HTTP (urllib), as read from mem0's repository at commit
540d23d610fcdc9a1f8795875c013af67d35ae93 (openmemory/api/app/routers/memories.py and apps.py, the last
tree before OpenMemory left that repository):

    POST   /api/v1/memories/          {user_id, text, metadata, infer, app}
                                      -> the first memory created, null, or {"error"}
    POST   /api/v1/memories/filter    {user_id, page, size, search_query, app_ids, from_date, sort_column,
                                       sort_direction}
                                      -> {items: [{id, content, created_at, state, app_id, app_name, categories,
                                          metadata_}], total, page, size, pages}
    GET    /api/v1/memories/{id}      -> {id, text, created_at, state, app_id, app_name, categories, metadata_}
    DELETE /api/v1/memories/          {memory_ids, user_id} -> {message}
    GET    /api/v1/memories/?user_id= -> a page of the user's memories (404 when the user does not exist)
    GET    /api/v1/apps/?name=        -> {apps: [{id, name, is_active, ...}], total, ...}

Connection failures, timeouts and 5xx answers are transient (the runner retries once); other
refusals are backend errors naming the URL and the server's `detail`. The key, when set, is sent as
a bearer token and appears in no message.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

from memdock.errors import BackendError, TransientError

from .settings import Settings

MEMORIES = "/api/v1/memories/"


class Client:
    def __init__(self, settings: Settings):
        self.s = settings
        self.requests = 0

    def call(
        self, method: str, path: str, body: Any = None, query: dict[str, Any] | None = None, where: str = ""
    ) -> Any:
        url = (
            self.s.base
            + path
            + ("?" + urllib.parse.urlencode({k: v for k, v in query.items() if v is not None}) if query else "")
        )
        data = None if body is None else json.dumps(body).encode()
        headers = {"Accept": "application/json"}
        if data is not None:
            headers["Content-Type"] = "application/json"
        if self.s.api_key:
            headers["Authorization"] = f"Bearer {self.s.api_key}"
        req = urllib.request.Request(url, data=data, method=method, headers=headers)
        shown = f"{method} {self.s.base}{path}"
        self.requests += 1
        try:
            with urllib.request.urlopen(req, timeout=self.s.timeout_s) as resp:
                raw = resp.read()
        except urllib.error.HTTPError as exc:
            detail = _detail(exc.read())
            cls = TransientError if exc.code >= 500 or exc.code in (408, 429) else BackendError
            raise cls(
                f"{where}: OpenMemory answered HTTP {exc.code} to {shown}: {detail}",
                details={"url": self.s.base + path, "status": exc.code},
            ) from None
        except TimeoutError:
            raise TransientError(
                f"{where}: OpenMemory at {self.s.base} did not answer {shown} within {self.s.timeout_s:g}s",
                details={"url": self.s.base + path},
            ) from None
        except (urllib.error.URLError, ConnectionError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            raise TransientError(
                f"{where}: cannot reach OpenMemory at {self.s.base} ({shown}): {reason}",
                details={"url": self.s.base + path},
            ) from None
        try:
            return json.loads(raw) if raw.strip() else None
        except ValueError:
            raise BackendError(
                f"{where}: OpenMemory answered {shown} with something that is not JSON: {raw[:200]!r}"
            ) from None

    # -- the routes ------------------------------------------------------------------------------

    def create(self, text: str, metadata: dict[str, Any], where: str) -> dict[str, Any] | None:
        answer = self.call(
            "POST",
            MEMORIES,
            {"user_id": self.s.user_id, "text": text, "metadata": metadata, "infer": self.s.infer, "app": self.s.app},
            where=where,
        )
        if isinstance(answer, dict) and "error" in answer and "id" not in answer:
            raise BackendError(f"{where}: OpenMemory could not store the memory: {answer['error']}")
        return answer

    def filter(
        self,
        where: str,
        *,
        page: int = 1,
        size: int = 100,
        search_query: str | None = None,
        app_ids: list[str] | None = None,
        from_date: int | None = None,
    ) -> dict[str, Any]:
        body: dict[str, Any] = {
            "user_id": self.s.user_id,
            "page": page,
            "size": size,
            "sort_column": "created_at",
            "sort_direction": "desc",
        }
        for key, value in (("search_query", search_query), ("app_ids", app_ids), ("from_date", from_date)):
            if value:
                body[key] = value
        return self.call("POST", MEMORIES + "filter", body, where=where)

    def get(self, memory_id: str, where: str) -> dict[str, Any] | None:
        try:
            return self.call("GET", MEMORIES + urllib.parse.quote(memory_id), where=where)
        except BackendError as exc:
            if (exc.details or {}).get("status") in (404, 422):
                return None
            raise

    def delete(self, memory_ids: list[str], where: str) -> None:
        if memory_ids:
            self.call("DELETE", MEMORIES, {"memory_ids": memory_ids, "user_id": self.s.user_id}, where=where)

    def user_page(self, where: str) -> dict[str, Any]:
        return self.call("GET", MEMORIES, query={"user_id": self.s.user_id, "page": 1, "size": 1}, where=where)

    def app_id(self, where: str) -> str | None:
        answer = self.call("GET", "/api/v1/apps/", query={"name": self.s.app, "page_size": 100}, where=where)
        return next((str(a["id"]) for a in (answer or {}).get("apps", []) if a.get("name") == self.s.app), None)


def _detail(raw: bytes) -> str:
    try:
        value = json.loads(raw)
        value = value.get("detail", value) if isinstance(value, dict) else value
    except ValueError:
        value = raw[:200].decode(errors="replace")
    return " ".join(str(value).split())[:300]
