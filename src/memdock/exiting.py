"""Ending a process without the interpreter's teardown, after everything Python promises at exit."""

from __future__ import annotations

import contextlib
import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import NoReturn


def end(code: int) -> NoReturn:
    """End the process with CODE after what Python promises at exit, without the interpreter's teardown.

    Python runs the threading module's exit hooks and joins the threads that are not daemons, runs the atexit
    handlers and flushes the standard streams; it does not promise that objects still alive are finalized. The
    teardown that would free every object and collect garbage cost a one-shot adapter call more than its request,
    and `memdock add` of 20,000 notes 0.04 s of wall on a quiet box (0.16-0.20 s at a load of 12, against
    0.02-0.07 s ended so). This is how the standard library ends its own forked workers (multiprocessing:
    threading._shutdown, the streams flushed, os._exit), plus the atexit handlers. Used by adapters on the SDK
    (`sdk.adapter.serve`) and by the `memdock` program (`cli.main.run`)."""
    import atexit

    threading = sys.modules.get("threading")
    if threading is not None:
        threading._shutdown()
    atexit._run_exitfuncs()
    os._exit(_flushed(code))


def _flushed(code: int) -> int:
    """CODE once the standard streams are flushed, or 120 where one of them could not be written, as Python's
    teardown ends (output lost to a full disk must not end as a success); a closed pipe (`| head`) keeps CODE, as
    `cli.main` treats one met before the end."""
    streams = (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__)  # __stdout__: kept by a logger, say
    for stream in {id(s): s for s in streams if s is not None}.values():
        try:
            stream.flush()
        except (BrokenPipeError, ValueError):  # ValueError: closed, nothing to flush
            pass
        except OSError as exc:
            code = 120
            name = getattr(stream, "name", "a stream")
            with contextlib.suppress(OSError):
                os.write(2, f"memdock: output lost, {name} could not be written: {exc}\n".encode())
    return code
