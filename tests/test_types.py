"""The type hints of interpreter/ hold: mypy, configured in pyproject.toml, finds no error."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_mypy_finds_no_error_in_the_interpreter(tmp_path):
    pytest.importorskip("mypy", reason="mypy is in the test extra: pip install \".[test]\"")
    # in a process of its own: mypy raises the recursion limit of the process it runs in
    done = subprocess.run([sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / "cache"),
                           "--no-error-summary"], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout == ""
