"""`memdock ui` over real HTTP on the fixture corpus: every page, markup in what the memory holds shown as text,
paging, a backend that does not answer, capabilities greying actions out, read-only unless --allow-writes."""

import re
from urllib.parse import quote

from ui_helpers import HOSTILE_AUTHOR, PROBE, SCRIPTED, csrf_of, request, ui_server

from memdock import Memory
from memdock.threads import thread_id_for

INCIDENT = "thread:incident-cache:198b0b24"


def scripts_in(page: str) -> list[str]:
    """Every <script ...> tag the page holds: only the page's own ui.js may be one."""
    return re.findall(r"<script\b[^>]*>", page, re.IGNORECASE)


def test_every_page_shows_markup_from_the_memory_as_text(shared_store):
    with Memory(data_dir=shared_store) as m:
        hostile = [h for h in m.recall("zebra").hits if "zebra" in h.text][0]
    entry, thread = hostile.provenance["entry_id"], hostile.provenance["thread_id"]
    with ui_server("--data-dir", str(shared_store), "--allow-writes") as base:
        pages = {
            "overview": request(base),
            "thread": request(f"{base}thread?id={quote(thread)}"),
            "search": request(f"{base}search?q=zebra"),
            "node": request(f"{base}node?id={quote(entry)}"),
            "thread node": request(f"{base}node?id={quote(thread)}"),
            "confirm": request(f"{base}forget?id={quote(entry)}"),
            "bad request": request(f"{base}thread?id={quote(PROBE)}&offset={quote(PROBE)}"),
        }
    for name, (status, body, headers) in pages.items():
        assert status == (400 if name == "bad request" else 200), (name, body[:500])
        assert scripts_in(body) == ['<script src="/ui/static/ui.js" defer>'], name
        assert "<img src=x" not in body and "<b>eve</b>" not in body, name
        assert "script-src 'self'" in headers["content-security-policy"]
    assert "&lt;script&gt;window.__pwned = 1&lt;/script&gt;" in pages["thread"][1]
    assert "&lt;b&gt;eve&lt;/b&gt;" in pages["thread"][1]  # the author, as written
    assert "&lt;script&gt;window.__pwned = 3&lt;/script&gt;thread" in pages["overview"][1]  # the thread name
    assert "&lt;i&gt;title&lt;/i&gt;" in pages["node"][1]  # the title
    assert "<mark>zebra</mark>" in pages["search"][1]
    assert HOSTILE_AUTHOR not in "".join(p[1] for p in pages.values())


def test_the_pages_show_threads_hits_with_provenance_and_a_node(shared_store):
    with ui_server("--data-dir", str(shared_store)) as base:
        _, overview, _ = request(base)
        _, thread, _ = request(f"{base}thread?id={quote(INCIDENT)}")
        _, found, _ = request(f"{base}search?q=cache+stampede")
        _, hybrid, _ = request(f"{base}search?q=cache&mode=hybrid")
        _, node, _ = request(f"{base}node?id=entry:21bd200e6444fc8d")
    assert re.search(
        r"incident-cache</a></td><td class=\"num\">2</td><td><time datetime=\"2026-01-20T09:00:00Z\"", overview
    )
    assert (
        "sqlite 1.0.0" in overview and "Size on disk" in overview and re.search(r"<th>entry</th><td[^>]*>9<", overview)
    )
    assert thread.index("Cache stampede at 02:00") < thread.index("Jittered expiry everywhere")  # oldest first
    assert "Codex (lee)" in thread and '<svg class="timeline"' in thread
    assert "mode: bm25" in found and "<mark>stampede</mark>" in found and "file <code>incident-cache.md</code>" in found
    assert f'href="/ui/thread?id={quote(INCIDENT)}#entry:21bd200e6444fc8d"' in found
    assert "chunk <code>chunk:" in found and re.search(r"<b>[01]\.\d{3}</b>", found)
    assert "degraded" in hybrid and "needs embeddings" in hybrid  # the mode asked for, and why it was not given
    assert '<svg class="graph"' in node and "mentions person lee" in node and ">incident-cache</a>" in node


def test_a_huge_thread_is_shown_a_page_at_a_time(tmp_path):
    notes = [
        {"content": f"note number {i}", "thread": "huge", "time": f"2026-05-01T{i // 60:02d}:{i % 60:02d}:00Z"}
        for i in range(620)
    ]
    with Memory(data_dir=tmp_path / "store") as m:
        m.remember_many(notes)
    tid = quote(thread_id_for("huge"))
    with ui_server("--data-dir", str(tmp_path / "store")) as base:
        _, first, _ = request(f"{base}thread?id={tid}")
        _, last, _ = request(f"{base}thread?id={tid}&offset=600")
        _, overview, _ = request(base)
    assert first.count('class="entry"') == 50 and "note number 0\n" not in first
    assert "note number 0<" in first and "note number 49<" in first and "note number 50<" not in first
    assert f'href="/ui/thread?id={tid}&amp;offset=50">next' in first and "1–50 of 620" in first
    assert last.count('class="entry"') == 20 and "note number 619<" in last and "601–620 of 620" in last
    assert ">620</td>" in overview


def test_a_backend_that_does_not_answer_makes_the_page_degraded_not_hung(tmp_path):
    with Memory(str(SCRIPTED), data_dir=tmp_path / "store") as m:
        m.remember("a note the scripted backend keeps in its journal", thread="slow")
    args = ["--backend", str(SCRIPTED), "--data-dir", str(tmp_path / "store"), "--deadline", "1"]
    with ui_server(*args, "--config", "behavior=silent", "--config", "seconds=600") as base:
        status, found, _ = request(f"{base}search?q=note")
        _, overview, _ = request(base)
        _, thread, _ = request(f"{base}thread?id={quote(thread_id_for('slow'))}")
    assert status == 200 and "degraded" in found and re.search(r"why: .*(deadline|no answer within)", found), found
    assert ">slow</a>" in overview  # the threads come from the store's ledger, whatever the backend does
    assert "a note the scripted backend keeps" in thread
    assert "does not support get_node" in thread  # the scripted adapter declares no get_node: greyed, with why


def test_a_backend_that_stores_nothing_greys_search_out_with_its_reason(tmp_path):
    with ui_server("--backend", "null", "--data-dir", str(tmp_path / "store"), "--allow-writes") as base:
        _, found, _ = request(f"{base}search?q=anything")
        _, overview, _ = request(base)
    assert 'class="greyed"' in found and "stores nothing to retrieve" in found and 'class="hit"' not in found
    assert "null 1.0.0" in overview and "No threads yet" in overview


def test_read_only_unless_allowed(own_store):
    entry = "entry:21bd200e6444fc8d"
    with ui_server("--data-dir", str(own_store)) as base:
        _, thread, _ = request(f"{base}thread?id={quote(INCIDENT)}")
        status, confirm, _ = request(f"{base}forget?id={entry}")
        posted, refused, _ = request(f"{base}forget", data={"id": entry, "csrf": "x", "back": "/ui/"})
    assert "read-only: start the page with --allow-writes" in thread and "forget…" not in thread
    assert status == 403 and "--allow-writes" in confirm
    assert posted == 403 and "another site" in refused
    with Memory(data_dir=own_store) as m:
        assert len(m.list(thread=INCIDENT)) == 2


def test_forget_needs_the_pages_own_form(own_store):
    entry = "entry:21bd200e6444fc8d"
    with ui_server("--data-dir", str(own_store), "--allow-writes") as base:
        _, confirm, _ = request(f"{base}forget?id={entry}")
        token = csrf_of(confirm)
        forged = request(f"{base}forget", data={"id": entry, "csrf": "0" * 64})
        cross = request(f"{base}forget", data={"id": entry, "csrf": token}, headers={"Origin": "http://evil.example"})
        with Memory(data_dir=own_store) as m:
            kept = len(m.list(thread=INCIDENT))
        done = request(f"{base}forget", data={"id": entry, "csrf": token, "back": f"/ui/thread?id={INCIDENT}"})
        _, after, _ = request(f"{base}thread?id={quote(INCIDENT)}&forgot={entry}&cascaded=1")
        _, found, _ = request(f"{base}search?q=stampede+thundering")
    assert forged[0] == cross[0] == 403 and kept == 2
    assert done[0] == 303 and done[2]["location"].startswith(f"/ui/thread?id={INCIDENT}&forgot=")
    assert f"Forgot {entry}" in after and "Cache stampede at 02:00" not in after.split("</h1>", 1)[1]
    assert entry not in found


def test_bad_arguments_are_a_400_naming_them(shared_store):
    with ui_server("--data-dir", str(shared_store)) as base:
        offset = request(f"{base}thread?id={quote(INCIDENT)}&offset=-1")
        mode = request(f"{base}search?q=x&mode=telepathy")
        missing = request(f"{base}node")
        long_id = request(f"{base}node?id={'x' * 300}")
        unknown = request(f"{base}node?id={quote('no such <node>')}")
        host = request(base, headers={"Host": "rebound.example:8766"})
    assert offset[0] == 400 and "offset must be a whole number" in offset[1]
    assert mode[0] == 400 and "mode must be one of" in mode[1]
    assert missing[0] == 400 and "id is missing" in missing[1]
    assert long_id[0] == 400 and "id is 300 characters" in long_id[1]
    assert unknown[0] == 404 and "holds nothing with the id no such &lt;node&gt;" in unknown[1]
    assert host[0] == 421  # a loopback server answers loopback names only (DNS rebinding)


def test_forgetting_a_thread_takes_its_entries(own_store):
    with ui_server("--data-dir", str(own_store), "--allow-writes") as base:
        _, confirm, _ = request(f"{base}forget?id={INCIDENT}")
        done = request(f"{base}forget", data={"id": INCIDENT, "csrf": csrf_of(confirm), "back": "/ui/"})
        _, overview, _ = request(f"{base}?forgot={INCIDENT}&cascaded=2")
        gone = request(f"{base}thread?id={quote(INCIDENT)}")
    assert "a thread of 2 entries" in confirm and ">incident-cache</blockquote>" in confirm
    assert done[0] == 303 and done[2]["location"].startswith("/ui/?forgot=")
    assert f"Forgot {INCIDENT}, with 2 record(s)" in overview and ">incident-cache</a>" not in overview
    assert gone[0] == 404
    with Memory(data_dir=own_store) as m:
        assert INCIDENT not in m.threads() and not m.recall("stampede").hits
