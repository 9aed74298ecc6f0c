"""Golden games: what the current engine does in 50 seeded random games per ruleset and
player count, recorded so that a rewritten engine can be shown to do exactly the same.

Run from the repository root::

    python -m tests.golden.record                   # every shipped ruleset
    python -m tests.golden.record german_railways   # only the named ones

It writes ``tests/golden/<ruleset>.json``; ``tests/test_golden.py`` replays the games with
:func:`play` (the one replay function both use) and compares with :func:`differences`.
Re-record only when a ruleset's rules were changed on purpose (see README.md here).

The chooser is written out here on purpose rather than taken from ``tools.bots.players``: the games
must stay the same games whatever happens to the bots.
"""
from __future__ import annotations

import hashlib
import json
import os
import random
import sys
import time
from pathlib import Path

GOLDEN_DIR = Path(__file__).resolve().parent
FORMAT = "railrules-golden-2"
SEEDS = range(1, 51)          # seeds 1..50 for every player count
CHECKPOINT_EVERY = 50         # a short running-hash checkpoint every this many decisions
RECORD_COMMAND = "python -m tests.golden.record"


def golden_path(name: str) -> Path:
    return GOLDEN_DIR / f"{name}.json"


def play(ruleset, players: int, seed: int) -> dict:
    """Play one game: ``random.Random(seed)`` picks uniformly among the legal actions until the
    game is over. Returns the game's golden record (plain JSON data).

    ``labels_sha256`` is a running sha256 over every decision's legal actions: their labels
    joined with newlines, then a NUL. ``checkpoints`` holds its first 12 hex digits after
    decisions 50, 100, ... so that a difference can be placed within 50 decisions.
    """
    game = ruleset.new_game(players=players, seed=seed)
    rng = random.Random(seed)
    running = hashlib.sha256()
    checkpoints = []
    steps = 0
    try:
        while not game.is_over:
            legal = game.legal_actions()
            running.update("\n".join(a.label for a in legal).encode())
            running.update(b"\x00")
            steps += 1
            if steps % CHECKPOINT_EVERY == 0:
                checkpoints.append(running.hexdigest()[:12])
            game.apply(rng.choice(legal))
        record = {
            "players": players,
            "seed": seed,
            "decisions": steps,
            "labels_sha256": running.hexdigest(),
            "checkpoints": checkpoints,
            "messages_sha256": hashlib.sha256("\n".join(game.messages).encode()).hexdigest(),
            "state_sha256": state_sha256(game),
            "result": game.result,
        }
        return json.loads(json.dumps(record))  # plain JSON, exactly as read back from a file
    except Exception as err:
        raise RuntimeError(f"{ruleset.name}, {players} players, seed {seed}: failed at decision "
                           f"{steps}: {type(err).__name__}: {err}") from err


def state_sha256(game) -> str:
    """sha256 of the final state's JSON without the rules' content hash: what the game came to,
    whatever the rules' comments, names or layout (``game.digest()`` counts the hash too)."""
    state = {k: v for k, v in game.state.items() if k != "hash"}
    return hashlib.sha256(json.dumps(state, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def differences(want: dict, got: dict) -> list[str]:
    """How a replayed game differs from its golden record, most telling first; [] if equal."""
    if want == got:
        return []
    out = []
    if want["labels_sha256"] != got["labels_sha256"]:
        a, b = want["checkpoints"], got["checkpoints"]
        agree = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
        since = agree * CHECKPOINT_EVERY + 1
        if agree < min(len(a), len(b)):
            where = (f"first diverge at checkpoint step {(agree + 1) * CHECKPOINT_EVERY} "
                     f"(somewhere in decisions {since}..{(agree + 1) * CHECKPOINT_EVERY})")
        else:
            where = f"first diverge after the last common checkpoint (at or after decision {since})"
        out.append(f"legal action labels {where}")
    for key, what in [("decisions", "decisions"), ("messages_sha256", "messages sha256"),
                      ("state_sha256", "final state sha256"), ("result", "result")]:
        if want.get(key) != got.get(key):
            out.append(f"{what}: recorded {want.get(key)}, now {got.get(key)}")
    rest = sorted(set(want) ^ set(got))
    if rest or not out:
        out.append(f"the records differ (fields {rest or 'unknown'}): recorded {want}, now {got}")
    return out


def load_golden(name: str) -> dict:
    """The golden file of a ruleset, read; FileNotFoundError if it was never recorded."""
    doc = json.loads(golden_path(name).read_text(encoding="utf-8"))
    if doc.get("format") != FORMAT:
        raise ValueError(f"{golden_path(name)} is not a {FORMAT} file")
    return doc


def dumps(doc: dict) -> str:
    """The golden file's text: valid JSON with the header on the first line, then one game a
    line, so that a re-recording's diff shows which games changed."""
    head = json.dumps({k: v for k, v in doc.items() if k != "games"}, separators=(",", ":"))
    games = ",\n".join(json.dumps(g, separators=(",", ":")) for g in doc["games"])
    return f'{head[:-1]},"games":[\n{games}\n]}}\n'


def record(name: str, log=sys.stderr) -> dict:
    """Play and write the golden games of one ruleset; returns the document written."""
    from railrules.interpreter import load_ruleset
    ruleset = load_ruleset(name)
    games = []
    started = time.perf_counter()
    for players in range(ruleset.players_min, ruleset.players_max + 1):
        t0, decisions = time.perf_counter(), 0
        for seed in SEEDS:
            games.append(play(ruleset, players, seed))
            decisions += games[-1]["decisions"]
            print(f"\r{name}: {players} players, seed {seed}/{SEEDS[-1]}", end="", file=log, flush=True)
        dt = time.perf_counter() - t0
        print(f"\r{name}: {players} players: {len(SEEDS)} games, {decisions} decisions, "
              f"{dt:.1f} s ({len(SEEDS) / dt:.1f} games/s)", file=log, flush=True)
    doc = {"format": FORMAT, "ruleset": name, "rules_hash": ruleset.hash,
           "seeds": [SEEDS[0], SEEDS[-1]], "checkpoint_every": CHECKPOINT_EVERY,
           "chooser": "random.Random(seed).choice(game.legal_actions())", "games": games}
    path = golden_path(name)
    try:
        old = {(g["players"], g["seed"]): g for g in load_golden(name)["games"]}
    except (OSError, ValueError):
        old = None
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(dumps(doc), encoding="utf-8")
    os.replace(tmp, path)
    if old is None:
        change = "new file"
    else:
        changed = sum(old.get((g["players"], g["seed"])) != g for g in games)
        change = f"{changed} of {len(games)} games differ from the previous recording"
    print(f"{name}: wrote {path.name} ({path.stat().st_size} bytes, {change}) "
          f"in {time.perf_counter() - started:.1f} s", file=log, flush=True)
    return doc


def main(argv: list[str] | None = None) -> int:
    from railrules.interpreter.paths import shipped_rulesets
    names = sys.argv[1:] if argv is None else argv
    shipped = shipped_rulesets()
    if any(a.startswith("-") for a in names):
        print(f"usage: {RECORD_COMMAND} [RULESET...]   (shipped: {' '.join(shipped)})", file=sys.stderr)
        return 2
    unknown = [n for n in names if n not in shipped]
    if unknown:
        print(f"not a shipped ruleset: {' '.join(unknown)} (shipped: {' '.join(shipped)})",
              file=sys.stderr)
        return 2
    for name in names or shipped:
        record(name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
