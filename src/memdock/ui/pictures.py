"""Inline SVG drawn here, no script and no CDN: a score bar, a thread's timeline, a node's neighbourhood.

Every label goes through `esc`; the drawings use presentation attributes only (no inline style), so the page's
Content-Security-Policy needs no exception for them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime

from ..service import Entry
from .html import Html, esc, join, tag, url

PALETTE = ("#2563eb", "#d97706", "#059669", "#db2777", "#7c3aed", "#0891b2", "#65a30d", "#dc2626")
MAX_NEIGHBOURS = 16


def colour(key: str, keys: Sequence[str]) -> str:
    return PALETTE[keys.index(key) % len(PALETTE)] if key in keys else PALETTE[0]


def score_bar(score: float | None) -> Html:
    """A 0-1 score as a small bar with the number beside it."""
    value = 0.0 if score is None or math.isnan(score) else max(0.0, min(1.0, float(score)))
    bar = Html(
        f'<svg class="score" width="60" height="10" viewBox="0 0 60 10" role="img" aria-label="score {value:.2f}">'
        f'<rect width="60" height="10" rx="2" fill="#e5e7eb"/><rect width="{60 * value:.1f}" height="10" rx="2" '
        'fill="#2563eb"/></svg>'
    )
    return tag("span", join([bar, tag("b", "—" if score is None else f"{score:.3f}")], " "), class_="scorebox")


def _seconds(stamp: str | None) -> float | None:
    if not stamp:
        return None
    try:
        return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def timeline(entries: Sequence[Entry], width: int = 760, height: int = 70) -> Html:
    """The page's entries on a time axis, one dot each, coloured by author; a dot links to its entry."""
    if not entries:
        return Html("")
    times = [_seconds(e.time) for e in entries]
    known = [t for t in times if t is not None]
    low, high = (min(known), max(known)) if known else (0.0, 0.0)
    authors = sorted({e.author or "?" for e in entries})
    left, right = 20, width - 20
    dots = []
    for i, (entry, t) in enumerate(zip(entries, times)):
        share = (t - low) / (high - low) if t is not None and high > low else (i + 0.5) / len(entries)
        x = left + share * (right - left)
        label = f"{entry.time or 'no time'} · {entry.author or 'unknown'} · {entry.title or entry.id}"
        dot = Html(
            f'<circle cx="{x:.1f}" cy="30" r="6" fill="{colour(entry.author or "?", authors)}" '
            f'fill-opacity="0.8" stroke="#fff"><title>{esc(label)}</title></circle>'
        )
        dots.append(tag("a", dot, href=f"#{entry.id}"))
    axis = Html(f'<line x1="{left}" y1="30" x2="{right}" y2="30" stroke="#9ca3af"/>')
    first, last = (_day(low), _day(high)) if known else ("", "")
    ends = Html(
        f'<text x="{left}" y="58" font-size="10" fill="#4b5563">{esc(first)}</text>'
        f'<text x="{right}" y="58" font-size="10" fill="#4b5563" text-anchor="end">{esc(last)}</text>'
    )
    legend = join(
        tag("span", join([tag("i", "", class_=f"sw c{authors.index(a) % len(PALETTE)}"), a], " "), class_="who")
        for a in authors[: len(PALETTE)]
    )
    svg = Html(
        f'<svg class="timeline" viewBox="0 0 {width} {height}" role="img" aria-label="timeline of the entries on '
        f'this page">{axis}{join(dots)}{ends}</svg>'
    )
    return tag(
        "figure", join([svg, tag("figcaption", join(["Entries on this page over time: ", legend]))]), class_="pic"
    )


def _day(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%d %H:%MZ")


def neighbourhood(node_id: str, name: str, edges: Sequence[Mapping[str, object]], names: Mapping[str, str]) -> Html:
    """NODE_ID in the middle, the other end of each edge around it (at most MAX_NEIGHBOURS), lines named by type."""
    if not edges:
        return Html("")
    shown = list(edges)[:MAX_NEIGHBOURS]
    width, height = 600, 420
    cx, cy, rx, ry = width / 2, height / 2, 170, 150
    parts: list[str] = []
    for i, edge in enumerate(shown):
        other = str(edge.get("other_id") or "")
        angle = 2 * math.pi * i / len(shown) - math.pi / 2
        x, y = cx + rx * math.cos(angle), cy + ry * math.sin(angle)
        arrow = "→" if edge.get("direction") == "out" else "←"
        kind = f"{arrow} {edge.get('type') or ''}"
        parts.append(f'<line x1="{cx}" y1="{cy}" x2="{x:.1f}" y2="{y:.1f}" stroke="#9ca3af"/>')
        parts.append(
            f'<text x="{(cx + x) / 2:.1f}" y="{(cy + y) / 2 - 3:.1f}" font-size="10" fill="#6b7280" '
            f'text-anchor="middle">{esc(kind)}</text>'
        )
        label = _short(names.get(other, other))
        node = (
            f'<circle cx="{x:.1f}" cy="{y:.1f}" r="7" fill="#059669"><title>{esc(other)}</title></circle>'
            f'<text x="{x:.1f}" y="{y + 20:.1f}" font-size="11" fill="#111827" text-anchor="middle">{esc(label)}</text>'
        )
        parts.append(str(tag("a", Html(node), href=url("node", id=other))))
    centre = (
        f'<circle cx="{cx}" cy="{cy}" r="11" fill="#2563eb"><title>{esc(node_id)}</title></circle>'
        f'<text x="{cx}" y="{cy - 18}" font-size="12" font-weight="bold" fill="#111827" text-anchor="middle">'
        f"{esc(_short(name))}</text>"
    )
    more = f" (the first {MAX_NEIGHBOURS} of {len(edges)} edges)" if len(edges) > MAX_NEIGHBOURS else ""
    svg = Html(
        f'<svg class="graph" viewBox="0 0 {width} {height}" role="img" aria-label="neighbourhood of this node">'
        f"{''.join(parts)}{centre}</svg>"
    )
    return tag("figure", join([svg, tag("figcaption", f"This node and what its edges reach{more}.")]), class_="pic")


def _short(text: str, limit: int = 28) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
