"""A library that gives its I/O errors as text only (tantivy: a ValueError carrying Rust's io::Error) is understood
in one place, memdock.diskfull.says_disk_full: ENOSPC or EDQUOT as their strerror or as "(os error N)"."""

import errno
import os

import pytest

from memdock.diskfull import disk_full_as_error, is_disk_full, says_disk_full
from memdock.errors import BackendError

TANTIVY = [
    "An IO error occurred: 'No space left on device (os error 28)'",
    "An IO error occurred: 'No space left on device (os error 28) at path \"/s/data/index/.tmpqHBPX1\"'",
    f"Failed to write: 'Disk quota exceeded (os error {errno.EDQUOT})'",
]
NOT_FULL = [
    "An IO error occurred: 'No such file or directory (os error 2)'",
    "An error occurred in a thread: 'An index writer was killed.. A worker thread encountered an error'",
    "Syntax Error: quorum AND (",
    "os error 280",
]


@pytest.mark.parametrize("text", TANTIVY)
def test_rusts_io_error_text_for_a_full_disk_is_a_full_disk(text):
    assert says_disk_full(text)
    assert is_disk_full(ValueError(text))


@pytest.mark.parametrize("text", NOT_FULL)
def test_other_errors_are_not(text):
    assert not says_disk_full(text)
    assert not is_disk_full(ValueError(text))


def test_the_strerror_is_the_platforms():
    assert says_disk_full(os.strerror(errno.ENOSPC))


def test_disk_full_as_error_turns_such_a_value_error_into_disk_full(tmp_path):
    with pytest.raises(BackendError) as caught, disk_full_as_error(tmp_path, "committing"):
        raise ValueError(TANTIVY[0])
    assert caught.value.details == {"reason": "disk_full", "path": str(tmp_path)}
    with pytest.raises(ValueError), disk_full_as_error(tmp_path, "committing"):
        raise ValueError(NOT_FULL[0])
