"""`railrules replay`: replay a saved game log; fail loudly at the first divergence."""
from __future__ import annotations

from pathlib import Path

from railrules.interpreter.data.schema import validate
from railrules.interpreter.data.yaml_source import Positions
from railrules.interpreter.errors import BadSave, Diagnostic, IllegalAction, Pos, Sink
from railrules.interpreter.runtime.strict_json import read_json, refuse
from railrules.interpreter.saves import describe_changes

from railrules.interpreter.saves import find_ruleset


CHANGED_HINT = "replay it with the rules it was made with"


def read_log(path: Path) -> dict:
    """A log file's data, checked: strict JSON (no NaN, no key twice, not too deep), the log
    schema, and every action a list starting with a name. Actions are checked here, not by the
    schema, which took 21 s over a million of them."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise BadSave(Diagnostic("RR304", f"cannot read the log: {err}", Pos(str(path), 1, 1))) from None
    data = read_json(text, str(path), "the log")
    sink = Sink()
    actions = data.get("actions") if isinstance(data, dict) else None
    head = {**data, "actions": []} if isinstance(actions, list) else data
    if not validate(head, "log", Positions(str(path)), sink):
        raise BadSave([Diagnostic("RR304", f"not a railrules log: {d.message}", d.pos) for d in sink.errors])
    assert isinstance(actions, list)  # the schema requires it
    for i, action in enumerate(actions):
        if not isinstance(action, list) or not action or not isinstance(action[0], str):
            raise refuse(f"actions[{i}]: {str(action)[:80]} is not an action ([NAME, value...])", str(path))
    return data


def replay(log: dict, where: str = "<log>", ruleset_path: str | None = None, force: bool = False,
           step: int | None = None, hint: str = CHANGED_HINT):
    """Replay a log; return (game, list of notes). Raises on the first divergence, and before
    replaying at all when the rules changed since the log was made (unless ``force``). With
    ``step``, only the first ``step`` actions are replayed (the game as it was then).

    The ruleset is ``ruleset_path``, else the folder the log names if it is still there, else
    the shipped ruleset of the log's name. ``hint``: what to do when the rules changed (a verb
    names its own options)."""
    if step is not None and not 0 <= step <= len(log["actions"]):
        raise BadSave(Diagnostic("RR304", f"step {step} is beyond the game: the log has "
                                 f"{len(log['actions'])} actions (steps 0 to {len(log['actions'])})",
                                 Pos(where, 0, 0)))
    notes: list = []
    game = None
    for game in steps(log, where, ruleset_path, force, notes, hint):
        pass      # the whole log first: a log that is not the game it says is refused at any step
    _check_final(log, game, where)   # (steps checks it too, unless the rules changed)
    if step is not None and step < len(log["actions"]):
        for i, game in enumerate(steps(log, where, ruleset_path, force=True)):
            if i == step:
                break
    return game, notes


def steps(log: dict, where: str = "<log>", ruleset_path: str | None = None, force: bool = False,
          notes: list | None = None, hint: str = CHANGED_HINT):
    """The logged game at its start and after each action (one Game object, moved on between
    yields), checked as :func:`replay` checks it; ``notes`` receives what replay would say."""
    ruleset = find_ruleset(log["ruleset"], log.get("path"), log.get("variant"), ruleset_path)
    if ruleset.name != log["ruleset"]:   # (rules given for it: another game's, not changed ones)
        what = f"the log is of {log['ruleset']}, not of {ruleset.name}"
        if not force:
            raise BadSave(Diagnostic("RR304", f"{what}: give its own rules, or none", Pos(where, 0, 0)))
        if notes is not None:
            notes.append(what + "; replaying anyway (--force)")
    same_rules = ruleset.hash == log["hash"]
    if not same_rules:
        changed = ruleset.changed_since(log["fingerprints"]) if isinstance(log.get("fingerprints"), dict) \
            else ["(the log is older than fingerprints: it cannot say which rules)"]
        what = f"the rules changed since the log was made: {describe_changes(changed)}"
        if not force:
            raise BadSave(Diagnostic("RR305", what, Pos(where, 0, 0), hint=hint))
        if notes is not None:
            notes.append(what + "; replaying anyway (--force) to find where the game diverges")
    game = ruleset.new_game(log["players"], log["seed"])
    yield game
    # then the commitments of a round of secret choices still open when the log was taken
    committed = log.get("committed")
    committed = committed if isinstance(committed, dict) else {}
    actions = [(raw, None) for raw in log["actions"]] + [(raw, seat) for seat, raw in committed.items()]
    for i, (raw, seat) in enumerate(actions, 1):
        if game.is_over:
            raise BadSave(Diagnostic("RR305", f"action {i} ({raw}): the game was already over",
                                     Pos(where, 0, 0)))
        try:
            game.apply(raw, player=seat)
        except IllegalAction as err:
            raise BadSave(Diagnostic("RR305", f"diverges at action {i} of {len(actions)} "
                                     f"({raw}): {err.diagnostics[0].message}", Pos(where, 0, 0))) from None
        if i == len(actions) and same_rules:
            _check_final(log, game, where)
        yield game
    if not actions and same_rules:
        _check_final(log, game, where)


def _check_final(log: dict, game, where: str) -> None:
    """RR305 unless the game ends in the state the log recorded (an edited seed, or players,
    replays other games: their actions may even all be legal)."""
    want = log.get("final_state_sha256")
    if want and want != game.digest():
        raise BadSave(Diagnostic("RR305", "every action replayed, but the final state differs from "
                                 "the recorded one (was the seed, the players or an action edited?)",
                                 Pos(where, 0, 0)))


# ------------------------------------------------------------------ the verb: railrules replay
def add_arguments(parser) -> None:
    parser.description = ("Replay a log written by 'play --log' (or Game.log()); exit 1 and say where, "
                          "if the game no longer replays identically.")
    parser.add_argument("log", help="the log file (JSON)")
    parser.add_argument("--ruleset", help="the ruleset folder to replay with (default: the folder the "
                        "log names if it is still there, else the shipped ruleset of its name)")
    parser.add_argument("--force", action="store_true", help="replay even though the rules changed since "
                        "the log was made (to see where the game diverges)")


def run(args) -> int:
    log = read_log(Path(args.log))
    game, notes = replay(log, args.log, args.ruleset, args.force,
                         hint="replay with --force to see where the game diverges, or --ruleset PATH "
                         "to replay with the rules it was made with")
    for note in notes:
        print(note)
    state = "over: " + ", ".join(game.result["reasons"]) if game.is_over else "still running"
    print(f"replayed {len(log['actions'])} actions of {log['ruleset']}: identical ({state})")
    return 0
