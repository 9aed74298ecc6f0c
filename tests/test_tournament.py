"""`railrules tournament` (issue 30): the schedule (every bot meets every other, in every seat, on
the same deals), openskill ratings, head-to-head records with Wilson intervals (checked against
scipy), --jobs, Ctrl-C and the page."""
from __future__ import annotations

import json
import sys
from collections import Counter

import pytest

from railrules.interpreter import load_ruleset
from railrules.interpreter.paths import rulesets_dir
from railrules.tools.cli import main
from railrules.tools.lab.stats import wilson
from railrules.tools.lab.tournament import schedule, tournament

COIN_RACE = str(rulesets_dir() / "templates" / "coin_race")
BOTS = ["random", "options", "mcts:iterations=20", "railrules.tools.agents.example_bot:ThriftyBot"]

pytest.importorskip("openskill", reason='the rating extra is not installed: pip install ".[rating]"')


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
    assert result["played"] == result["planned"] == 6 * 2 * 6 and not result["partial"]
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
    mus = [r["mu"] for r in result["ratings"].values()]
    assert mus == sorted(mus, reverse=True)
    best = result["ratings"][order[0]]
    assert best["low"] < best["mu"] < best["high"]


def test_the_ratings_are_openskills_over_the_games_in_schedule_order():
    from openskill.models import PlackettLuce

    from railrules.tools.lab.tournament import play
    ruleset = load_ruleset(COIN_RACE)
    tables, tasks = schedule(BOTS[:3], 3, 2, 4)
    model = PlackettLuce()
    rating = {b: model.rating() for b in BOTS[:3]}
    for task in tasks:
        r = play((ruleset, 3, tables), task)
        seats = list(r["seats"])
        # ranks by hand: winners first, then by score; ties share a rank
        ranks = [1 + sum((q in r["winners"], r["scores"][q]) > (p in r["winners"], r["scores"][p])
                         for q in seats) for p in seats]
        new = model.rate([[rating[r["seats"][p]]] for p in seats], ranks=ranks)
        for p, [after] in zip(seats, new):
            rating[r["seats"][p]] = after
    result = tournament(ruleset, BOTS[:3], players=3, games=2, seed=4)
    for b in BOTS[:3]:
        assert result["ratings"][b]["mu"] == pytest.approx(rating[b].mu)
        assert result["ratings"][b]["sigma"] == pytest.approx(rating[b].sigma)


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
    text = page.read_text(encoding="utf-8")
    assert "<svg" in text and "Ratings with 95 % intervals" in text and "head to head" in text
    assert main(["tournament", COIN_RACE, "--bots", ",".join(BOTS[:3]), "--html", str(page)]) == 2


@pytest.mark.parametrize("argv, message", [
    (["--bots", "random,random"], "each bot once"),
    (["--bots", "random,options", "--players", "3"], "need at least 3 bots"),
    (["--bots", "random,options", "--players", "9"], "not 9"),
])
def test_usage_errors(argv, message, capsys):
    assert main(["tournament", COIN_RACE, *argv]) == 2
    assert message in capsys.readouterr().err


def test_without_openskill_it_says_how_to_get_it(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "openskill.models", None)
    assert main(["tournament", COIN_RACE, "--bots", "random,options", "--games", "1"]) == 2
    assert 'pip install "railrules[rating]"' in capsys.readouterr().err
