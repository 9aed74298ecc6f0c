"""The verdict of `railrules compare` in plain words: the changes that matter first, in the
game's words, ranked by size, with play volume folded and turn-order balance as an equivalence
test."""
from __future__ import annotations

import json
import random
import shutil

import pytest

from railrules.interpreter.paths import rulesets_dir
from railrules.tools.cli import main
from railrules.tools.lab import stats
from railrules.tools.lab.compare import position_name
from railrules.tools.lab.headline import MinEffectError, end_words, headline, parse_min_effect

scipy_stats = pytest.importorskip("scipy.stats")


@pytest.fixture()
def coin_race(tmp_path):
    root = tmp_path / "coin_race"
    shutil.copytree(rulesets_dir() / "templates" / "coin_race", root)
    return str(root)


def _row(kind: str, old: float, new: float, significant: bool = True, low=None, high=None) -> dict:
    change = {"mean": new - old, "low": low if low is not None else new - old - 0.01,
              "high": high if high is not None else new - old + 0.01, "significant": significant,
              "n": 100, "sd": 0.1, "differed": 50}
    return {"kind": kind, "base": {"mean": old}, "arm": {"mean": new, "change": change}}


def _result(metrics: dict, **more) -> dict:
    return {"arms": ["base", "arm"], "metrics": metrics, "players": 3, "compared": 100, "bots": "random",
            "settings": {"arm": ["ends_at", 6]}, "base_values": {"ends_at": 8}, **more}


def test_the_changes_that_matter_come_first_in_the_games_words_largest_first():
    result = _result({
        "decisions": _row("count", 250, 225),                       # 10 %: two thresholds
        "end: bank_broken": _row("share", 0.18, 0.87),              # 69 points: about 14
        "metric houses_left": _row("count", 10, 10.2),              # 2 %: too small to matter
        "shared win": _row("share", 0.05, 0.2, significant=False),  # no verdict: not told
        "action bid": _row("count", 40, 30), "rule sell_share": _row("count", 16, 15.5),
        "rule pay": _row("count", 30, 33)})
    lines = headline(result)
    assert lines[0] == "arm against the base (base: ends_at=8), 100 paired games, bots random:"
    assert lines[1].startswith("  end reason bank_broken: 87 % of games (was 18 %)")
    assert lines[2].startswith("  play volume: 2 action and rule counts changed (1 fewer, 1 more; "
                               "largest: action bid 25 % fewer")
    assert lines[3].startswith("  games 10 % shorter (250 -> 225 decisions)")
    assert not any("shared" in line or "houses" in line for line in lines)
    assert lines[-1].startswith("  and 2 significant changes smaller than --min-effect")
    # asked for, the action counts are lines of their own; a larger threshold leaves the end alone
    unfolded = headline(result, parse_min_effect(["share=70"]), asked=["action"])
    assert any(line.startswith("  action bid 25 % fewer (40 -> 30)") for line in unfolded)
    assert not any("bank_broken" in line for line in unfolded)
    # an end condition with words of its own is told in them
    said = headline({**result, "ends": {"bank_broken": "the bank ran out at …"}})
    assert said[1].startswith('  end "the bank ran out at …" (bank_broken): 87 % of games (was 18 %)')


def test_an_end_condition_is_said_in_its_own_words_what_it_reads_elided(coin_race):
    from pathlib import Path

    from railrules.interpreter import load_ruleset
    rules = Path(coin_race) / "rules" / "game.rules"
    rules.write_text(rules.read_text() + '\nend_condition never as "nobody took {goal} at {bank.cash} left": false\n'
                     'end_condition unsaid: false\n')
    assert end_words([load_ruleset(coin_race)]) == {"never": "nobody took … at … left"}


def test_primary_metrics_are_told_first_and_the_others_as_exploratory():
    result = _result({"decisions": _row("count", 250, 240, significant=False),
                      "end: bank_broken": _row("share", 0.18, 0.87)}, primary=["decisions"])
    lines = headline(result)
    assert lines[1].startswith("  primary: games 4 % shorter") and lines[1].endswith("-- no verdict")
    assert lines[2].startswith("  exploratory: end reason bank_broken")


def _positions(rng, n: int, shift: float) -> dict:
    """Per-position win rows of three players from simulated paired games (a change of ``shift``
    to the first player's rate)."""
    rows, diffs = {}, []
    for k in range(3):
        d = [rng.choice([-1.0, 0.0, 0.0, 0.0, 1.0]) + (shift if k == 0 else 0.0) for _ in range(n)]
        change = stats.paired_test(d, [0.0] * n)
        change["significant"] = False
        rows[position_name(k)] = {"kind": "share", "base": {"mean": 1 / 3}, "arm": {"mean": 1 / 3, "change": change}}
        diffs.append(d)
    return {"rows": rows, "diffs": diffs}


@pytest.mark.parametrize("n, shift", [(2000, 0.0), (200, 0.0), (2000, 0.08), (800, 0.02)])
def test_turn_order_balance_is_scipys_two_one_sided_tests(n, shift):
    """Equivalence within ±5 points is said when, for every position, both one-sided t-tests of
    the paired change against ∓5 points reject at 5 % (an intersection-union test)."""
    made = _positions(random.Random(n + int(100 * shift)), n, shift)
    lines = headline(_result(made["rows"]))
    said = next(line for line in lines if "turn-order balance" in line)
    equivalent = all(scipy_stats.ttest_1samp(d, -0.05, alternative="greater").pvalue < 0.05
                     and scipy_stats.ttest_1samp(d, 0.05, alternative="less").pvalue < 0.05 for d in made["diffs"])
    assert ("no position's win rate changed by more than ±5 points" in said) == equivalent
    assert ("not shown unchanged" in said) == (not equivalent)


@pytest.mark.parametrize("item", ["share", "share=-1", "count=lots", "nosuch=3"])
def test_a_wrong_min_effect_is_refused(item):
    with pytest.raises(MinEffectError):
        parse_min_effect([item], known={"decisions"})
    assert parse_min_effect(["share=2,decisions=1"], known={"decisions"}) == {"share": 2.0, "count": 5.0, "decisions": 1.0}


def test_the_command_leads_with_the_headline(coin_race, tmp_path, capsys):
    argv = ["compare", coin_race, "--set", "goal=20", "--games", "12", "--players", "2", "--bots", "greedy,random"]
    assert main(argv + ["--html", str(tmp_path / "r.html")]) == 0
    out = capsys.readouterr().out
    assert out.startswith("goal=20 against the base (base: goal=10), 12 paired games, bots greedy,random:\n"
                          "  games ")
    assert out.index("% longer") < out.index("coin_race: 12 paired games")   # before the table
    assert '<ul id="headline"><li><strong>goal=20 against the base' in (tmp_path / "r.html").read_text()
    assert main(argv + ["--json"]) == 0
    assert json.loads(capsys.readouterr().out)["headline"][0].startswith("goal=20 against the base")
    assert main(argv + ["--min-effect", "count=1000,share=100"]) == 0
    assert "  no change that matters (significant and at least --min-effect)" in capsys.readouterr().out
    assert main(argv + ["--min-effect", "decision=3"]) == 2
    assert "--min-effect 'decision=3': no metric 'decision'" in capsys.readouterr().err
    # a primary metric keeps its own row even where it equals another (each game takes one coin pile)
    assert main(argv + ["--primary", "action take", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["primary"] == ["action take"]
    assert result["metrics"]["action take"]["goal=20"]["change"]["family"] == "primary"
    assert result["metrics"]["decisions"]["goal=20"]["change"]["family"] == "exploratory"
    assert result["headline"][1].startswith("  primary: action take ")
    assert main(argv + ["--primary", "decision"]) == 2
    assert "did you mean 'decisions'?" in capsys.readouterr().err
