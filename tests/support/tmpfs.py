"""A small tmpfs, in a mount namespace of its own (`unshare -m`), where a full disk is a real ENOSPC: the
full-disk tests of every backend share it."""

import subprocess
import sys
from pathlib import Path

FILL = """import os, sys
st = os.statvfs(sys.argv[1])
free = st.f_bavail * st.f_frsize - int(sys.argv[2])
with open(os.path.join(sys.argv[1], "filler"), "wb") as f:
    while free > 0:
        try:
            free -= f.write(b"x" * min(free, 1 << 20))
        except OSError:
            break
"""


def in_tmpfs(tmp_path: Path, size: str, script: str) -> subprocess.CompletedProcess:
    """Run SCRIPT (sh) with a tmpfs of SIZE mounted at $M and $FILL BYTES leaving BYTES free there."""
    mnt = tmp_path / "mnt"
    mnt.mkdir(exist_ok=True)
    (tmp_path / "fill.py").write_text(FILL)
    head = (
        f"set -u\nM={mnt}\nPY={sys.executable}\nfill() {{ $PY {tmp_path / 'fill.py'} $M $1; }}\n"
        f"mount -t tmpfs -o size={size} tmpfs $M || exit 99\n"
    )
    out = subprocess.run(
        ["unshare", "-m", "sh", "-c", head + script], capture_output=True, text=True, timeout=600, cwd=tmp_path
    )
    assert out.returncode != 99, out.stderr
    return out


def status(out: subprocess.CompletedProcess) -> dict[str, str]:
    return dict(line.split("=", 1) for line in out.stdout.split() if "=" in line)
