"""`memdock mcp` with remembers written as they were before the write process: by the write lane's thread, in
the server's own process (its GIL, its event loop). bench/shared.py's row to read the write process against in
the same run; takes `memdock mcp`'s arguments.

    python bench/mcp_inline_writes.py --http 127.0.0.1:0 --backend sqlite --data-dir DIR
"""

from __future__ import annotations

import sys
from typing import Any

from _common import on_path

on_path("src")

from memdock.cli.main import main  # noqa: E402
from memdock.service import service  # noqa: E402

_init = service.MemoryService.__init__


def _without_writer(self: service.MemoryService, backend: Any, **options: Any) -> None:
    options.pop("writer", None)
    _init(self, backend, **options)


if __name__ == "__main__":
    service.MemoryService.__init__ = _without_writer  # type: ignore[method-assign]
    sys.exit(main(["mcp", *sys.argv[1:]]))
