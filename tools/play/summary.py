"""A readable summary of a game state, from the ruleset's own `show` list (or every field)."""
from __future__ import annotations

from railrules.tools.common.words import ending, winners


def _fmt(game, value) -> str:
    if isinstance(value, dict):
        parts = [f"{game.machine.show(k)} {v}" for k, v in value.items() if v]
        return ", ".join(parts) if parts else "-"
    if isinstance(value, list):
        return ", ".join(game.machine.show(v) for v in value) if value else "-"
    return game.machine.show(value)


def summary(game, viewer: str | None = None, kinds: list[str] | None = None) -> str:
    """Players, then each shown kind, then the global variables, as ``viewer`` may see them
    (fields the ruleset declares secret are hidden from the other players)."""
    show = game.ruleset.meta.get("show", {})
    view = game.view(viewer)
    ent = view["entities"]
    lines = []
    wanted = kinds or ["players", *[k for k in show if k != "players"]]
    for kind in wanted:
        ids = game.state["kinds"]["players"] if kind == "players" else game.ruleset.kinds.get(kind, [])
        fields = show.get(kind)
        lines.append(f"{kind}:")
        for i in ids:
            rec = ent[i]
            names = fields or [f for f, v in rec.items()
                               if f not in ("id", "kind", "name", "seat") and not isinstance(v, list)]
            text = "  ".join(f"{f}={_fmt(game, rec[f])}" for f in names if f in rec)
            mark = " <" if i == game.current_player else ""
            lines.append(f"  {rec.get('name', i):<12} {text}{mark}")
    glob = {k: v for k, v in view["globals"].items() if k not in game.ruleset.notes}
    if glob:
        lines.append("  ".join(f"{k}={_fmt(game, v)}" for k, v in glob.items()))
    return "\n".join(lines)


def standings(game, view: dict | None = None) -> str:
    """Why the game ended in the game's words (its end conditions' ``as`` texts), who won, and
    the final scores; the reasons as ``view`` (a seat's) has them, if given (one built from a
    secret reads hidden), else as the whole record says them."""
    result = game.result
    ent = game.state["entities"]
    order = sorted(game.players, key=lambda p: -result["scores"][p])
    reasons = (view or game.state)["result"]["reasons"]
    lines = [f"{ending(game, reasons)} (after {game.decisions} decisions)", winners(game)]
    for p in order:
        star = "  winner" if p in result["winners"] else ""
        lines.append(f"  {ent[p]['name']:<10} {result['scores'][p]:>5}{star}")
    return "\n".join(lines)
