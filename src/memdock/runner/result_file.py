"""Reading the adapter's result file (memdock.untrusted's rules): a link, a FIFO, a device or a file over the
cap is a protocol error naming the file."""

from __future__ import annotations

from pathlib import Path

from ..errors import BackendError
from ..untrusted import NotRegularFile, open_regular, read_upto

DEFAULT_MAX_RESULT_BYTES = 256 * 1024 * 1024


def read_capped(path: Path, cap: int, source: str) -> bytes | None:
    """The bytes of PATH, or None when it does not exist. Raises BackendError for anything but a regular file
    of at most CAP bytes, naming the size and the cap (`limits.max_result_bytes` in adapter.json)."""
    try:
        with open_regular(path) as (fd, st):
            if st.st_size > cap:
                raise _too_big(source, path, st.st_size, cap)
            data = b"".join(read_upto(fd, cap + 1))
    except FileNotFoundError:
        return None
    except NotRegularFile as exc:
        if exc.kind == "a symbolic link":
            raise BackendError(
                f"{source}: result file {path} is a symbolic link; memdock never follows one",
                details={"result": str(path)},
            ) from None
        raise BackendError(
            f"{source}: result file {path} is {exc.kind}, not a regular file", details={"result": str(path)}
        ) from None
    except OSError as exc:
        raise BackendError(
            f"{source}: cannot read result file {path}: {exc.strerror}", details={"result": str(path)}
        ) from None
    if len(data) > cap:
        raise _too_big(source, path, len(data), cap, growing=True)
    return data


def _too_big(source: str, path: Path, size: int, cap: int, *, growing: bool = False) -> BackendError:
    size_text = f"more than {cap} bytes (it grew while read)" if growing else f"{size} bytes"
    return BackendError(
        f"{source}: result file {path} is {size_text}, over the cap of {cap} bytes (limits.max_result_bytes "
        "in adapter.json); large results go by reference",
        details={"result": str(path), "size": size, "cap": cap},
    )
