"""Reordering a ranked list by what a chunk's own words cannot say: the session it sits in (pooling) and, for a
question that asks when, whether it says when (time cues). Neither changes a hit's score: `score` stays the
chunk's own share of the query (the adapter's scoring); the order is by a ranking value, shown as
`extra.rank_value` (docs/concepts/recall.md states this contract). The sqlite and postgres adapters share these
rules; each reads what they need of its candidates (`Turn`) in its own query.

Pooling: a chunk's ranking value is its own place plus POOL times the mean of the best POOL_DEPTH places in its
thread (a session of a conversation), so a turn in the session the question is about outranks an equal match in
a session that holds only that one. Time cues: when the question asks when (`asks_when`), a chunk that names a
time ("yesterday", "last week", "in June", "2022") gains TIME times its own place: on LoCoMo dev 85 % of the turns
behind "when" questions hold such a word against 22 % of all turns. Named dates: when the question names a date
("in May 2022", "on 9 November, 2022"; timeframe.py), a chunk dated within it (its event time, a chat turn's
session date) has its ranking value raised by DATED times itself, in any thread: the question asks about that time.
Addressed turns: when the question names one of a conversation's speakers (speakers.py), a turn by another speaker
that names them has its ranking value lowered by ADDRESSED times itself.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple, TypeVar

from . import answers, speakers, timeframe

K = TypeVar("K", bound=Hashable)

POOL_DEPTH = 3
CONVERSATIONS = answers.CONVERSATIONS
"""Unless a weight is configured, only threads imported in these formats are reordered, as answer expansion does:
a conversation's sessions are what pooling measured on; a memory of notes keeps its order by score."""
POOL_WEIGHT = 0.5
"""Chosen by every fold of `bench/locomo.py --idea session_pool_weight=0,0.25,0.5,1` (bm25, LoCoMo dev)."""
TIME_WEIGHT = 0.25
"""Chosen by every fold of `bench/locomo.py --idea time_cue_weight=0,0.25,0.5,1` beside pooling."""
DATE_WEIGHT = 1.0
"""Chosen by four folds of five of `bench/locomo.py --idea question_date_weight=0,0.5,1,2,4` (the fifth: 2)."""
ADDRESSED_WEIGHT = 0.1
"""`bench/locomo.py --idea addressed_turn_weight=0,0.05,0.1,0.15,0.2`: the largest weight whose cost to a category
(adversarial: its questions name the wrong speaker on purpose) stays within 0.02 (docs/concepts/recall.md)."""
TIE_DIGITS = 6
"""Ranking values equal to this many decimals tie (kept in their ranked order), as the adapters' scores do."""


@dataclass(frozen=True)
class Weights:
    """How much each reordering counts (0: off); see the module's docstring."""

    pool: float = POOL_WEIGHT
    time: float = TIME_WEIGHT
    dated: float = DATE_WEIGHT
    addressed: float = ADDRESSED_WEIGHT


def configured(
    pool: float | None, time: float | None, dated: float | None, addressed: float | None
) -> tuple[Weights, frozenset[str] | None]:
    """The weights a config gives (None: the default), and the thread formats reordered: CONVERSATIONS unless
    pooling or time cues are configured, then every thread."""
    formats = CONVERSATIONS if pool is None and time is None else None
    given = {"pool": pool, "time": time, "dated": dated, "addressed": addressed}
    return Weights(**{name: w for name, w in given.items() if w is not None}), formats


_MONTHS = "january|february|march|april|june|july|august|september|october|november|december"
_MAY = r"(?:in|on|of|since|until|by|early|late) may|may \d|\d(?:st|nd|rd|th)? (?:of )?may"
""""May" names a month only beside a date or a preposition: "you may" and a person called May say no time."""
_DAYS = "monday|tuesday|wednesday|thursday|friday|saturday|sunday"
TIME_CUES = re.compile(
    rf"\b(?:yesterday|today|tonight|tomorrow|last|next|ago|recently|weekend|weeks?|months?|years?|since|"
    rf"earlier|later|soon|morning|evening|birthday|summer|winter|spring|{_MONTHS}|{_MAY}|{_DAYS}|(?:19|20)\d\d)\b",
    re.IGNORECASE,
)
ASKS_WHEN = re.compile(
    r"\b(?:when|what (?:year|month|day|date|time)|how long|how many (?:years|months|weeks|days))\b", re.IGNORECASE
)


def asks_when(question: str) -> bool:
    return bool(ASKS_WHEN.search(question))


class Turn(NamedTuple):
    """What the rules read of one candidate: its thread, its text without the header, who wrote it, when (seconds,
    UTC; None: undated), and the format its thread was imported in."""

    thread: str
    body: str
    author: str | None
    timestamp: float | None
    format: str | None


Read = Callable[[list[K]], Mapping[K, Turn]]
"""An adapter's lookup: the `Turn` of each of the keys it is given that it stores."""


def _addressed(rows: Mapping[K, Turn], question: str, weight: float) -> set[K]:
    """The turns by another speaker that name the one speaker QUESTION names (none when WEIGHT is off)."""
    if weight <= 0:
        return set()
    by_thread: dict[str, set[str]] = defaultdict(set)
    for row in rows.values():
        if row.author:
            by_thread[row.thread].add(row.author)
    about = {thread: speakers.named(question, names) for thread, names in by_thread.items()}
    return {
        rid
        for rid, row in rows.items()
        if (speaker := about.get(row.thread)) and speakers.addresses(row.body, row.author, speaker)
    }


def reorder(
    ranked: list[tuple[K, float, dict[str, Any]]],
    question: str,
    weights: Weights,
    read: Read[K],
    *,
    by_score: bool,
    k: int,
    formats: frozenset[str] | None = None,
) -> list[tuple[K, float, dict[str, Any]]]:
    """RANKED (best first) reordered by place + pool x its thread's pooled place + time x place when it names a
    time and QUESTION asks when; that value times 1 + dated when the chunk is dated within a date QUESTION names,
    and times 1 - addressed when it is a turn addressing the one speaker QUESTION names (WEIGHTS). A place is the
    score (BY_SCORE) or 1 / (K + rank), as answer expansion reads it; with FORMATS, only chunks of threads
    imported in one of them are pooled, cued or addressed. READ gives each key's `Turn`. Scores are left as they
    are; `extra.rank_value` holds the value ranked by."""
    pool, dated = weights.pool, weights.dated
    time = weights.time if asks_when(question) else 0.0
    spans = timeframe.spans(question) if dated > 0 else []
    if not ranked or (pool <= 0 and time <= 0 and not spans and weights.addressed <= 0):
        return ranked
    place = {rid: score if by_score else 1.0 / (k + rank) for rank, (rid, score, _) in enumerate(ranked, 1)}
    turns = read(list(place))
    rows = {rid: turn for rid, turn in turns.items() if formats is None or turn.format in formats}
    within = {rid for rid, turn in turns.items() if timeframe.within(spans, turn.timestamp)}
    addressed = _addressed(rows, question, weights.addressed)
    best: dict[str, list[float]] = defaultdict(list)
    for rid, own in place.items():
        if rid in rows:
            best[rows[rid].thread].append(own)
    pooled = {t: sum(sorted(v, reverse=True)[:POOL_DEPTH]) / POOL_DEPTH for t, v in best.items()}
    value: dict[K, float] = {}
    for rid, own in place.items():
        if rid in rows:
            cue = time if time > 0 and TIME_CUES.search(rows[rid].body) else 0.0
            own = own * (1.0 + cue) + pool * pooled[rows[rid].thread]
        own = own * (1.0 + dated) if rid in within else own
        value[rid] = own * (1.0 - weights.addressed) if rid in addressed else own
    return ordered(ranked, value)


def ordered(
    ranked: list[tuple[K, float, dict[str, Any]]], value: Mapping[K, float]
) -> list[tuple[K, float, dict[str, Any]]]:
    """RANKED ordered by VALUE, best first (equal values keep RANKED's order), each with its `extra.rank_value`."""
    order = sorted(range(len(ranked)), key=lambda i: (-round(value[ranked[i][0]], TIE_DIGITS), i))
    return [(ranked[i][0], ranked[i][1], {**ranked[i][2], "rank_value": value[ranked[i][0]]}) for i in order]
