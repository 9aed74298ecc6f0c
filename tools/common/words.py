"""What the rules do, said in the game's words: what a paused rule shows (its ``show`` lines),
how the game ended (an end condition's ``as`` text), who won, what each value of an action is
(a parameter's ``as`` text), and a label of the game's own to give as an example. The terminal,
the browser's page, the replay viewer, the board's panel and the agent adapters all say them
so, from here."""
from __future__ import annotations

from railrules.interpreter.errors import RailrulesError


def say(game, fn, values: dict) -> str:
    """The text ``fn`` (a compiled words expression of the rules) gives over ``values``; '' when
    it gives none or an empty text, or cannot be said now (a local not set yet)."""
    game.machine.steps = 0   # each text has the whole step budget
    try:
        value = fn(game.machine, values)
        return "" if value is None else game.machine.show(value)
    except Exception:   # a rule's fault, of any kind: the text is left out, the game goes on
        return ""


def shown_now(game, frame: dict) -> list[str] | None:
    """The ``show`` lines of the rule paused in ``frame``, said over its locals (those that say
    nothing left out); None when the rule has no ``show`` line (its values are listed raw)."""
    code = game.ruleset.program.codes.get(frame["c"])
    shows = getattr(code, "shows", None)
    if not shows:
        return None
    return [text for text in (say(game, fn, frame["L"]) for fn in shows) if text]


def ending(game, reasons: list) -> str:
    """'the industry track reached 8: the game ends': each reason the game ended for, an end condition by
    its ``as`` text (by its name when it has none), an ``end_game`` reason as it is."""
    words = game.ruleset.program.end_words
    told = [say(game, words[r], {}) or r if r in words else str(r) for r in reasons]
    return f"{'; '.join(told) or 'the rules end it'}: the game ends"


def winners(game) -> str:
    """'Player 1 wins with 24' / 'Player 1 and Player 3 share the win with 16'."""
    result = game.result
    if result is None:
        return ""
    names = [str(game.state["entities"].get(p, {}).get("name", p)) for p in result["winners"]]
    if not names:
        return "nobody wins"
    score = result["scores"][result["winners"][0]]
    if len(names) == 1:
        return f"{names[0]} wins with {score}"
    return f"{', '.join(names[:-1])} and {names[-1]} share the win with {score}"


def described(game, action) -> str:
    """What the values of ``action`` are, in the game's words ('bid 8: 8 is the amount bid'),
    from its parameters' ``as`` texts; '' where the rules give none."""
    try:
        about = game.described(action)
    except RailrulesError:
        return ""
    told = [f"{value} is {text}" for value, text in zip(action.args, about) if text]
    return "; ".join(told)


def option_text(game, action) -> str:
    """An action as a person or an agent reads it: its label, what the option does (the
    ruleset's ``render: {options: {NAME: TEXT}}``) and what its values are ('bid 8 — bid this
    much for the share; 8 is the amount Player 1 bids')."""
    does = ((game.ruleset.meta.get("render") or {}).get("options") or {}).get(action.name, "")
    said = "; ".join(x for x in (does, described(game, action)) if x)
    return f"{action.label} — {said}" if said else action.label


def example(game, fallback: str = "pass") -> str:
    """A label of the game's own to show as an example ('e.g. hex Q6'): the first legal action
    that takes a value, else the first legal action; ``fallback`` when nothing is legal now."""
    try:
        legal = game.legal_actions() if not game.is_over else []
    except RailrulesError:
        legal = []
    valued = [a for a in legal if a.args]
    return (valued or legal)[0].label if legal else fallback


__all__ = ["say", "shown_now", "ending", "winners", "described", "option_text", "example"]
