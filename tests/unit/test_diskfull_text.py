"""The core reads no exception's text: a full disk is an OSError's errno, SQLite's code, or memdock's own
disk_full. A library that gives its I/O errors as text only (tantivy: a ValueError carrying Rust's io::Error) is
understood by its adapter (memdock_tantivy/full.py), for a ValueError, and only from the errno as Rust prints it."""

import errno
import os
import sys
from pathlib import Path

import pytest

from memdock.diskfull import disk_full_as_error, is_disk_full, reraise_disk_full
from memdock.errors import BackendError

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "adapters" / "tantivy"))

from memdock_tantivy import full  # stdlib and memdock only: no tantivy needed

TANTIVY = [
    "An IO error occurred: 'No space left on device (os error 28)'",
    "An IO error occurred: 'No space left on device (os error 28) at path \"/s/data/index/.tmpqHBPX1\"'",
    f"Failed to write: 'Disk quota exceeded (os error {errno.EDQUOT})'",
    "An IO error occurred: 'Os { code: 28, kind: StorageFull, message: \"No space left on device\" }'",
    "An IO error occurred: 'Custom { kind: StorageFull, error: \"segment\" }'",
    "An IO error occurred: 'no storage space'",
]
NOT_FULL = [
    "An IO error occurred: 'No such file or directory (os error 2)'",
    "An error occurred in a thread: 'An index writer was killed.. A worker thread encountered an error'",
    "Syntax Error: quorum AND (",
    "os error 280",
    "(os error 280)",
    "Os { code: 280, kind: Uncategorized }",
]
# what a user's text may say, quoted by any error: never a full disk
USER_WORDS = ["Disk quota exceeded", "No space left on device", "disk full", "ENOSPC", os.strerror(errno.ENOSPC)]


@pytest.mark.parametrize("text", TANTIVY)
def test_rusts_io_error_for_a_full_disk_is_one_in_tantivys_value_error(text, tmp_path):
    assert full.says_full(text)
    assert full.is_full(ValueError(text), tmp_path)


@pytest.mark.parametrize("text", NOT_FULL + USER_WORDS)
def test_other_tantivy_errors_are_not(text, tmp_path):
    assert not full.says_full(text)
    assert not full.is_full(ValueError(text), tmp_path)


@pytest.mark.parametrize("text", TANTIVY[:1])
def test_tantivy_reads_the_text_of_its_value_error_only(text, tmp_path):
    assert not full.is_full(KeyError(text), tmp_path)
    assert not full.is_full(RuntimeError(text), tmp_path)


@pytest.mark.parametrize("exc", [ValueError, KeyError, RuntimeError, TypeError])
@pytest.mark.parametrize("text", USER_WORDS + TANTIVY[:1])
def test_the_core_reads_no_exceptions_text(exc, text, tmp_path):
    """Another adapter's ValueError quoting "Disk quota exceeded" (a user's words) is that error, not disk_full:
    not in is_disk_full (the SDK's catch-all for every adapter), nor in the wrappers of index, write, delete and
    export."""
    assert not is_disk_full(exc(text))
    assert not is_disk_full(exc(text), near=tmp_path)
    reraise_disk_full(exc(text), tmp_path, "indexing")  # returns: the caller re-raises the error itself
    with pytest.raises(exc), disk_full_as_error(tmp_path, "indexing"):
        raise exc(text)


def test_the_core_still_knows_an_oserrors_errno(tmp_path):
    for code in (errno.ENOSPC, errno.EDQUOT):
        assert is_disk_full(OSError(code, os.strerror(code)))
        with pytest.raises(BackendError) as caught, disk_full_as_error(tmp_path, "indexing"):
            raise OSError(code, os.strerror(code))
        assert caught.value.details == {"reason": "disk_full", "path": str(tmp_path)}
    assert not is_disk_full(OSError(errno.EIO, "Disk quota exceeded"))
