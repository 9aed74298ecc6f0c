"""The type hints of interpreter/ hold: mypy, configured in pyproject.toml, finds no error."""
from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_mypy_finds_no_error_in_the_interpreter(tmp_path, monkeypatch):
    api = pytest.importorskip("mypy.api", reason="mypy is in the test extra: pip install \".[test]\"")
    monkeypatch.chdir(ROOT)   # mypy reads [tool.mypy] from the pyproject.toml here
    out, err, status = api.run(["--cache-dir", str(tmp_path / "cache"), "--no-error-summary"])
    assert status == 0, out + err
    assert out == ""
