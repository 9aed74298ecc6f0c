"""`railrules compare --until-verdict` (issue 26): blocks of games, an O'Brien–Fleming-type
alpha-spending boundary, and the error rate it keeps on a null."""
from __future__ import annotations

import random
import shutil

import pytest

from railrules.interpreter.paths import rulesets_dir
from railrules.tools.lab import sequential, stats
from railrules.tools.lab.arms import Arms
from railrules.tools.cli import main

norm = pytest.importorskip("scipy.stats").norm


def test_the_spending_function_is_lan_demets_obrien_fleming():
    z = norm.ppf(0.975)
    for t in (0.1, 0.25, 0.5, 0.8, 1.0):
        assert sequential.spent(t) == pytest.approx(2 - 2 * norm.cdf(z / t ** 0.5), abs=1e-12)
    looks = sequential.levels(50, 400)
    assert [n for n, _ in looks] == [50, 100, 150, 200, 250, 300, 350, 400]
    assert sum(level for _, level in looks) == pytest.approx(0.05)
    assert all(a < b for (_, a), (_, b) in zip(looks, looks[1:]))   # little spent early
    assert sequential.levels(30, 70) == [(30, pytest.approx(sequential.spent(30 / 70))),
                                         (60, pytest.approx(sequential.spent(60 / 70) - sequential.spent(30 / 70))),
                                         (70, pytest.approx(0.05 - sequential.spent(60 / 70)))]


def test_stopping_at_the_first_verdict_keeps_the_error_rate_on_a_null():
    """400 simulated comparisons with no change (20 metrics, 8 looks of 25 games), stopped at the
    first look with a corrected verdict: the share with any verdict is at most 5 % (plus two
    simulation standard errors), where testing every look at 5 % finds far more."""
    rng = random.Random(26)
    looks = sequential.levels(25, 200)
    runs, false, naive = 400, 0, 0
    for _ in range(runs):
        diffs = [[rng.gauss(0, 1) for _ in range(200)] for _ in range(20)]
        zeros = [0.0] * 200
        found = naive_found = False
        for n, level in looks:
            ps = [stats.paired_test(d[:n], zeros[:n])["p"] for d in diffs]
            naive_found = naive_found or any(stats.holm(ps, 0.05)[1])
            if any(stats.holm(ps, level)[1]):
                found = True
                break
        false += found
        naive += naive_found
    assert false / runs <= 0.05 + 2 * (0.05 * 0.95 / runs) ** 0.5
    assert naive / runs > false / runs + 0.03


@pytest.fixture()
def coin_race(tmp_path):
    root = tmp_path / "coin_race"
    shutil.copytree(rulesets_dir() / "templates" / "coin_race", root)
    return str(root)


def test_it_stops_at_a_verdict_or_at_the_most_games(coin_race, capsys):
    with Arms(coin_race, [], ["goal=11"]) as arms:
        found = sequential.run(arms, 10, 200, 2, "greedy,random", 1, only=["decisions"])
    seq = found["sequential"]
    assert found["compared"] == seq["looks"][-1]["games"] < 200
    assert seq["why"].startswith("every chosen metric has a verdict after")
    assert [x["level"] for x in seq["looks"]] == [level for _, level in sequential.levels(10, 200)[:len(seq["looks"])]]
    assert found["metrics"]["decisions"]["goal=11"]["change"]["significant"]
    with Arms(coin_race, [], ["goal=10"]) as arms:   # the same rules: never a verdict
        none = sequential.run(arms, 10, 30, 2, "greedy,random", 1)
    assert none["compared"] == 30 and none["sequential"]["why"] == "no verdict by --max-games 30"
    assert main(["compare", coin_race, "--set", "goal=11", "--games", "10", "--until-verdict", "--max-games",
                 "200", "--metrics", "decisions", "--bots", "greedy,random", "--players", "2"]) == 0
    assert "until verdict (5 % spent over the looks" in capsys.readouterr().out
    assert main(["compare", coin_race, "--max-games", "20"]) == 2
    assert "--max-games goes with --until-verdict" in capsys.readouterr().err
