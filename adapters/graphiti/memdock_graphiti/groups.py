"""Thread ids to graphiti group ids.

graphiti accepts only ASCII letters, digits, '-' and '_' in a group id, and on FalkorDB each group is
its own graph whose id also lands in full-text queries, where '-' is an operator. A group id is
therefore `md_` + the thread id's letters and digits (runs of anything else become '_') + a digest
of the whole thread id, so distinct threads never share a graph.
"""

from __future__ import annotations

import re

from memdock.ids import digest

PREFIX = "md_"


def group_id_for(thread_id: str) -> str:
    readable = re.sub(r"[^A-Za-z0-9]+", "_", thread_id).strip("_")[:40]
    return f"{PREFIX}{readable}_{digest(thread_id, length=10)}"
