"""Pages as Html, from what memdock.ui.data gathered: the layout, the overview, a thread, the forget confirmation."""

from __future__ import annotations

from .. import __version__
from ..contract import Capabilities
from ..service import Entry, Status
from . import pictures
from .data import PAGE, ThreadInfo, ThreadRow
from .html import Html, esc, join, link, render, tag, url

FEATURES_SHOWN = ("embeddings", "graph_query", "temporal", "incremental", "delete", "entity_extraction", "rerank")


def when(stamp: str | None) -> str:
    """2026-01-20T02:10:00Z as `2026-01-20 02:10:00Z` (anything else as given)."""
    return stamp.replace("T", " ", 1) if stamp else "—"


def size(n: int | None) -> str:
    if n is None:
        return "unknown"
    value = float(n)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{n} B"


def greyed(label: str, reason: str) -> Html:
    """An action the backend or the page cannot take, shown disabled with the reason in words."""
    return tag("span", join([label, tag("small", f" ({reason})")]), class_="greyed", title=reason)


def page(title: str, body: Html, *, backend: str, writes: bool, query: str = "", notice: Html | None = None) -> Html:
    mode = "writes allowed (forget is on)" if writes else "read-only"
    return render(
        "page.html",
        title=title,
        body=body,
        backend=backend,
        query=query,
        notice=notice or Html(""),
        version=__version__,
        mode=mode,
    )


def notice(text: str, *, bad: bool = False) -> Html:
    return tag("p", text, class_="notice bad" if bad else "notice", role="status")


def pager(path: str, offset: int, shown: int, total: int, **query: object) -> Html:
    """Previous / next links for a list of TOTAL shown PAGE at a time from OFFSET."""
    parts: list[Html] = []
    if offset > 0:
        parts.append(link(path, "← previous", **query, offset=max(0, offset - PAGE) or None))
    parts.append(tag("span", f"{offset + 1 if shown else 0}–{offset + shown} of {total}"))
    if offset + shown < total:
        parts.append(link(path, "next →", **query, offset=offset + PAGE))
        parts.append(link(path, "last", **query, offset=(total - 1) // PAGE * PAGE))
    return tag("nav", join(parts, " "), class_="pager")


def backend_panel(status: Status, store_bytes: int | None) -> Html:
    caps = status.capabilities
    version = f"{caps.adapter} {caps.adapter_version}" if caps else "unknown (no capabilities)"
    health = status.health
    rows = [
        ("Backend", status.backend),
        ("Adapter", version),
        ("Store", status.store),
        ("Size on disk", size(store_bytes)),
        (
            "Health",
            ("ok" if health.ok else "not ok") + (f": {health.message}" if health.message else "") if health else "—",
        ),
    ]
    if status.degraded:
        rows.append(("Degraded", status.reason or "the backend is not healthy"))
    table = tag("table", join(tag("tr", join([tag("th", k), tag("td", v)])) for k, v in rows), class_="facts")
    return join([table, counts_table(status.counts), features(caps)])


def counts_table(counts: dict[str, int]) -> Html:
    if not counts:
        return tag("p", "The store holds no records yet.", class_="muted")
    cells = join(tag("tr", join([tag("th", k), tag("td", f"{v:,}", class_="num")])) for k, v in sorted(counts.items()))
    return join([tag("h2", "Records"), tag("table", cells, class_="counts")])


def features(caps: Capabilities | None) -> Html:
    if caps is None:
        return Html("")
    items = [
        esc(name) if caps.has(name) else greyed(name, f"backend {caps.adapter} does not declare {name}")
        for name in FEATURES_SHOWN
    ]
    return join([tag("h2", "What it can do"), tag("ul", join(tag("li", i) for i in items), class_="features")])


def threads_table(rows: list[ThreadRow], offset: int, total: int) -> Html:
    if not rows:
        return tag("p", "No threads yet: index a corpus or remember a note.", class_="muted")
    head = tag("tr", join([tag("th", "Thread"), tag("th", "Entries"), tag("th", "Last activity")]))
    body = join(
        tag(
            "tr",
            join(
                [
                    tag("td", link("thread", r.name, id=r.id)),
                    tag("td", f"{r.entries:,}", class_="num"),
                    tag("td", tag("time", when(r.last), datetime=r.last)),
                ]
            ),
        )
        for r in rows
    )
    return join(
        [
            tag("table", join([tag("thead", head), tag("tbody", body)]), class_="threads"),
            pager("", offset, len(rows), total),
        ]
    )


def overview(status: Status, store_bytes: int | None, rows: list[ThreadRow], offset: int, total: int) -> Html:
    return join(
        [
            tag("section", join([tag("h2", "Threads"), threads_table(rows, offset, total)]), class_="main"),
            tag("aside", backend_panel(status, store_bytes), class_="side"),
        ]
    )


def entry_block(entry: Entry, forget_reason: str | None, node_reason: str | None) -> Html:
    meta = [
        tag("span", entry.author or "unknown author", class_="author"),
        tag("span", entry.role, class_="role") if entry.role else Html(""),
        tag("span", entry.type, class_="type") if entry.type else Html(""),
        tag("time", when(entry.time), datetime=entry.time),
    ]
    actions = [
        greyed("node", node_reason) if node_reason else link("node", "node", id=entry.id),
        greyed("forget", forget_reason) if forget_reason else link("forget", "forget…", id=entry.id),
    ]
    return tag(
        "article",
        join(
            [
                tag("header", join([tag("h3", entry.title or entry.id), tag("div", join(meta, " "), class_="meta")])),
                tag("div", entry.text, class_="text"),
                tag("footer", join([tag("code", entry.id), *actions], " · ")),
            ]
        ),
        id=entry.id,
        class_="entry",
    )


def thread(
    thread_id: str,
    info: ThreadInfo,
    entries: list[Entry],
    offset: int,
    total: int,
    forget_reason: str | None,
    node_reason: str | None,
) -> Html:
    about = [tag("code", thread_id), f"{total:,} entr{'y' if total == 1 else 'ies'}"]
    if info.source:
        about.append(join(["from ", tag("code", info.source)]))
    actions = [
        greyed("thread node", node_reason) if node_reason else link("node", "thread node", id=thread_id),
        greyed("forget the thread", forget_reason)
        if forget_reason
        else link("forget", "forget the thread…", id=thread_id),
    ]
    listing = join(entry_block(e, forget_reason, node_reason) for e in entries)
    return join(
        [
            tag("p", join([*about, *actions], " · "), class_="meta"),
            pictures.timeline(entries),
            pager("thread", offset, len(entries), total, id=thread_id),
            listing or tag("p", "No entries on this page.", class_="muted"),
            pager("thread", offset, len(entries), total, id=thread_id),
        ]
    )


def confirm(item_id: str, what: str, preview: str, back: str, csrf: str) -> Html:
    return render(
        "confirm.html", item=item_id, what=f" ({what})" if what else "", preview=preview, back=back, csrf=csrf
    )


def login(env: str, next_url: str, problem: str | None) -> Html:
    shown = tag("p", problem, class_="notice bad") if problem else Html("")
    return render("login.html", env=env, next=next_url, problem=shown)


def back_to(thread_id: str | None) -> str:
    return url("thread", id=thread_id) if thread_id else url("")
