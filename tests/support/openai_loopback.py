"""An OpenAI-compatible API on loopback, for tests: real HTTP, deterministic answers.

`/v1/embeddings` answers with a hashed bag of words (texts sharing words get similar vectors);
`/v1/chat/completions` answers with whatever the `chat` responder returns for the request body (a string,
or {"content", "logprobs"} for callers that ask for log-probabilities).
It records every request (path, Authorization header, body) and can be told to fail with an HTTP
status or to stall, so timeouts and refusals are tested over a real socket.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

DIM = 64


def embed(text: str, dim: int = DIM) -> list[float]:
    vec = [0.0] * dim
    for word in re.findall(r"\w+", text.lower()):
        h = int.from_bytes(hashlib.blake2b(word.encode(), digest_size=4).digest(), "little")
        vec[h % dim] += 1.0 if h & (1 << 31) else -1.0
    return vec


class _Server(ThreadingHTTPServer):
    request_queue_size = 256  # graphiti opens dozens of connections at once (a reranker call per passage)


class OpenAILoopback:
    def __init__(self, chat: Callable[[dict[str, Any]], str | dict[str, Any]] | None = None, dim: int = DIM) -> None:
        self.requests: list[dict[str, Any]] = []
        self.fail_with: int | None = None
        self.stall_s = 0.0
        self.chat, self.dim = chat, dim
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                server.requests.append({"path": self.path, "auth": self.headers.get("Authorization"), **body})
                if server.stall_s:
                    time.sleep(server.stall_s)
                if server.fail_with:
                    self._send(
                        server.fail_with, {"error": {"message": "loopback told to fail", "type": "server_error"}}
                    )
                elif self.path.endswith("/embeddings"):
                    self._send(200, server._embeddings(body))
                elif self.path.endswith("/chat/completions") and server.chat:
                    self._send(200, server._completion(body))
                else:
                    self._send(404, {"error": {"message": f"no route {self.path}"}})

            def _send(self, status: int, obj: dict[str, Any]) -> None:
                payload = json.dumps(obj).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self.httpd = _Server(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def _embeddings(self, body: dict[str, Any]) -> dict[str, Any]:
        inputs = body["input"] if isinstance(body["input"], list) else [body["input"]]
        data = [{"object": "embedding", "index": i, "embedding": embed(t, self.dim)} for i, t in enumerate(inputs)]
        return {
            "object": "list",
            "data": data,
            "model": body["model"],
            "usage": {"prompt_tokens": 0, "total_tokens": 0},
        }

    def _completion(self, body: dict[str, Any]) -> dict[str, Any]:
        answer = self.chat(body)  # type: ignore[misc]
        message, logprobs = (answer, None) if isinstance(answer, str) else (answer["content"], answer.get("logprobs"))
        return {
            "id": f"chatcmpl-{len(self.requests)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", ""),
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "stop",
                    "message": {"role": "assistant", "content": message},
                    "logprobs": logprobs,
                }
            ],
            "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
        }

    def paths(self) -> list[str]:
        return [r["path"] for r in self.requests]

    def __enter__(self) -> OpenAILoopback:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
