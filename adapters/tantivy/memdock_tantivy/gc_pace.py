"""The collector paced for an index run: memdock.sdk.gc_pace, which the sqlite adapter shares."""

from memdock.sdk.gc_pace import THRESHOLDS, paced

__all__ = ["THRESHOLDS", "paced"]
