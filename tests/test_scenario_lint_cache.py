"""Lint keeps what it found in a scenario's steps in the user cache: a warm lint says the same
as a cold one without checking them again, and a change to the scenario or to the rules is seen."""
from __future__ import annotations

import pytest
from railrules.tools.author import lint, scenario_lint
from test_language import WAITING_RULES, write_ruleset

SCENARIO = """\
description: a step whose expectation names a constant the rules may define
players: 2
steps:
  - expect: "target == 1"
"""


def _codes(folder) -> list:
    return [(d.code, d.pos.line, d.pos.column) for d in lint.lint_paths([str(folder)])]


@pytest.fixture
def folder(tmp_path, monkeypatch):
    """A ruleset with one scenario, and a user cache of its own."""
    monkeypatch.setenv("RAILRULES_CACHE_DIR", str(tmp_path / "cache"))
    folder = write_ruleset(tmp_path / "game", WAITING_RULES)
    (folder / "scenarios").mkdir()
    (folder / "scenarios" / "first.yaml").write_text(SCENARIO, encoding="utf-8")
    return folder


def test_a_warm_lint_reads_the_steps_checked_and_sees_what_changed(folder, tmp_path, monkeypatch):
    cold = _codes(folder)
    assert ("RR102", 4, 14) in cold                    # target: no such name
    assert list((tmp_path / "cache").glob("scenario-lint-*"))

    def unchecked(self, steps):
        raise AssertionError("the steps were checked again")
    with monkeypatch.context() as m:
        m.setattr(scenario_lint._Steps, "check", unchecked)
        assert _codes(folder) == cold                 # warm: the same, read back

    (folder / "main.rules").write_text(WAITING_RULES + "\nconst target = 1\n", encoding="utf-8")
    assert not any(code == "RR102" for code, _, _ in _codes(folder))   # the rules changed
    (folder / "scenarios" / "first.yaml").write_text(SCENARIO.replace("target", "tar"), encoding="utf-8")
    assert ("RR102", 4, 14) in _codes(folder)          # the scenario changed


def test_a_damaged_entry_is_checked_again(folder, tmp_path):
    cold = _codes(folder)
    for entry in (tmp_path / "cache").glob("scenario-lint-*"):
        entry.write_bytes(entry.read_bytes()[:-5] + b"xxxxx")
    assert _codes(folder) == cold
