"""Where a bundle writer may write, and the only way it ever replaces a directory.

DESIGN: "a writer only ever clears a directory that is a memdock bundle, and never an output that is or
contains an input." Every writer goes through `OutputDir` (BundleWriter owns one), so the rule lives here:

- an output that is, contains or lies inside one of the writer's inputs (symbolic links resolved) is refused
  before anything is read or written;
- an existing directory is replaced only when it is empty or a memdock bundle: a manifest and only the files
  it lists, or an incomplete bundle a killed writer left (only our part files and temp names, no manifest);
  a listed file must also be named as memdock names its files (a manifest cannot make a foreign file ours);
  anything else is refused even with overwrite, and nothing in it is touched;
- a new bundle is written into a staging directory beside the output (`.NAME.partial-PID-TOKEN`) and moved
  into place when complete, so the old bundle stays whole until the new one is. Staging directories whose
  writer has died are removed by the next writer of the same output.
"""

from __future__ import annotations

import os
import re
import secrets
import shutil
from collections.abc import Sequence
from pathlib import Path

import orjson

from ..atomic import fsync_dir, temp_pattern
from ..errors import InvalidInputError
from .manifest import MANIFEST_NAME, PART_FILE

_TEMP = re.compile(temp_pattern(MANIFEST_NAME))


class UnsafeOutputError(InvalidInputError):
    """An output the writer must not touch: it overlaps an input, or it holds files memdock did not write."""

    @property
    def exit_code(self) -> int:
        return 2


class OutputNotEmptyError(InvalidInputError):
    """The output directory holds something and replacing it was not asked for (each front door names its switch)."""

    def __init__(self, path: Path):
        super().__init__(f"{path} is not empty; pass overwrite=True to replace the bundle there")
        self.path = path


def _real(path: str | os.PathLike[str]) -> Path:
    return Path(os.path.realpath(os.path.abspath(path)))


def check_not_input(output: str | os.PathLike[str], inputs: Sequence[str | os.PathLike[str]]) -> None:
    """Refuse an OUTPUT that is, contains or lies inside one of INPUTS (after resolving symbolic links)."""
    out = _real(output)
    for given in inputs:
        src = _real(given)
        if out == src:
            how = "is"
        elif out in src.parents:
            how = "contains"
        elif src in out.parents:
            how = "lies inside"
        else:
            continue
        shown = f"{output} (resolves to {out})" if Path(os.path.abspath(output)) != out else str(output)
        raise UnsafeOutputError(
            f"output {shown} {how} the input {given}; writing there would destroy or mix with what is being read. "
            "Choose an output directory outside the inputs.",
            details={"output": str(out), "input": str(src)},
        )


def _memdock_named(name: str) -> bool:
    """A name a bundle writer gives its files: part files, the matrix, the manifest and its temp file."""
    return name == MANIFEST_NAME or bool(PART_FILE.fullmatch(name) or _TEMP.fullmatch(name))


def not_a_bundle(path: Path) -> str | None:
    """Why the directory at PATH may not be cleared, or None when it is empty or a memdock bundle."""
    listed: set[str] = set()
    manifest = path / MANIFEST_NAME
    complete = manifest.is_file() and not manifest.is_symlink()
    if complete:
        try:
            data = orjson.loads(manifest.read_bytes())
            listed = {f["path"] for f in data["files"]} | {MANIFEST_NAME}
            if not isinstance(data.get("kind"), str) or "memory_payload_version" not in data:
                raise KeyError("kind")
        except (orjson.JSONDecodeError, KeyError, TypeError, OSError):
            return f"{MANIFEST_NAME} there is not a memdock manifest"
    for entry in sorted(os.scandir(path), key=lambda e: e.name):
        if entry.is_symlink() or not entry.is_file(follow_symlinks=False):
            return f"{entry.name!r} is not a regular file"
        if not _memdock_named(entry.name):
            if entry.name in listed:
                return f"{entry.name!r} is listed in its {MANIFEST_NAME} but is not a file memdock writes"
            if complete:
                return f"{entry.name!r} is not listed in its {MANIFEST_NAME}"
            return f"it has no {MANIFEST_NAME} and {entry.name!r} is not a file memdock writes"
        if complete and entry.name not in listed and not _TEMP.fullmatch(entry.name):
            return f"{entry.name!r} is not listed in its {MANIFEST_NAME}"
    return None


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class OutputDir:
    """The directory a writer fills (`dir`), and how it becomes the bundle at `path` (`commit`) or vanishes (`abort`).

    An existing empty directory is filled in place (it may be a mount point or have modes the user chose);
    otherwise the writer fills a staging directory beside the output, and `commit` moves it into place.
    """

    def __init__(
        self, path: str | os.PathLike[str], inputs: Sequence[str | os.PathLike[str]] = (), *, overwrite: bool = False
    ):
        self.given = Path(path)
        check_not_input(self.given, inputs)
        self.path = _real(self.given)
        self.in_place = False
        if self.path.exists() or self.path.is_symlink():
            if not self.path.is_dir():
                raise InvalidInputError(f"{self.given} exists and is not a directory")
            if not any(self.path.iterdir()):
                self.in_place = True
            elif not overwrite:
                raise OutputNotEmptyError(self.given)
            else:
                self._check_clearable()
        if self.in_place:
            self.dir = self.path
            return
        self._remove_stale_staging()
        self.dir = self._make_staging()

    def _check_clearable(self) -> None:
        why = not_a_bundle(self.path)
        if why:
            raise UnsafeOutputError(
                f"refusing to replace {self.given}: it is not a memdock bundle ({why}); nothing there was changed. "
                "Write to a new or empty directory.",
                details={"output": str(self.path)},
            )

    def _sibling(self, role: str) -> Path:
        return self.path.parent / f".{self.path.name}.{role}-{os.getpid()}-{secrets.token_hex(4)}"

    def _make_staging(self) -> Path:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            staging = self._sibling("partial")
            staging.mkdir()
        except OSError as exc:
            raise InvalidInputError(f"cannot write the bundle {self.given}: {exc.strerror} ({exc.filename})") from None
        return staging

    def _remove_stale_staging(self) -> None:
        """Staging and swap directories of this output whose writer died, when they hold only our files."""
        pattern = re.compile(rf"^\.{re.escape(self.path.name)}\.(?:partial|old)-(\d+)-[0-9a-f]{{8}}$")
        try:
            siblings = list(os.scandir(self.path.parent))
        except OSError:
            return
        for entry in siblings:
            m = pattern.match(entry.name)
            if not m or _pid_alive(int(m.group(1))) or entry.is_symlink() or not entry.is_dir(follow_symlinks=False):
                continue
            if not_a_bundle(Path(entry.path)) is None:
                shutil.rmtree(entry.path, ignore_errors=True)

    def commit(self) -> None:
        """Put the finished bundle (manifest already written in `dir`) at `path`, replacing the old one."""
        if self.in_place:
            return
        old = None
        if self.path.exists():
            if any(self.path.iterdir()):
                self._check_clearable()
            old = self._sibling("old")
            os.rename(self.path, old)
        try:
            os.rename(self.dir, self.path)
        except OSError:
            if old is not None:
                os.rename(old, self.path)
            raise
        fsync_dir(self.path.parent)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)

    def abort(self, written: Sequence[Path]) -> None:
        """Remove what the writer wrote: the staging directory, or the files WRITTEN in place."""
        if self.in_place:
            for p in written:
                p.unlink(missing_ok=True)
            return
        shutil.rmtree(self.dir, ignore_errors=True)
