"""Helpers the UI tests import by name: a store holding the fixture corpus and a hostile note, a `memdock ui`
server on loopback, and plain HTTP requests (urllib: what a client without the page's cookies sends)."""

from __future__ import annotations

import os
import subprocess
import sys
import urllib.error
import urllib.request
from contextlib import contextmanager
from pathlib import Path

from memdock import Memory
from memdock.chunking import chunk_bundle
from memdock.importers.pipeline import import_corpus
from memdock.registry import Registry
from memdock.runner.backend import SubprocessBackend

ROOT = Path(__file__).resolve().parents[2]
SCRIPTED = ROOT / "tests" / "adapters" / "scripted"
TOKEN = "t0ken-for-the-ui-tests-0123456789"
PROBE = '<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">'
HOSTILE_THREAD = "<script>window.__pwned = 3</script>thread"
HOSTILE_AUTHOR = "<b>eve</b><script>window.__pwned = 4</script>"


def build_store(root: Path, backend: str = "sqlite") -> Path:
    """ROOT/store on BACKEND, holding the fixture corpus (fixtures/threads) and one note whose text, title, thread
    name and author are markup (the word `zebra` finds it)."""
    import_corpus([ROOT / "fixtures" / "threads"], "watercooler", root / "corpus")
    chunk_bundle(root / "corpus", root / "chunks")
    with SubprocessBackend(Registry().get(backend), root / "store") as b:
        b.index(root / "chunks")
    with Memory(backend, data_dir=root / "store") as m:
        m.remember(
            f"zebra crossing {PROBE} end",
            thread=HOSTILE_THREAD,
            author=HOSTILE_AUTHOR,
            title=f"<i>title</i>{PROBE}",
            time="2026-04-01T10:00:00Z",
        )
    return root / "store"


@contextmanager
def ui_server(*args: str, env: dict[str, str] | None = None, command: str = "ui"):
    """`memdock ui --http 127.0.0.1:0 ARGS` (or `memdock mcp`); yields the page's base URL (…/ui/)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "memdock", command, "--http", "127.0.0.1:0", *args],
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **(env or {})},
    )
    try:
        assert proc.stderr is not None
        for line in proc.stderr:
            if " on http://" in line:
                base = line.split(" on ", 1)[1].strip()
                yield base if base.endswith("/ui/") else base.removesuffix("/mcp") + "/ui/"
                break
        else:
            raise AssertionError(f"the server exited ({proc.wait()}) before listening")
    finally:
        proc.terminate()
        proc.wait(timeout=60)


def request(
    url: str, *, data: dict[str, str] | None = None, headers: dict[str, str] | None = None
) -> tuple[int, str, dict[str, str]]:
    """(status, body, headers) of a GET, or a POST of DATA as a form; redirects are not followed."""
    from urllib.parse import urlencode

    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *a, **k):
            return None

    body = urlencode(data).encode() if data is not None else None
    req = urllib.request.Request(url, data=body, headers=headers or {})
    opener = urllib.request.build_opener(NoRedirect)
    try:
        with opener.open(req, timeout=120) as resp:
            return resp.status, resp.read().decode(), dict(resp.headers)
    except urllib.error.HTTPError as err:
        return err.code, err.read().decode(), dict(err.headers)


def csrf_of(page: str) -> str:
    marker = 'name="csrf" value="'
    start = page.index(marker) + len(marker)
    return page[start : page.index('"', start)]
