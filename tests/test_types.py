"""The type hints of interpreter/ and tools/ hold: mypy, configured in pyproject.toml, finds no error;
and ruff's pyflakes finds no unused import or name, nor a ``# noqa`` comment that silences nothing."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_mypy_finds_no_error_in_the_interpreter_and_the_tools(tmp_path):
    pytest.importorskip("mypy", reason="mypy is in the test extra: pip install \".[test]\"")
    # mypy names modules by their folders and tools/ imports `railrules.interpreter...`: the
    # checkout is seen through a link named railrules (the checkout's own folder may be any name)
    (tmp_path / "railrules").symlink_to(ROOT, target_is_directory=True)
    # in a process of its own: mypy raises the recursion limit of the process it runs in
    done = subprocess.run([sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"),
                           "--cache-dir", str(tmp_path / "cache"), "--no-error-summary",
                           "railrules/interpreter", "railrules/tools"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert [line for line in done.stdout.splitlines() if "[annotation-unchecked]" not in line] == []


def test_pyflakes_finds_nothing_and_no_noqa_is_unused():
    pytest.importorskip("ruff", reason="ruff is in the test extra: pip install \".[test]\"")
    done = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "--select", "RUF100,F",
                           "--output-format", "concise", "interpreter", "tools", "tests"],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
