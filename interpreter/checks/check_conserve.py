"""Every `conserve` quantity can be computed at the start of a game (RR302)."""
from __future__ import annotations

from ..errors import RailrulesError


def check_conserve(ruleset, sink) -> None:
    if not ruleset.conserve:
        return
    try:
        game = ruleset.new_game(ruleset.players_min, 0)
    except RailrulesError as err:
        sink.diagnostics += err.diagnostics
        return
    for name, fn in ruleset.conserve:
        try:
            value = fn(game.machine, {})
        except Exception as err:  # a broken expression is the author's problem
            sink.add("RR302", f"conserve '{name}' cannot be computed: {err}",
                     ruleset.meta_places["components"].of("conserve", name))
            continue
        if not isinstance(value, int) or isinstance(value, bool):
            sink.add("RR302", f"conserve '{name}' is {value!r}, not a number",
                     ruleset.meta_places["components"].of("conserve", name))
