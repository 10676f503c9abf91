"""Bootstrap intervals for bench/locomo.py: a figure's 95 % interval over resampled questions, and the paired
interval of (idea - baseline) over the same resamples, so a gain is read against the noise of 997 questions."""

from __future__ import annotations

import random
import statistics

RESAMPLES = 1000
SEED = 34


def _draws(n: int, resamples: int = RESAMPLES, seed: int = SEED) -> list[list[int]]:
    rng = random.Random(seed)
    return [[rng.randrange(n) for _ in range(n)] for _ in range(resamples)]


def interval(values: list[float], resamples: int = RESAMPLES) -> tuple[float, float]:
    """The 2.5th and 97.5th percentiles of the mean of VALUES over bootstrap resamples (seeded: reruns agree)."""
    if not values:
        return (float("nan"), float("nan"))
    means = sorted(statistics.fmean(values[i] for i in draw) for draw in _draws(len(values), resamples))
    return means[int(0.025 * len(means))], means[int(0.975 * len(means)) - 1]


def paired(idea: list[float], base: list[float], resamples: int = RESAMPLES) -> tuple[float, float, float]:
    """Mean of (idea - base) per question and its 95 % bootstrap interval (the same questions drawn for both)."""
    diffs = [a - b for a, b in zip(idea, base, strict=True)]
    low, high = interval(diffs, resamples)
    return statistics.fmean(diffs), low, high
