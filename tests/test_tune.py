"""`railrules tune`: constant values searched with Optuna over paired games."""
from __future__ import annotations

import shutil

import pytest

from railrules.interpreter.paths import rulesets_dir
from railrules.tools.lab import compare
from railrules.tools.lab.arms import Arms
from railrules.tools.cli import main

pytest.importorskip("optuna", reason="tune needs Optuna (pip install '.[tune]')")
from railrules.tools.lab.tune import describe, tune


@pytest.fixture()
def coin_race(tmp_path):
    root = tmp_path / "coin_race"
    shutil.copytree(rulesets_dir() / "templates" / "coin_race", root)
    return str(root)


def test_the_best_value_is_the_best_trial_and_its_figures_are_compares(coin_race):
    result = tune(coin_race, ["goal=6..20"], "decisions=9", 96, 12, lambda rs: 2, "greedy,random", 1)
    trials = result["trials"]
    assert len(trials) == 8 and result["games"] == 96 and not result["partial"]
    assert all(6 <= t["values"]["goal"] <= 20 and isinstance(t["values"]["goal"], int) for t in trials)
    best = result["best"]
    assert best["objective"] == min(t["objective"] for t in trials)
    # the same seeded games as compare plays: the figure and its interval are compare's
    with Arms(coin_race, [], [f"goal={best['values']['goal']}"]) as arms:
        again = compare.run_arms(arms[-1:], 12, 2, "greedy,random", 1)
    cell = again["metrics"]["decisions"][again["arms"][0]]
    assert best["figures"]["decisions"] == cell and best["objective"] == pytest.approx(abs(cell["mean"] - 9))
    # paired: a value tried twice scores the same
    seen: dict = {}
    for t in trials:
        assert seen.setdefault(t["values"]["goal"], t["objective"]) == t["objective"]
    assert f"best: goal={best['values']['goal']}" in describe(result)
    # seeded: the same command proposes the same values
    assert [t["values"] for t in tune(coin_race, ["goal=6..20"], "decisions=9", 96, 12, lambda rs: 2,
                                      "greedy,random", 1)["trials"]] == [t["values"] for t in trials]


def test_ctrl_c_keeps_the_best_so_far(coin_race):
    def stop_after_three(k, values, value):
        if k == 3:
            raise KeyboardInterrupt
    result = tune(coin_race, ["goal=6..20"], "balance", 1000, 6, lambda rs: 2, "random", 2, progress=stop_after_three)
    assert result["partial"] and len(result["trials"]) == 3
    assert result["best"]["objective"] == min(t["objective"] for t in result["trials"])


@pytest.mark.parametrize("args, said", [
    (["--param", "goal=1.5..3"], "error RR501 --set goal=1.5: goal is a whole number"),
    (["--param", "gaol=1..3"], "error RR501 --set: coin_race has no constant 'gaol'"),
    (["--param", "goal=5"], "write NAME=LO..HI"),
    (["--param", "goal=9..3"], "the lower first"),
    (["--param", "goal=3..9", "--objective", "decisons=4"], "error RR502"),
    (["--param", "goal=3..9", "--objective", "decisions=many"], "write balance, or METRIC=TARGET"),
    (["--param", "goal=3..9", "--plot", "x.exe"], "--plot x.exe: the picture is .svg or .png"),
])
def test_bad_input_is_refused_before_any_game(coin_race, args, said, monkeypatch, capsys):
    monkeypatch.setattr(compare, "play_game", lambda *a: pytest.fail("a game was played"))
    assert main(["tune", coin_race, *args, "--players", "2"]) == 2
    assert said in capsys.readouterr().err


def test_the_command_prints_the_best_and_draws_the_plot(coin_race, tmp_path, capsys):
    pytest.importorskip("matplotlib")
    svg = tmp_path / "tune.svg"
    assert main(["tune", coin_race, "--param", "goal=6..12", "--budget", "24", "--games", "6", "--players", "2",
                 "--plot", str(svg)]) == 0
    assert "best: goal=" in capsys.readouterr().out
    assert svg.read_text(encoding="utf-8").count("<svg") == 1
