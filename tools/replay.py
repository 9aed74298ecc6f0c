"""`railrules replay`: replay a saved game log; fail loudly at the first divergence."""
from __future__ import annotations

import json
from pathlib import Path

from interpreter import load_ruleset
from interpreter.data.schema import validate
from interpreter.data.yaml_source import Positions
from interpreter.errors import BadSave, Diagnostic, IllegalAction, Pos, RailrulesError, Sink


def read_log(path: Path) -> dict:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise BadSave(Diagnostic("RR304", f"cannot read the log: {err}", Pos(str(path), 1, 1))) from None
    sink = Sink()
    if not validate(data, "log", Positions(str(path)), sink):
        raise BadSave([Diagnostic("RR304", f"not a railrules log: {d.message}", d.pos) for d in sink.errors])
    return data


def replay(log: dict, where: str = "<log>"):
    """Replay a log; return (game, list of notes). Raises on the first divergence."""
    ruleset = load_ruleset(log["ruleset"], log.get("variant"))
    notes = []
    if ruleset.hash != log["hash"]:
        notes.append(f"the log was recorded with ruleset hash {log['hash']}; the ruleset is now "
                     f"{ruleset.hash}: the rules (or the log) changed; replaying to find where they diverge")
    game = ruleset.new_game(log["players"], log["seed"])
    for i, raw in enumerate(log["actions"], 1):
        if game.is_over:
            raise BadSave(Diagnostic("RR305", f"action {i} ({raw}): the game was already over",
                                     Pos(where, 0, 0)))
        try:
            game.apply(raw)
        except IllegalAction as err:
            raise BadSave(Diagnostic("RR305", f"diverges at action {i} of {len(log['actions'])} "
                                     f"({raw}): {err.diagnostics[0].message}", Pos(where, 0, 0))) from None
        except RailrulesError:
            raise
    want = log.get("final_state_sha256")
    if want and want != game.digest():
        raise BadSave(Diagnostic("RR305", "every action replayed, but the final state differs from "
                                 "the recorded one", Pos(where, 0, 0)))
    return game, notes
