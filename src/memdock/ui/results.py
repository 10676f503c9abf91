"""Search hits and nodes as Html: scores, mode, why a result is degraded, provenance, the matched words marked."""

from __future__ import annotations

import re
from collections.abc import Mapping

from ..contract import GetResult, SearchResult
from ..records import Hit
from . import pictures
from .data import ThreadInfo
from .html import Html, esc, join, link, tag, url
from .views import greyed, when

WORD = re.compile(r"\w+", re.UNICODE)
SUFFIXES = ("ing", "ed", "es", "s")
MODES = ("auto", "bm25", "hybrid", "vector")


def stem(word: str) -> str:
    """A crude stem, so `caches` marks `cache`: the page marks words, it does not rank them."""
    w = word.lower()
    for suffix in SUFFIXES:
        if len(w) > len(suffix) + 2 and w.endswith(suffix):
            w = w[: -len(suffix)]
            break
    return w[:-1] if len(w) > 3 and w.endswith("e") else w


def terms(query: str) -> set[str]:
    return {stem(w) for w in WORD.findall(query) if len(w) > 1}


def marked(text: str, wanted: set[str]) -> Html:
    """TEXT escaped, with the words whose stem is in WANTED inside <mark>."""
    out: list[str] = []
    last = 0
    for m in WORD.finditer(text):
        if stem(m.group()) in wanted:
            out.append(esc(text[last : m.start()]))
            out.append(tag("mark", m.group()))
            last = m.end()
    out.append(esc(text[last:]))
    return Html("".join(out))


def mode_line(result: SearchResult, asked: str) -> Html:
    """How the backend answered: its mode(s), or degraded and why."""
    modes = sorted({str((h.extra or {}).get("mode")) for h in result.hits if (h.extra or {}).get("mode")})
    shown = ", ".join(modes) or asked
    took = f" in {result.took_ms:.0f} ms" if result.took_ms is not None else ""
    parts: list[Html] = [
        tag("span", f"mode: {shown}", class_="mode"),
        esc(f"{len(result.hits)} hit(s) from {result.backend or '?'}{took}"),
    ]
    if result.degraded:
        parts.insert(0, tag("strong", "degraded", class_="degraded"))
        parts.append(tag("span", f"why: {result.reason or 'the backend did not say'}", class_="reason"))
    return tag("p", join(parts, " · "), class_="modeline degraded-line" if result.degraded else "modeline")


def provenance(hit: Hit, threads: Mapping[str, ThreadInfo]) -> Html:
    prov = hit.provenance or {}
    tid, eid, cid = prov.get("thread_id"), prov.get("entry_id"), prov.get("chunk_id")
    info = threads.get(tid) if tid else None
    parts: list[Html] = []
    if tid:
        href = tag("a", info.name if info else tid, href=url("thread", id=tid) + (f"#{eid}" if eid else ""))
        parts.append(join(["thread ", href]))
    if eid:
        parts.append(join(["entry ", link("node", eid, id=eid)]))
    if cid:
        parts.append(join(["chunk ", tag("code", cid)]))
    source = prov.get("source") or (info.source if info else None)
    if source:
        parts.append(join(["file ", tag("code", source)]))
    return tag("p", join(parts, " · ") or "no provenance given", class_="provenance")


def hit_block(hit: Hit, wanted: set[str], threads: Mapping[str, ThreadInfo]) -> Html:
    extra = hit.extra or {}
    who = [
        extra.get("author"),
        extra.get("role"),
        extra.get("entry_type"),
        when(hit.event_time) if hit.event_time else None,
    ]
    score = pictures.score_bar(hit.score)
    head = join(
        [
            score,
            tag("span", f"#{hit.rank or '?'} · {hit.kind}", class_="kind"),
            tag("span", " · ".join(str(w) for w in who if w), class_="meta"),
        ],
        " ",
    )
    return tag(
        "article",
        join([tag("header", head), tag("div", marked(hit.text, wanted), class_="text"), provenance(hit, threads)]),
        class_="hit",
    )


def search(
    query: str,
    asked: str,
    result: SearchResult | None,
    threads: Mapping[str, ThreadInfo],
    lacking: str | None,
    error: str | None,
) -> Html:
    options = join(tag("option", m, value=m, selected="selected" if m == asked else None) for m in MODES)
    form = tag(
        "form",
        join(
            [
                tag("input", type="search", name="q", value=query, aria_label="query", required="required"),
                tag("select", options, name="mode", aria_label="mode"),
                tag("button", "Search", type="submit"),
            ],
            " ",
        ),
        action="/ui/search",
        method="get",
        class_="searchform",
    )
    if lacking:
        return join([form, greyed("search", lacking)])
    if error:
        return join([form, tag("p", error, class_="notice bad")])
    if result is None:
        return form
    wanted = terms(query)
    hits = join(hit_block(h, wanted, threads) for h in result.hits)
    return join([form, mode_line(result, asked), hits or tag("p", "Nothing found.", class_="muted")])


def node(node_id: str, result: GetResult, names: Mapping[str, str], lacking: str | None) -> Html:
    if lacking:
        return greyed("open this node", lacking)
    if result.degraded:
        return tag("p", join([tag("strong", "degraded"), f" · why: {result.reason}"]), class_="modeline degraded-line")
    item = result.item
    if item is None:
        return tag("p", f"The backend holds nothing with the id {node_id}.", class_="notice bad")
    extra = dict(item.extra or {})
    edges = [e for e in extra.pop("edges", []) if isinstance(e, dict)]
    attrs: list[tuple[str, object]] = [
        ("kind", item.kind),
        ("name", item.name),
        ("time", when(item.event_time) if item.event_time else None),
    ]
    attrs += [(k, v) for k, v in sorted(extra.items()) if isinstance(v, (str, int, float))]
    attrs += [(f"provenance.{k}", v) for k, v in sorted((item.provenance or {}).items())]
    table = tag(
        "table",
        join(tag("tr", join([tag("th", k), tag("td", v)])) for k, v in attrs if v not in (None, "")),
        class_="facts",
    )
    return join(
        [
            tag("p", tag("code", node_id), class_="meta"),
            tag("div", item.text, class_="text node"),
            table,
            tag("h2", f"Facts and edges ({len(edges)})"),
            pictures.neighbourhood(node_id, item.name or node_id, edges, names),
            edges_table(edges, names),
        ]
    )


def edges_table(edges: list[dict[str, object]], names: Mapping[str, str]) -> Html:
    if not edges:
        return tag("p", "No edges.", class_="muted")
    head = tag("tr", join(tag("th", h) for h in ("Fact", "Type", "Direction", "Other end")))
    rows = join(
        tag(
            "tr",
            join(
                [
                    tag("td", e.get("fact") or ""),
                    tag("td", e.get("type") or ""),
                    tag("td", e.get("direction") or ""),
                    tag(
                        "td",
                        link("node", names.get(str(e.get("other_id")), str(e.get("other_id"))), id=e.get("other_id")),
                    ),
                ]
            ),
        )
        for e in edges
    )
    return tag("table", join([tag("thead", head), tag("tbody", rows)]), class_="edges")
