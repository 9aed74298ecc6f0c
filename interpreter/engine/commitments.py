"""Rounds of secret choices (``choose secretly by p in seats``): what is pending, and what each
seat may know of it. Every redaction of pending commitments is here.

While a round is open, the paused frame's hidden local (``SecretChoice.slot``) holds it as plain
data: ``{"seats": [...], "commits": {seat: [option, *values]}, "at": 0}``. Who has committed is
public; what they committed is known only to themselves until every seat has committed and the
round is revealed. So a view says who has committed, and to each seat what it committed
itself; a log line of a commitment reads "Player 2 commits" to everyone but the seat, which
reads what it chose; a full save keeps everything (it is the game, not a seat's view).
"""
from __future__ import annotations

from .log import show
from ..runtime.values import Action

HIDDEN = "hidden"   # what a view shows of another seat's commitment (as of a secret field)


def open_round(program, state: dict):
    """``(the SecretChoice, its round)`` when the game is paused in a round of secret choices,
    else None."""
    stack = state["stack"]
    if not stack or not state["waiting"]:
        return None
    frame = stack[-1]
    instr = program.codes[frame["c"]].instrs[frame["pc"]]
    if not instr.secret:
        return None
    return instr, frame["L"][instr.slot]


def pending(rnd: dict) -> list:
    """The seats of a round that have not committed yet, in the round's order."""
    commits = rnd["commits"]
    return [s for s in rnd["seats"] if s not in commits]


def redact(view: dict, rnd: dict, player: str | None) -> None:
    """Add to ``view`` (a seat's, or an onlooker's: None) what it may know of an open round:
    who is still deciding, and who has committed (its own commitment as it is, the others'
    as "hidden")."""
    view["deciding"] = pending(rnd)
    view["committed"] = {s: list(a) if s == player else HIDDEN for s, a in sorted(rnd["commits"].items())}


class Sealed(str):
    """A log line of a commitment: its text ("Player 2 commits") is what everyone reads; the
    seat that committed reads ``own`` ("Player 2 commits: bid 7") instead (Game.messages_for)."""

    seat: str
    own: str

    def __new__(cls, text: str, seat: str, own: str):
        line = super().__new__(cls, text)
        line.seat, line.own = seat, own
        return line


def as_read_by(line, player: str | None):
    """``line`` as ``player`` reads it."""
    if line.__class__ is Sealed and line.seat == player:
        return line.own
    return line


def committed_line(ent: dict, seat: str, action: Action) -> Sealed:
    """The log line of ``seat``'s commitment of ``action``."""
    who = show(ent, seat)
    return Sealed(f"{who} commits", seat, f"{who} commits: {action.label}")


def revealed_line(ent: dict, seat: str, commit: list) -> str:
    """The log line of ``seat``'s commitment at the reveal (``commit``: its JSON form)."""
    return f"{show(ent, seat)} reveals: {Action.from_json(commit).label}"


def check_saved(ruleset, state: dict, bad) -> None:
    """A save's rounds of secret choices: one is open only where the rules pause in one, and
    it is whole (its seats players, its commitments theirs, the seat asked the first that has
    not committed); a save paused in a round loaded into rules without secret choices says so."""
    rounds = [(f, k) for f in state["stack"] if isinstance(f, dict) and isinstance(f.get("L"), dict)
              for k in f["L"] if isinstance(k, str) and k.startswith("$secret")]
    if rounds and not ruleset.program.secret_choices:
        frame, key = rounds[-1]
        rnd = frame["L"][key]
        done = len(rnd.get("commits", ())) if isinstance(rnd, dict) else "?"
        seats = len(rnd.get("seats", ())) if isinstance(rnd, dict) else "?"
        bad(f"the save is paused in a round of secret choices ({done} of {seats} seats committed), "
            f"and {ruleset.name} (variant {ruleset.variant}) has no secret choice: load it with the "
            f"rules it was saved with (variant {state.get('variant')})")


def check_round(state: dict, instr, bad) -> None:
    """The open round of a save paused at ``instr`` (a SecretChoice) is whole."""
    rnd = state["stack"][-1]["L"].get(instr.slot)
    players = state["kinds"]["players"]
    if not isinstance(rnd, dict) or set(rnd) != {"seats", "commits", "at"} \
            or not isinstance(rnd["seats"], list) or not isinstance(rnd["commits"], dict) \
            or rnd["at"] != 0 or len(set(rnd["seats"])) != len(rnd["seats"]) \
            or not set(rnd["seats"]) <= set(players) or not set(rnd["commits"]) <= set(rnd["seats"]) \
            or not all(isinstance(a, list) and a and isinstance(a[0], str) for a in rnd["commits"].values()):
        bad("the save's round of secret choices is damaged")
    left = pending(rnd)
    if not left or state.get("turn") != left[0] or state["stack"][-1]["L"].get(instr.var) != left[0]:
        bad("the save's round of secret choices does not ask the first seat that has not committed")
