"""What a seat may read: the one place that decides it, for the view, the log and the labels.

A field the ruleset declares ``secret`` is read by its owner alone (a player's own), or by no
seat (any other kind's). Beyond that, the engine hides what lint's secrecy check (RR116,
``checks/check_secrets.py``) finds the rules giving away, whatever the rules wrote: the loader
hands its findings over as ``ruleset.secrecy`` (nothing, for rules that leak nothing), and

- a logged value built from another seat's secret is logged as a :class:`Secret` and reads
  ``hidden`` in that seat's log (the whole log, ``game.messages``, shows it);
- a public variable or field the rules set from a secret reads ``hidden`` in every seat's view;
- the parameters of an option whose label shows another seat's secret read ``hidden`` to every
  seat but the one who chose it.
- an end reason built from a secret reads ``hidden`` in every view and log;
- a render or costs expression of ruleset.yaml that reads a secret is not drawn, its cost not
  shown (:func:`shows`).

``player`` None is an onlooker, who reads no secret at all.
"""
from __future__ import annotations

from ..runtime.values import Secret
from .commitments import as_read_by
from .log import Entry, entry_of, show

HIDDEN = "hidden"


def hidden(state: dict, secret: dict, entity: str, field: str, player: str | None) -> bool:
    """Whether ``player`` may not see ``entity.field``: a field the ruleset declares
    ``secret`` for the entity's kind, unless it is the player's own."""
    record = state["entities"].get(entity)
    if record is None:
        return False
    kind = record.get("kind")
    return field in secret.get(kind, ()) and not (kind == "players" and entity == player)


def hide_in_view(view: dict, secret: dict, secrecy: dict, player: str | None, state: dict) -> None:
    """Put ``hidden`` in ``view`` (a copy of the state) where ``player`` may not look."""
    for entity, record in view["entities"].items():
        for field in secret.get(record.get("kind"), ()):
            if field in record and hidden(state, secret, entity, field, player):
                record[field] = HIDDEN
    result: dict = view.get("result") or {}
    for i in result.get("hidden", ()):
        result["reasons"][i] = HIDDEN
    for kind, name in secrecy.get("state", ()):
        if kind == "variable" and name in view.get("globals", {}):
            view["globals"][name] = HIDDEN
        elif kind == "field":
            for record in view["entities"].values():
                if name in record:
                    record[name] = HIDDEN


def line_for(item, player: str | None, state: dict, secret: dict) -> str | None:
    """A stored log item as ``player`` reads it: None when it ``reveals`` a field hidden from
    them, its text with ``hidden`` for each value another seat's secret (a :class:`Secret`)."""
    item = entry_of(item)
    reveals = item.reveals if item.__class__ is Entry else getattr(item, "reveals", None)
    if reveals is not None and hidden(state, secret, reveals[0], reveals[1], player):
        return None
    if item.__class__ is not Entry:
        return as_read_by(item, player)   # a commitment reads "commits" but to its own seat
    if not any(v.__class__ is Secret for v in item.values):
        return item.text()
    values = iter(item.values)
    out = []
    for p in item.parts:
        if p is not None:
            out.append(p)
            continue
        v = next(values)
        if v.__class__ is Secret:
            out.append(show(item.ent, v.value) if player is not None and v.owner == player else HIDDEN)
        else:
            out.append(show(item.ent, v))
    return "".join(out)


def label_for(action, actor: str | None, player: str | None, secrecy: dict) -> str:
    """The label of ``action``, taken by ``actor``, as ``player`` reads it."""
    if action.name in secrecy.get("labels", ()) and (player is None or player != actor) and action.args:
        return " ".join([action.name, *[HIDDEN] * len(action.args)])
    return action.label


def shows(secrecy: dict, *path) -> bool:
    """Whether the render or costs expression at ``path`` in ruleset.yaml (``"render",
    "label"``; ``"costs", "bid"``) may be shown: not one that reads a secret."""
    return tuple(path) not in secrecy.get("yaml", ())
