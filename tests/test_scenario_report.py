"""`railrules test` as pytest is used: -k, --json, --junit, relative paths, "expected X, got
Y" with both values, and --record writing the expectations of a position for review."""
from __future__ import annotations

import json
import shutil
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest

from railrules.interpreter.paths import rulesets_dir
from railrules.tools.cli import main
from railrules.tools.author.scenario_report import matcher

CE = "chicago_express"


@pytest.fixture
def game(tmp_path, monkeypatch) -> Path:
    """A copy of a shipped ruleset in the working folder (paths are shown relative to it)."""
    root = tmp_path / "my_game"
    shutil.copytree(rulesets_dir() / CE, root)
    monkeypatch.chdir(tmp_path)
    return root


@pytest.mark.parametrize(("pattern", "text", "expected"), [
    ("treasury", "chicago_express build_company_treasury pays", True),
    ("TREASURY", "chicago_express build_company_treasury pays", True),
    ("not treasury", "chicago_express build_company_treasury pays", False),
    ("build and not dial", "x build_company_treasury", True),
    ("build and not dial", "x dial_on_red build", False),
    ("(dial or wabash) and red", "dial_on_red", True),
    ("(dial or wabash) and red", "wabash_open", False),
])
def test_k_is_pytests_expression(pattern, text, expected):
    assert matcher(pattern)(text) is expected


@pytest.mark.parametrize("bad", ["and", "a or", "(a", "a )", "not"])
def test_a_k_that_does_not_parse_is_a_usage_error(capsys, bad):
    assert main(["test", CE, "-k", bad]) == 2
    assert "-k" in capsys.readouterr().err


def test_k_json_and_relative_paths(capsys, game):
    assert main(["test", "my_game", "-k", "build_company_treasury or build_only_shareholder", "--json"]) == 0
    results = json.loads(capsys.readouterr().out)
    assert sorted(r["file"] for r in results) == ["my_game/scenarios/build_company_treasury.yaml",
                                                  "my_game/scenarios/build_only_shareholder.yaml"]
    assert all(r["passed"] and r["steps"] > 0 and r["failures"] == [] for r in results)


def test_a_failure_says_expected_and_got_with_both_values_in_text_and_junit(capsys, game, tmp_path):
    scenario = game / "scenarios" / "build_company_treasury.yaml"
    scenario.write_text(scenario.read_text().replace('NYC.cash == 4"', 'NYC.cash == 5"'))
    junit = tmp_path / "out.xml"
    assert main(["test", "my_game", "-k", "build_company_treasury or build_only_shareholder", "--junit", str(junit)]) == 1
    out = capsys.readouterr().out
    assert "FAIL  my_game/scenarios/build_company_treasury.yaml" in out
    assert "expected p2.shares[NYC] == 1 and NYC.cash == 5, got NYC.cash = 4 (expected 5)" in out
    assert "1 passed, 1 failed" in out
    suite = ET.parse(junit).getroot().find("testsuite")
    assert (suite.get("tests"), suite.get("failures")) == ("2", "1")
    cases = {c.get("name"): c for c in suite.findall("testcase")}
    failure = cases["build_company_treasury"].find("failure")
    assert "NYC.cash = 4 (expected 5)" in failure.get("message")
    assert cases["build_only_shareholder"].find("failure") is None


def test_record_writes_the_position_reached_and_the_scenario_then_passes(capsys, game):
    scenario = game / "scenarios" / "build_only_shareholder.yaml"
    before = scenario.read_text()
    assert main(["test", str(scenario), "--record"]) == 0
    out = capsys.readouterr().out
    after = scenario.read_text()
    assert after.startswith(before.rstrip("\n"))
    added = [x.strip() for x in after[len(before.rstrip("\n")):].strip().splitlines()]
    assert added[0].startswith("# recorded by `railrules test --record`")
    assert any('- expect: "p2.cash ==' in line for line in added) and added[-1].startswith("- turn: ")
    assert "review them" in out
    assert main(["test", str(scenario)]) == 0          # what was recorded holds
    capsys.readouterr()
    # and it can fail: change one recorded value
    line = next(x for x in added if "p2.cash ==" in x)
    cash = int(line.split("p2.cash == ")[1].split()[0].rstrip('"'))
    scenario.write_text(after.replace(f"p2.cash == {cash}", f"p2.cash == {cash + 1}"))
    assert main(["test", str(scenario)]) == 1
    assert f"p2.cash = {cash} (expected {cash + 1})" in capsys.readouterr().out


def test_junit_is_checked_before_any_scenario_and_never_clobbers(capsys, game, tmp_path, monkeypatch):
    """--junit overwrote a file without --force, wrote through a symlink, and for a missing
    folder ran every scenario and then failed with an internal FileNotFoundError."""
    from railrules.tools.author import scenario_report
    there = tmp_path / "there.xml"
    there.write_text("keep me")
    link = tmp_path / "link.xml"
    link.symlink_to(there)
    ran, run_scenario = [], scenario_report.run_scenario
    monkeypatch.setattr(scenario_report, "run_scenario", lambda *a: ran.append(a) or pytest.fail("ran"))
    for path, words in [(there, "already exists"), (link, "symbolic link"),
                        (tmp_path / "missing" / "out.xml", "does not exist")]:
        assert main(["test", "my_game", "--junit", str(path)]) == 2
        err = capsys.readouterr().err
        assert words in err and "internal error" not in err
    assert not ran and there.read_text() == "keep me"
    monkeypatch.setattr(scenario_report, "run_scenario", run_scenario)
    assert main(["test", "my_game", "-k", "build_only_shareholder", "--junit", str(there), "--force"]) in (0, 1)
    assert "<testsuite" in there.read_text()
