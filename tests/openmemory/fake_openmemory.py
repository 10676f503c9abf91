"""An OpenMemory REST server on loopback, for tests: the routes and payloads of openmemory/api as read from
mem0's repository at commit 540d23d610fcdc9a1f8795875c013af67d35ae93 (app/routers/memories.py, apps.py,
app/schemas.py), written here from those definitions, over an in-memory store instead of SQLAlchemy and
mem0. With `infer` a text becomes one memory per sentence (the server's mem0 would ask its LLM), and,
like the real create route, only the first memory made is returned.

Records every request (method, path, Authorization header, body) and can be told to fail with an HTTP
status, to stall, or to answer create with the `{"error": ...}` object the real route returns on a
mem0 failure.
"""

from __future__ import annotations

import json
import math
import re
import threading
import time
import urllib.parse
import uuid
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MEMORIES = "/api/v1/memories/"


def sentences(text: str) -> list[str]:
    parts = [p.strip() for p in re.split(r"(?<=[.!?])\s+", " ".join(text.split())) if p.strip()]
    return parts or [text]


class FakeOpenMemory:
    def __init__(self, users: tuple[str, ...] = ("default_user",)) -> None:
        self.users = {u: str(uuid.uuid4()) for u in users}
        self.apps: dict[tuple[str, str], dict[str, Any]] = {}
        self.memories: dict[str, dict[str, Any]] = {}
        self.requests: list[dict[str, Any]] = []
        self.fail_with: int | None = None
        self.stall_s = 0.0
        self.create_error: str | None = None
        self.lock = threading.Lock()
        self.stalled = 0  # requests inside their stall
        self.settled = threading.Condition()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                pass

            def _handle(self) -> None:
                url = urllib.parse.urlsplit(self.path)
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length)) if length else None
                query = {k: v[0] for k, v in urllib.parse.parse_qs(url.query).items()}
                server.requests.append(
                    {
                        "method": self.command,
                        "path": url.path,
                        "query": query,
                        "auth": self.headers.get("Authorization"),
                        "body": body,
                    }
                )
                if server.stall_s:
                    with server.settled:
                        server.stalled += 1
                    try:
                        time.sleep(server.stall_s)  # a slow server, the thing under test (not synchronisation)
                        if not server.fail_with:
                            with server.lock:
                                status, answer = server.route(self.command, url.path, query, body)
                            return self._send(status, answer)
                    finally:
                        with server.settled:
                            server.stalled -= 1
                            server.settled.notify_all()
                if server.fail_with:
                    return self._send(server.fail_with, {"detail": "fake OpenMemory told to fail"})
                with server.lock:
                    status, answer = server.route(self.command, url.path, query, body)
                self._send(status, answer)

            do_GET = do_POST = do_DELETE = do_PUT = _handle

            def _send(self, status: int, obj: Any) -> None:
                payload = json.dumps(obj).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                try:
                    self.wfile.write(payload)
                except BrokenPipeError:  # the client gave up (a timeout test)
                    pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    # -- routing ---------------------------------------------------------------------------------

    def route(self, method: str, path: str, query: dict[str, str], body: Any) -> tuple[int, Any]:
        if path == MEMORIES and method == "POST":
            return self.create(body)
        if path == MEMORIES and method == "GET":
            return self.list(query)
        if path == MEMORIES and method == "DELETE":
            return self.delete(body)
        if path == MEMORIES + "filter" and method == "POST":
            return self.filter(body)
        if path in ("/api/v1/apps/", "/api/v1/apps") and method == "GET":
            return self.list_apps(query)
        if path.startswith(MEMORIES) and method == "GET":
            return self.get(path[len(MEMORIES) :])
        return 404, {"detail": "Not Found"}

    def _user(self, user_id: Any) -> str | None:
        return self.users.get(str(user_id))

    def _response(self, m: dict[str, Any]) -> dict[str, Any]:
        """MemoryResponse: created_at as epoch seconds, app name, categories."""
        return {
            "id": m["id"],
            "content": m["content"],
            "created_at": int(m["created_at"].timestamp()),
            "state": m["state"],
            "app_id": m["app_id"],
            "app_name": m["app_name"],
            "categories": [],
            "metadata_": m["metadata_"],
        }

    def create(self, body: dict[str, Any]) -> tuple[int, Any]:
        missing = [k for k in ("user_id", "text") if k not in (body or {})]
        if missing:
            return 422, {"detail": [{"loc": ["body", k], "msg": "Field required", "type": "missing"} for k in missing]}
        owner = self._user(body["user_id"])
        if owner is None:
            return 404, {"detail": "User not found"}
        name = body.get("app", "openmemory")
        app = self.apps.setdefault((owner, name), {"id": str(uuid.uuid4()), "name": name, "is_active": True})
        if self.create_error:
            return 200, {"error": self.create_error}
        texts = sentences(body["text"]) if body.get("infer", True) else [body["text"]]
        made = []
        for text in texts:
            now = datetime.now(UTC)
            m = {
                "id": str(uuid.uuid4()),
                "user_id": owner,
                "app_id": app["id"],
                "app_name": name,
                "content": text,
                "metadata_": body.get("metadata") or {},
                "state": "active",
                "created_at": now,
            }
            self.memories[m["id"]] = m
            made.append(m)
        first = made[0]
        return 200, {
            "id": first["id"],
            "user_id": first["user_id"],
            "app_id": first["app_id"],
            "content": first["content"],
            "vector": None,
            "metadata_": first["metadata_"],
            "state": "active",
            "created_at": first["created_at"].isoformat(),
            "updated_at": first["created_at"].isoformat(),
            "archived_at": None,
            "deleted_at": None,
        }

    def _page(self, items: list[dict[str, Any]], page: int, size: int) -> dict[str, Any]:
        total = len(items)
        return {
            "items": [self._response(m) for m in items[(page - 1) * size : page * size]],
            "total": total,
            "page": page,
            "size": size,
            "pages": max(1, math.ceil(total / size)) if total else 0,
        }

    def _visible(self, owner: str, archived: bool = False) -> list[dict[str, Any]]:
        return [
            m
            for m in self.memories.values()
            if m["user_id"] == owner and m["state"] != "deleted" and (archived or m["state"] != "archived")
        ]

    def list(self, query: dict[str, str]) -> tuple[int, Any]:
        if "user_id" not in query:
            return 422, {"detail": [{"loc": ["query", "user_id"], "msg": "Field required", "type": "missing"}]}
        owner = self._user(query["user_id"])
        if owner is None:
            return 404, {"detail": "User not found"}
        items = self._visible(owner)
        if query.get("search_query"):
            items = [m for m in items if query["search_query"].lower() in m["content"].lower()]
        if query.get("app_id"):
            items = [m for m in items if m["app_id"] == query["app_id"]]
        return 200, self._page(items, int(query.get("page", 1)), int(query.get("size", 50)))

    def filter(self, body: dict[str, Any]) -> tuple[int, Any]:
        owner = self._user((body or {}).get("user_id"))
        if owner is None:
            return 404, {"detail": "User not found"}
        items = self._visible(owner, bool(body.get("show_archived")))
        if body.get("search_query"):
            items = [m for m in items if body["search_query"].lower() in m["content"].lower()]
        if body.get("app_ids"):
            items = [m for m in items if m["app_id"] in body["app_ids"]]
        if body.get("from_date"):
            items = [m for m in items if m["created_at"] >= datetime.fromtimestamp(body["from_date"], tz=UTC)]
        if body.get("to_date"):
            items = [m for m in items if m["created_at"] <= datetime.fromtimestamp(body["to_date"], tz=UTC)]
        column, direction = body.get("sort_column"), body.get("sort_direction")
        if column and direction:
            if direction.lower() not in ("asc", "desc"):
                return 400, {"detail": "Invalid sort direction"}
            keys = {
                "memory": lambda m: m["content"],
                "app_name": lambda m: m["app_name"],
                "created_at": lambda m: m["created_at"],
            }
            if column not in keys:
                return 400, {"detail": "Invalid sort column"}
            items.sort(key=keys[column], reverse=direction.lower() == "desc")
        else:
            items.sort(key=lambda m: m["created_at"], reverse=True)
        return 200, self._page(items, int(body.get("page", 1)), int(body.get("size", 10)))

    def get(self, memory_id: str) -> tuple[int, Any]:
        try:
            uuid.UUID(memory_id)
        except ValueError:
            return 422, {
                "detail": [
                    {"loc": ["path", "memory_id"], "msg": "Input should be a valid UUID", "type": "uuid_parsing"}
                ]
            }
        m = self.memories.get(memory_id)
        if m is None:
            return 404, {"detail": "Memory not found"}
        out = self._response(m)
        out["text"] = out.pop("content")
        return 200, out

    def delete(self, body: dict[str, Any]) -> tuple[int, Any]:
        owner = self._user((body or {}).get("user_id"))
        if owner is None:
            return 404, {"detail": "User not found"}
        for mid in body.get("memory_ids", []):
            if mid not in self.memories:
                return 404, {"detail": "Memory not found"}
            self.memories[mid]["state"] = "deleted"
        return 200, {"message": f"Successfully deleted {len(body.get('memory_ids', []))} memories"}

    def list_apps(self, query: dict[str, str]) -> tuple[int, Any]:
        apps = [a for a in self.apps.values() if query.get("name", "").lower() in a["name"].lower()]
        counts = {
            a["id"]: sum(1 for m in self.memories.values() if m["app_id"] == a["id"] and m["state"] != "deleted")
            for a in apps
        }
        return 200, {
            "total": len(apps),
            "page": 1,
            "page_size": int(query.get("page_size", 10)),
            "apps": [
                {
                    "id": a["id"],
                    "name": a["name"],
                    "is_active": a["is_active"],
                    "total_memories_created": counts[a["id"]],
                    "total_memories_accessed": 0,
                }
                for a in apps
            ],
        }

    # -- for the tests ---------------------------------------------------------------------------

    def settle(self, timeout: float = 60.0) -> None:
        """Wait until every stalled request has been answered (a client that gave up may still have its create
        completed by the server)."""
        with self.settled:
            if not self.settled.wait_for(lambda: self.stalled == 0, timeout=timeout):
                raise AssertionError(f"{self.stalled} stalled request(s) still running after {timeout}s")

    def active(self) -> list[dict[str, Any]]:
        return [m for m in self.memories.values() if m["state"] == "active"]

    def creates(self) -> int:
        return sum(1 for r in self.requests if r["method"] == "POST" and r["path"] == MEMORIES)

    def __enter__(self) -> FakeOpenMemory:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
