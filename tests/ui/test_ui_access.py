"""Who reaches the page: the token (header or the login form's cookie) for `memdock ui` and for /ui under
`memdock mcp --http`; a forget racing an index run waits for it, and nothing is lost."""

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from ui_helpers import TOKEN, request, ui_server

from memdock import Memory
from memdock.service import remember
from memdock.threads import thread_id_for

TOKEN_ENV = {"MEMDOCK_MCP_TOKEN": TOKEN}


@pytest.mark.parametrize("command", ["ui", "mcp"])
def test_without_the_token_or_with_a_wrong_one_the_page_is_401(shared_store, command):
    if command == "mcp":
        pytest.importorskip("mcp", reason="the mcp extra is not installed")
    args = ["--data-dir", str(shared_store)]
    with ui_server(*args, env=TOKEN_ENV, command=command) as base:
        bare = request(base)
        wrong = request(base, headers={"Authorization": "Bearer not-the-token-at-all"})
        wrong_cookie = request(f"{base}search?q=cache", headers={"Cookie": "memdock_ui=forged"})
        right = request(f"{base}search?q=cache", headers={"Authorization": f"Bearer {TOKEN}"})
        bad_login = request(f"{base}login", data={"token": "guess", "next": "/ui/"})
        login = request(f"{base}login", data={"token": TOKEN, "next": "/ui/search?q=cache"})
        cookie = login[2]["set-cookie"].split(";", 1)[0]
        with_cookie = request(f"{base}search?q=cache", headers={"Cookie": cookie})
        offsite = request(f"{base}login", data={"token": TOKEN, "next": "https://evil.example/"})
    for status, body, headers in (bare, wrong, wrong_cookie, bad_login):
        assert status == 401 and headers["www-authenticate"].startswith("Bearer")
        assert "Cache stampede" not in body and "incident-cache" not in body and "sqlite" not in body
    assert "wrong token" in wrong[1] and "wrong token" in bad_login[1]
    assert right[0] == 200 and "<code>incident-cache.md</code>" in right[1]
    assert login[0] == 303 and login[2]["location"] == "/ui/search?q=cache"
    assert "HttpOnly" in login[2]["set-cookie"] and "SameSite=strict" in login[2]["set-cookie"]
    assert TOKEN not in login[2]["set-cookie"]
    assert with_cookie[0] == 200 and "<code>incident-cache.md</code>" in with_cookie[1]
    assert offsite[2]["location"] == "/ui/"  # never sent to another site


def test_mcp_keeps_its_own_token_check_beside_the_page(shared_store):
    pytest.importorskip("mcp", reason="the mcp extra is not installed")
    bearer = {"Authorization": f"Bearer {TOKEN}"}
    incident = "/ui/thread?id=thread:incident-cache:198b0b24"
    with ui_server("--data-dir", str(shared_store), env=TOKEN_ENV, command="mcp") as base:
        mcp = base.removesuffix("/ui/") + "/mcp"
        plain = request(mcp, data={})
        cookie_only = request(mcp, data={}, headers={"Cookie": "memdock_ui=" + "0" * 64})
        read_only = request(base.removesuffix("/ui/") + incident, headers=bearer)
    with ui_server("--data-dir", str(shared_store), "--ui-allow-writes", env=TOKEN_ENV, command="mcp") as base:
        writable = request(base.removesuffix("/ui/") + incident, headers=bearer)
    assert plain[0] == cookie_only[0] == 401
    assert "read-only: start the page with --allow-writes" in read_only[1] and "forget…" not in read_only[1]
    assert "forget the thread…" in writable[1]


def test_off_loopback_the_page_needs_a_token():
    refused = subprocess.run(
        [sys.executable, "-m", "memdock", "ui", "--http", "0.0.0.0:0", "--backend", "null"],
        capture_output=True,
        text=True,
        env={k: v for k, v in os.environ.items() if k != "MEMDOCK_MCP_TOKEN"},
        timeout=120,
    )
    assert refused.returncode == 3 and "not loopback, without a bearer token" in refused.stderr


def bulk_bundle(root: Path, n: int) -> Path:
    notes = [remember.Note.of(f"bulk note {i} about wombats", thread="bulk", author="loader") for i in range(n)]
    bundle, _ = remember.build(root, notes)
    return bundle


def test_a_forget_racing_an_index_run_waits_and_nothing_is_lost(own_store, tmp_path):
    entry = "entry:21bd200e6444fc8d"
    bundle = bulk_bundle(tmp_path / "bulk", 400)
    owner = own_store / "write.lock.owner"  # present while a writer holds the store's lock
    with ui_server("--data-dir", str(own_store), "--allow-writes", "--deadline", "120") as base:
        _, confirm, _ = request(f"{base}forget?id={entry}")
        csrf = confirm.split('name="csrf" value="', 1)[1].split('"', 1)[0]
        index = subprocess.Popen(
            [sys.executable, "-m", "memdock", "index", str(bundle), "--data-dir", str(own_store)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        while not owner.exists() and index.poll() is None:
            time.sleep(0.005)  # polls for the index run to take the lock; the forget below then races it
        forgot = request(f"{base}forget", data={"id": entry, "csrf": csrf, "back": "/ui/"})
        out, err = index.communicate(timeout=300)
        _, found, _ = request(f"{base}search?q=stampede+thundering+herd")
    assert index.returncode == 0, err
    assert forgot[0] == 303, forgot[1]
    assert entry not in found
    with Memory(data_dir=own_store) as m:
        held = m.threads()
        assert held[thread_id_for("bulk")] == 400  # every record of the index run
        assert held["thread:incident-cache:198b0b24"] == 1  # the other entry of the forgotten one's thread
        assert held["thread:onboarding:4da71eee"] == held["thread:release-planning:b71aa54c"] == 3
        assert not [h for h in m.recall("stampede thundering herd").hits if h.provenance.get("entry_id") == entry]
