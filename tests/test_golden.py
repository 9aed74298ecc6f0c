"""Golden games: the engine still plays every recorded seeded game exactly as when it was recorded.

tests/golden/<ruleset>.json holds 50 random games (seeds 1..50) per ruleset and player count:
a running hash of every decision's legal actions, the decision count, the message log's hash,
the final state's hash (without the rules' content hash) and the result. Each test replays one ruleset's games for one
player count with the same chooser (tests.golden.record.play) and requires identical records.
See tests/golden/README.md for when re-recording is (and is not) the answer.
"""
import functools
import pytest

from golden.record import (CHECKPOINT_EVERY, GOLDEN_DIR, RECORD_COMMAND, SEEDS, differences,
                           golden_path, load_golden, play)   # tests/golden/record.py
from railrules.interpreter import load_ruleset
from railrules.interpreter.paths import shipped_rulesets

pytestmark = pytest.mark.slow  # replays 750 recorded games: `pytest -m "not slow"` skips it

SHOWN = 3  # games described in full when several differ

_ruleset = functools.cache(load_ruleset)  # loaded once: while collecting


def _cases():
    return [pytest.param(name, players, id=f"{name}-{players}p")
            for name in shipped_rulesets()
            for players in range(_ruleset(name).players_min, _ruleset(name).players_max + 1)]


@functools.cache
def golden(name: str) -> dict:
    """``(players, seed) -> record`` from the ruleset's golden file; fails the test if absent."""
    path = golden_path(name)
    if not path.exists():
        pytest.fail(f"{name} has no golden games: tests/golden/{path.name} is missing. "
                    f"Record them with `{RECORD_COMMAND} {name}` (from the repository "
                    "root) and commit the file.", pytrace=False)
    doc = load_golden(name)
    assert doc["ruleset"] == name and doc["checkpoint_every"] == CHECKPOINT_EVERY, \
        f"{path.name} is not {name}'s golden file in the current format: re-record it"
    return {"rules_hash": doc["rules_hash"],
            "games": {(g["players"], g["seed"]): g for g in doc["games"]}}


def _advice(name: str, recorded_hash: str) -> str:
    now = _ruleset(name).hash
    if now != recorded_hash:
        why = (f"The ruleset's content hash changed since recording ({recorded_hash} -> {now}). If its "
               f"rules were changed on purpose, re-record: `{RECORD_COMMAND} {name}`, and review "
               "the diff.")
    else:
        why = "The ruleset's content hash is the one recorded, so the engine changed behaviour."
    return (f"{why} Never re-record to make an engine change pass: the golden games exist to "
            "prove that the engine still plays every game exactly as before.")


@pytest.mark.parametrize("name,players", _cases())
def test_golden_games_replay_exactly(name, players):
    rules, recorded = _ruleset(name), golden(name)
    missing = [s for s in SEEDS if (players, s) not in recorded["games"]]
    assert not missing, (f"{golden_path(name).name} has no {players}-player games for seeds "
                         f"{missing[:5]}{'...' if len(missing) > 5 else ''}; the ruleset allows "
                         f"{rules.players_min}..{rules.players_max} players. If its rules were "
                         f"changed on purpose, re-record: `{RECORD_COMMAND} {name}`")
    failures = []
    for seed in SEEDS:
        try:
            problems = differences(recorded["games"][players, seed], play(rules, players, seed))
        except Exception as err:  # a crash is one more way to differ
            problems = [f"replay raised {err}"]
        if problems:
            failures.append((seed, problems))
    if failures:
        lines = [f"{name}, {players} players: {len(failures)} of {len(SEEDS)} golden games differ "
                 f"(seeds {', '.join(str(s) for s, _ in failures)})"]
        for seed, problems in failures[:SHOWN]:
            lines.append(f"seed {seed}:")
            lines += [f"    {p}" for p in problems]
        if len(failures) > SHOWN:
            lines.append(f"... and {len(failures) - SHOWN} more games")
        lines.append(_advice(name, recorded["rules_hash"]))
        pytest.fail("\n".join(lines), pytrace=False)


def test_every_golden_file_is_a_shipped_ruleset_with_its_player_counts():
    shipped = shipped_rulesets()
    stale = sorted(p.stem for p in GOLDEN_DIR.glob("*.json") if p.stem not in shipped)
    assert not stale, f"golden files for rulesets no longer shipped: {stale}; delete them"
    for name in shipped:
        if not golden_path(name).exists():
            continue  # the replay tests say so, with the command to record it
        rules = _ruleset(name)
        counts = {p for p, _ in golden(name)["games"]}
        allowed = set(range(rules.players_min, rules.players_max + 1))
        assert counts <= allowed, (
            f"{name}: golden games for {sorted(counts - allowed)} players, which the ruleset no "
            f"longer allows; if its rules were changed on purpose, re-record: `{RECORD_COMMAND} {name}`")


def _copy_with(tmp_path, edits: dict):
    """Chicago Express copied, with ``edits`` (file -> [(old, new)]) made in the copy, loaded."""
    import shutil
    from railrules.interpreter.data.ruleset import resolve_ruleset_path
    root = tmp_path / "chicago_express"
    shutil.copytree(resolve_ruleset_path("chicago_express"), root)
    for rel, changes in edits.items():
        text = (root / rel).read_text(encoding="utf-8")
        for old, new in changes:
            assert old in text
            text = text.replace(old, new)
        (root / rel).write_text(text, encoding="utf-8")
    return load_ruleset(str(root))


def _replayed(rules, seeds) -> list:
    recorded = golden("chicago_express")["games"]
    return [(seed, differences(recorded[3, seed], play(rules, 3, seed))) for seed in seeds]


def test_a_comment_and_a_renamed_constant_change_no_golden_game(tmp_path):
    """The golden record compares behaviour, not the rules' bytes: the copy's content hash differs,
    its games do not."""
    rules = _copy_with(tmp_path, {
        "rules/end.rules": [("end_condition detroit_at_8 ", "# a new comment\nend_condition detroit_at_8 "),
                            ("Detroit.industry >= detroit_end", "Detroit.industry >= detroit_final")],
        "components.yaml": [("detroit_end: 8", "detroit_final: 8")]})
    assert rules.hash != golden("chicago_express")["rules_hash"]
    assert _replayed(rules, range(1, 6)) == [(seed, []) for seed in range(1, 6)]


def test_a_changed_rule_changes_golden_games(tmp_path):
    rules = _copy_with(tmp_path, {"components.yaml": [("detroit_end: 8", "detroit_end: 5")]})
    changed = [seed for seed, problems in _replayed(rules, range(1, 11)) if problems]
    assert changed, "ending at Detroit 5 instead of 8 changed none of ten golden games"
