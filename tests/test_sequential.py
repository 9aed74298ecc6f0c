"""`railrules compare --until-verdict`: blocks of games, an O'Brien–Fleming-type
alpha-spending boundary, and the error rate it keeps on a null."""
from __future__ import annotations

import random
import shutil
from types import SimpleNamespace

import pytest

from railrules.interpreter.paths import rulesets_dir
from railrules.tools.lab import sequential, stats
from railrules.tools.lab.arms import Arms
from railrules.tools.cli import main

norm = pytest.importorskip("scipy.stats").norm


def test_the_spending_function_is_lan_demets_obrien_fleming():
    """Each side spends its 2.5 % by 2 - 2 Φ(z_{1-0.0125} / sqrt(t)) (as the published tables do)."""
    z = norm.ppf(1 - 0.05 / 4)
    for t in (0.1, 0.25, 0.5, 0.8, 1.0):
        assert sequential.spent(t) == pytest.approx(2 * (2 - 2 * norm.cdf(z / t ** 0.5)), abs=1e-12)
    assert sequential.spent(1.0) == pytest.approx(0.05, abs=1e-12)


# Two-sided symmetric Lan–DeMets O'Brien–Fleming-type boundaries, alpha 0.05 (0.025 a side),
# equally spaced looks, to four decimals, as the Lan–DeMets programs tabulate them (Reboussin,
# DeMets, Kim and Lan's ld98 / the R package ldbounds; gsDesign's sfLDOF). The next test checks
# the same boundaries by an independent integration (scipy).
PUBLISHED = {4: (4.3326, 2.9631, 2.3590, 2.0141), 5: (4.8769, 3.3569, 2.6803, 2.2898, 2.0310)}


@pytest.mark.parametrize("k", sorted(PUBLISHED))
def test_the_boundaries_are_the_published_ones(k):
    found = sequential.boundaries(tuple((i + 1) / k for i in range(k)))
    assert found == pytest.approx(PUBLISHED[k], abs=2e-4)


@pytest.mark.parametrize("times", [(0.2, 0.4, 0.6, 0.8, 1.0), (3 / 7, 6 / 7, 1.0), (0.1, 0.15, 0.5, 1.0)])
def test_each_look_spends_what_the_function_says_by_scipys_multivariate_normal(times):
    """The crossing probabilities of the boundaries under no change, by an independent method
    (Genz's integration of the joint normal law, corr(Z_j, Z_k) = sqrt(t_j / t_k))."""
    np = pytest.importorskip("numpy")
    from scipy.stats import multivariate_normal
    c = sequential.boundaries(times)
    for k in range(len(times)):
        t = np.array(times[:k + 1])
        cov = np.sqrt(np.minimum.outer(t, t) / np.maximum.outer(t, t))
        b = np.array(c[:k + 1])
        inside = multivariate_normal(np.zeros(k + 1), cov, abseps=1e-9, releps=1e-9, maxpts=10 ** 6).cdf(b, lower_limit=-b)
        assert 1 - inside == pytest.approx(sequential.spent(times[k]), abs=2e-7)
    assert sequential.nominal(times, len(times) - 1) == pytest.approx(2 * norm.sf(c[-1]), rel=1e-12)


def test_a_run_of_many_looks_computes_only_the_looks_it_makes():
    """--max-games 1000000 in blocks of 200 is 5000 looks: the second look's level needs two
    boundaries, not 5000 (a signal then stops the run at once)."""
    times = tuple(n / 1_000_000 for n in sequential.looks_at(200, 1_000_000))
    assert len(times) == 5000
    assert sequential.nominal(times, 1) == 0.0   # so early, nothing can cross
    assert len(sequential._LOOKS[times, 0.05, 201]["c"]) == 2


def test_the_looks_test_at_their_boundary_not_at_the_increments():
    looks = sequential.levels(50, 400)
    assert [n for n, _ in looks] == [50, 100, 150, 200, 250, 300, 350, 400]
    assert all(a < b for (_, a), (_, b) in zip(looks, looks[1:]))   # little spent early
    times = [n / 400 for n, _ in looks]
    increments = [sequential.spent(t) - sequential.spent(s) for s, t in zip([0] + times, times)]
    assert looks[0][1] == pytest.approx(increments[0], rel=1e-9)   # the first look: the same
    assert looks[-1][1] > 2 * increments[-1] and 0.03 < looks[-1][1] < 0.05   # the last: far less strict


def test_stopping_at_the_first_verdict_keeps_the_error_rate_on_a_null():
    """400 simulated comparisons with no change (20 metrics, 8 looks of 25 games), stopped at the
    first look with a verdict of Holm's step-down on the boundaries: the share with any verdict is
    at most 5 % (plus two simulation standard errors), where testing every look at 5 % finds far
    more."""
    from functools import partial
    rng = random.Random(26)
    sizes = sequential.looks_at(25, 200)
    times = tuple(n / 200 for n in sizes)
    runs, false, naive = 400, 0, 0
    for _ in range(runs):
        diffs = [[rng.gauss(0, 1) for _ in range(200)] for _ in range(20)]
        zeros = [0.0] * 200
        found = naive_found = False
        for k, n in enumerate(sizes):
            ps = [stats.paired_test(d[:n], zeros[:n])["p"] for d in diffs]
            naive_found = naive_found or any(stats.holm(ps, 0.05)[1])
            if any(stats.holm(ps, 0.05, partial(sequential.nominal, times, k))[1]):
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
    # named primary, a metric is what it stops on, and the others are exploratory
    with Arms(coin_race, [], ["goal=11"]) as arms:
        chosen = sequential.run(arms, 10, 200, 2, "greedy,random", 1, primary=["decisions"])
    assert chosen["sequential"]["why"].startswith("every primary metric has a verdict after")
    assert chosen["metrics"]["decisions"]["goal=11"]["change"]["family"] == "primary"
    assert chosen["metrics"]["shared win"]["goal=11"]["change"]["family"] == "exploratory"
    assert found["metrics"]["decisions"]["goal=11"]["change"]["significant"]
    with Arms(coin_race, [], ["goal=10"]) as arms:   # the same rules: never a verdict
        none = sequential.run(arms, 10, 30, 2, "greedy,random", 1)
    assert none["compared"] == 30 and none["sequential"]["why"] == "no verdict by --max-games 30"
    assert main(["compare", coin_race, "--set", "goal=11", "--games", "10", "--until-verdict", "--max-games",
                 "200", "--metrics", "decisions", "--bots", "greedy,random", "--players", "2"]) == 0
    assert "until verdict (5 % spent over the looks" in capsys.readouterr().out
    assert main(["compare", coin_race, "--max-games", "20"]) == 2
    assert "--max-games goes with --until-verdict" in capsys.readouterr().err


def test_a_time_limit_is_the_whole_runs_not_each_blocks(coin_race, monkeypatch):
    """--until-verdict --time-limit T: each block gets what is left of T, and once T is spent no
    block starts (each block was given the whole T, so the run went on to --max-games)."""
    clock = [1000.0]
    monkeypatch.setattr(sequential, "time", SimpleNamespace(monotonic=lambda: clock[0]))
    given = []
    play = sequential.compare.play

    def block(arms, first, games, players, specs, seed, jobs, time_limit, *rest):
        given.append(time_limit)
        clock[0] += 10   # each block takes ten seconds of this clock
        return play(arms, first, games, players, specs, seed, jobs, None, *rest)
    monkeypatch.setattr(sequential.compare, "play", block)
    with Arms(coin_race, [], ["goal=10"]) as arms:   # the same rules: never a verdict
        found = sequential.run(arms, 10, 200, 2, "greedy,random", 1, time_limit=25)
    assert given == [25, 15, 5]
    assert found["compared"] == 30 and found["partial"]
    assert found["sequential"]["why"] == "stopped early (Ctrl-C or --time-limit)"
