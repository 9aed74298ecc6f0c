"""What a picture of the board shows, as plain data, from the ruleset's own declarations.

:func:`board_model` evaluates the ``render:`` key of ruleset.yaml on a game and returns a
:class:`BoardModel`; the SVG writer (:mod:`tools.svg_board`) and the text map draw from it, and
know no game. The declarations are rules expressions (documented in LANGUAGE.md):

* ``hex`` (over ``h``): a short text per hex, for the text map;
* ``fill`` (over ``h``): the hex's colour (a CSS colour name or ``#rrggbb``), default a light grey;
* ``label`` (over ``h``): a longer text written in the hex (a city's name and value), default none;
* ``marks`` (over ``h``): the entities with a mark on the hex (a company's trains, a player's
  station): a list of entity ids, or one id, or none;
* ``colour`` (over ``e``): the colour of an entity's marks, default its ``colour`` field, else a
  colour of a fixed palette;
* ``at`` (over ``h``): the grid id a hex is drawn at, for boards whose ids are names (default
  the hex's own id); ``grid``: the layout to draw with when the board file has none (``odd-q``
  or ``even-q``: letters count columns; ``odd-r`` or ``even-r``: letters count rows).

The panels are the public state of the ``show:`` key (per kind, the fields to show), read from
``game.view(None)``: nothing secret is drawn.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from railrules.interpreter.board.hexgrid import parse_id

PALETTE = ["#d62728", "#1f77b4", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2",
           "#17becf", "#bcbd22", "#7f7f7f"]


@dataclass
class HexView:
    id: str
    col: int | None          # grid column and row (None: drawn in the list of loose hexes)
    row: int | None
    fill: str
    label: str
    text: str                # the short text of the text map
    marks: list              # entity ids, one mark each


@dataclass
class BoardModel:
    title: str
    offset: str              # "odd-q"/"even-q": which columns sit half a hex lower; "-r": rows
    hexes: list = field(default_factory=list)
    owners: dict = field(default_factory=dict)   # entity id -> (name, colour), in order of first mark
    blocked: list = field(default_factory=list)  # (hex id, hex id): an impassable edge between them
    panels: list = field(default_factory=list)   # (title, header, rows)


def board_model(game) -> BoardModel:
    """The board of ``game`` as its ruleset declares it (see the module's note)."""
    ruleset = game.ruleset
    spec = ruleset.meta.get("render") or {}
    board = ruleset.board
    offset = (board.offset if board is not None else None) or spec.get("grid") or "odd-q"
    model = BoardModel(ruleset.meta.get("title", ruleset.name), offset)
    if board is not None:
        per_hex = {k: _compile(game, spec, k, "h") for k in ("hex", "fill", "label", "marks", "at") if spec.get(k)}
        for h in board.adj:
            at = str(per_hex["at"](h=h)) if "at" in per_hex else h
            cr = parse_id(at)
            marks = per_hex["marks"](h=h) if "marks" in per_hex else None
            marks = [] if marks is None else marks if isinstance(marks, list) else [marks]
            model.hexes.append(HexView(
                h, *(cr if cr else (None, None)),
                fill=str(per_hex["fill"](h=h)) if "fill" in per_hex else "#eeeeee",
                label=_text(per_hex["label"](h=h)) if "label" in per_hex else "",
                text=_text(per_hex["hex"](h=h)) if "hex" in per_hex else "",
                marks=[str(m) for m in marks]))
        model.blocked = list(board.blocked)
    model.owners = _owners(game, spec, [m for hv in model.hexes for m in hv.marks])
    model.panels = _panels(game)
    return model


def _compile(game, spec: dict, key: str, param: str):
    """The render expression ``key`` as a function of ``param``; its faults point into ruleset.yaml."""
    places = game.ruleset.meta_places.get("ruleset")
    where = places.value_of("render", key) if places is not None else None
    return game.compile_expression(spec[key], (param,), where)


def _text(value) -> str:
    return "" if value is None else str(value)


def _owners(game, spec, marks: list) -> dict:
    colour = _compile(game, spec, "colour", "e") if spec.get("colour") else None
    entities = game.state["entities"]
    out: dict = {}
    for m in marks:
        if m in out:
            continue
        rec = entities.get(m, {})
        c = colour(e=m) if colour else rec.get("colour")
        out[m] = (str(rec.get("name", m)), str(c) if c else PALETTE[len(out) % len(PALETTE)])
    return out


def _panels(game) -> list:
    """(title, header, rows) for each kind of the ``show:`` key, from the public view."""
    view = game.view(None)
    entities = view["entities"]
    kinds = {**game.ruleset.kinds, **view["kinds"]}
    out = []
    for kind, fields in (game.ruleset.meta.get("show") or {}).items():
        rows = []
        for eid in kinds.get(kind, []):
            rec = entities.get(eid, {})
            rows.append([str(rec.get("name", eid))] + [_cell(rec.get(f)) for f in fields])
        out.append((kind, ["name", *fields], rows))
    return out


def _cell(value) -> str:
    if isinstance(value, dict):
        return " ".join(f"{k}:{_cell(v)}" for k, v in value.items() if v)
    if isinstance(value, list):  # a list of pairs reads "I9 textiles, L14 leather"
        return ", ".join(" ".join(map(_cell, v)) if isinstance(v, list) else _cell(v) for v in value)
    return _text(value)
