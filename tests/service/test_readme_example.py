"""The Python API example in README.md, run as written."""

import re
import subprocess
import sys
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"


def example() -> str:
    text = README.read_text()
    marker = text.index("<!-- api-example")
    return re.search(r"```python\n(.*?)```", text[marker:], re.S).group(1)


def test_the_readme_api_example_runs(tmp_path):
    code = example()
    assert "memory.remember(" in code and "memory.recall(" in code
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines and "The staging database moves to eu-west-2 on Friday." in lines[0]
    assert (tmp_path / "my-notes" / "data" / "memory.sqlite").exists()
