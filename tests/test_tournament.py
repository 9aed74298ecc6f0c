"""`railrules tournament`: the schedule (every bot meets every other, in every seat, on
the same deals), Bradley-Terry ratings (checked against scipy's optimiser) with bootstrap intervals
over deals, win shares and head-to-head records with Wilson intervals clustered by deal (checked
against scipy and against the bootstrap), order independence, --jobs, Ctrl-C and the page."""
from __future__ import annotations

import json
import random
import sys
from collections import Counter

import pytest

from railrules.interpreter import load_ruleset
from railrules.interpreter.paths import rulesets_dir
from railrules.tools.cli import main
from railrules.tools.lab import tournament as tournament_module
from railrules.tools.lab.stats import wilson
from railrules.tools.lab.tournament import bradley_terry, clustered_wilson, rate, schedule, tournament

COIN_RACE = str(rulesets_dir() / "templates" / "coin_race")
BOTS = ["random", "options", "mcts:iterations=20", "railrules.tools.agents.example_bot:ThriftyBot"]

@pytest.mark.parametrize("k, n", [(0, 1), (1, 1), (3, 10), (50, 100), (7, 93), (0, 40), (40, 40), (123, 250)])
def test_the_wilson_interval_is_scipys(k, n):
    scipy_stats = pytest.importorskip("scipy.stats")
    ci = scipy_stats.binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
    assert wilson(k, n) == pytest.approx((ci.low, ci.high), abs=1e-9)


@pytest.mark.parametrize("bots, players", [(["a", "b", "c", "d"], 2), (["a", "b", "c", "d", "e"], 3), (["a", "b"], 2)])
def test_every_bot_meets_every_other_in_every_seat_on_the_same_deals(bots, players):
    tables, tasks = schedule(bots, players, games=3, seed=10)
    pairs = Counter(frozenset(p) for t in tables for p in _pairs(t))
    assert set(pairs) == {frozenset(p) for p in _pairs(bots)}          # every pair meets
    for t, table in enumerate(tables):
        mine = [task for task in tasks if task[0] == t]
        for seed in (10, 11, 12):
            seatings = [table[r:] + table[:r] for (_, s, r) in mine if s == seed]
            # on each deal, every bot of the table sits in every seat once
            assert sorted(tuple(sorted(s[k] for s in seatings)) for k in range(players)) == \
                [tuple(sorted(table))] * players


def _pairs(xs):
    return [(a, b) for i, a in enumerate(xs) for b in xs[i + 1:]]


def test_the_figures_add_up_and_the_stronger_bot_rates_higher():
    result = tournament(load_ruleset(COIN_RACE), BOTS, players=2, games=6)
    assert result["played"] == result["planned"] == 6 * 2 * 6 and not result["partial"] and result["deals"] == 6
    h2h = result["head_to_head"]
    for a in BOTS:
        assert result["ratings"][a]["games"] == 3 * 6 * 2          # three opponents, 6 deals, 2 seats
        for b in BOTS:
            if a != b:
                mine, theirs = h2h[a][b], h2h[b][a]
                assert mine["wins"] + mine["losses"] + mine["ties"] == 12
                assert (mine["wins"], mine["ties"]) == (theirs["losses"], theirs["ties"])
                assert mine["low"] <= mine["rate"] <= mine["high"]
    order = list(result["ratings"])
    assert order[0] == "mcts:iterations=20"       # tree search beats the random bots at the coin race
    ratings = [r["rating"] for r in result["ratings"].values()]
    assert ratings == sorted(ratings, reverse=True) and sum(ratings) == pytest.approx(0, abs=1e-6)
    best = result["ratings"][order[0]]
    assert best["low"] < best["rating"] < best["high"] and best["win_low"] < best["win_share"] <= best["win_high"]


def test_the_bradley_terry_fit_is_the_maximum_of_its_likelihood_by_scipy():
    """The Newton fit against scipy's optimiser on the same penalised likelihood: a tie is half a win
    each, every two bots one virtual drawn pairing."""
    np = pytest.importorskip("numpy")
    optimize = pytest.importorskip("scipy.optimize")
    rng = random.Random(5)
    bots = ["a", "b", "c", "d"]
    pairs: dict = {}
    for i, x in enumerate(bots):
        for y in bots[i + 1:]:
            w, lost, tied = rng.randint(0, 20), rng.randint(0, 20), rng.randint(0, 3)
            pairs[x, y], pairs[y, x] = [w, lost, tied], [lost, w, tied]
    pairs["a", "d"], pairs["d", "a"] = [9, 0, 0], [0, 9, 0]   # a sweep stays finite
    wins = {k: v[0] + v[2] / 2 + 0.5 for k, v in pairs.items()}

    def minus_log_likelihood(theta):
        t = dict(zip(bots, [0.0, *theta]))
        return -sum(w * (t[x] - np.logaddexp(t[x], t[y])) for (x, y), w in wins.items())
    theta = optimize.minimize(minus_log_likelihood, np.zeros(3), method="BFGS", options={"gtol": 1e-10}).x
    logs = np.array([0.0, *theta])
    expected = 400 / np.log(10) * (logs - logs.mean())
    found = bradley_terry(bots, pairs)
    assert [found[b] for b in bots] == pytest.approx(list(expected), abs=1e-3)


def test_the_clustered_interval_is_wilsons_at_the_effective_number_of_deals():
    """The design effect's variance is the bootstrap-over-deals variance of the share (checked by
    resampling); with independent trials the interval is about Wilson's, and with deals whose
    trials all go one way it is Wilson's over the deals."""
    rng = random.Random(2)
    successes, trials = [], []
    for _ in range(60):   # 6 trials a deal, all sharing the deal's chance
        chance = rng.choice([0.2, 0.8])
        successes.append(sum(rng.random() < chance for _ in range(6)))
        trials.append(6)
    p, low, high = clustered_wilson(successes, trials)
    n = sum(trials)
    boot = []
    for _ in range(4000):
        pick = [rng.randrange(60) for _ in range(60)]
        boot.append(sum(successes[i] for i in pick) / sum(trials[i] for i in pick))
    mean_boot = sum(boot) / len(boot)
    bootstrap_variance = sum((b - mean_boot) ** 2 for b in boot) / (len(boot) - 1)
    deff = bootstrap_variance / (p * (1 - p) / n)
    assert deff > 2   # the deals matter: the naive interval would be too narrow
    assert (low, high) == pytest.approx(wilson(p * n / deff, n / deff), abs=0.01)
    assert high - low > 1.3 * (wilson(sum(successes), n)[1] - wilson(sum(successes), n)[0])
    independent = [sum(rng.random() < 0.5 for _ in range(6)) for _ in range(60)]
    assert clustered_wilson(independent, trials)[1:] == pytest.approx(wilson(sum(independent), n), abs=0.02)
    assert clustered_wilson([6] * 10, [6] * 10) == (1.0, *wilson(10, 10))


def test_the_figures_do_not_depend_on_the_order_of_the_schedule(monkeypatch):
    ruleset = load_ruleset(COIN_RACE)
    first = tournament(ruleset, BOTS[:3], players=2, games=3, seed=4)
    real = schedule

    def shuffled(*args):
        tables, tasks = real(*args)
        random.Random(1).shuffle(tasks)
        return tables, tasks
    monkeypatch.setattr(tournament_module, "schedule", shuffled)
    again = tournament(ruleset, BOTS[:3], players=2, games=3, seed=4)
    assert (again["ratings"], again["head_to_head"]) == (first["ratings"], first["head_to_head"])
    # and the fit itself, given the games in another order
    records = [tournament_module.play((ruleset, 2, first["tables"]), t) for t in real(BOTS[:3], 2, 3, 4)[1]]
    mixed = records[::-1]
    one, other = rate(BOTS[:3], records, 4), rate(BOTS[:3], mixed, 4)
    assert one["ratings"] == other["ratings"] and one["head_to_head"] == other["head_to_head"]


def test_jobs_give_the_same_figures(capsys):
    out = []
    for jobs in ("1", "2"):
        assert main(["tournament", COIN_RACE, "--bots", ",".join(BOTS[:3]), "--games", "4", "--jobs", jobs,
                     "--json"]) == 0
        r = json.loads(capsys.readouterr().out)
        out.append((r["ratings"], r["head_to_head"]))
    assert out[0] == out[1]


STOPPER = '''
class Stopper:
    """Plays the first legal action; its 30th choice is Ctrl-C."""
    calls = 0

    def __init__(self, seed):
        pass

    def choose(self, view, legal):
        Stopper.calls += 1
        if Stopper.calls == 30:
            raise KeyboardInterrupt
        return legal[0]
'''


def test_ctrl_c_keeps_the_games_finished(tmp_path, monkeypatch, capsys):
    (tmp_path / "stopper.py").write_text(STOPPER, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        code = main(["tournament", COIN_RACE, "--bots", "random,stopper:Stopper", "--games", "20", "--json"])
    finally:
        sys.modules.pop("stopper", None)
    r = json.loads(capsys.readouterr().out)
    assert code == 130 and r["partial"] and 0 < r["played"] < r["planned"]
    assert sum(x["games"] for x in r["ratings"].values()) == 2 * r["played"]


def test_the_table_and_the_page(tmp_path, capsys):
    page = tmp_path / "t.html"
    assert main(["tournament", COIN_RACE, "--bots", ",".join(BOTS[:3]), "--games", "2",
                 "--html", str(page)]) == 0
    out = capsys.readouterr().out
    assert "95% interval" in out and "head to head" in out and "mcts:iterations=20" in out
    assert "rating: Bradley-Terry maximum-likelihood fit" in out and "bootstrap over the 2 deals" in out
    assert "clustered by deal" in out
    text = page.read_text(encoding="utf-8")
    assert "<svg" in text and "Ratings with 95 % intervals (bootstrap over deals)" in text and "head to head" in text
    assert main(["tournament", COIN_RACE, "--bots", ",".join(BOTS[:3]), "--html", str(page)]) == 2


@pytest.mark.parametrize("argv, message", [
    (["--bots", "random,random"], "each bot once"),
    (["--bots", "random,options", "--players", "3"], "need at least 3 bots"),
    (["--bots", "random,options", "--players", "9"], "not 9"),
])
def test_usage_errors(argv, message, capsys):
    assert main(["tournament", COIN_RACE, *argv]) == 2
    assert message in capsys.readouterr().err
