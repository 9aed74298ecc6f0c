"""What a picture of the board shows, as plain data, from the ruleset's own declarations.

:func:`board_model` evaluates the ``render:`` key of ruleset.yaml on a game and returns a
:class:`BoardModel`; the SVG writer (:mod:`tools.pictures.svg_board`) and the text map draw from it, and
know no game. The declarations are rules expressions (documented in LANGUAGE.md):

* ``hex`` (over ``h``): a short text per hex, for the text map;
* ``terrain`` (over ``h``): the name of the hex's ground (``plain``, ``forest``...), coloured by
  ``terrain_colours`` (name -> colour) and listed in the terrain legend;
* ``fill`` (over ``h``): the hex's colour (a CSS colour name or ``#rrggbb``), when the colour is
  not one of ``terrain``'s; default a light grey;
* ``name`` (over ``h``): the place's name, written beside the hex where it overlaps no other
  text; default the hex's ``name`` field, else its alias;
* ``label`` (over ``h``): a short text written in the hex (a value, a cost), default none;
* ``track`` (over ``h``): the entities with track on the hex: a line joins the centres of two
  neighbouring hexes with track of the same entity, in its colour;
* ``pieces``: piece name -> ``{shape, owners}``: ``owners`` (over ``h``) the entities with such a
  piece on the hex, drawn as a ``shape`` (circle, square, triangle, diamond) in their colours;
* ``marks`` (over ``h``): the entities with a mark on the hex: pieces drawn as circles;
* ``colour`` (over ``e``): the colour of an entity's marks, default its ``colour`` field, else
  (a player) the seat's colour of ``players``, else a colour of a fixed palette; ``colours``: the
  shade each colour name is drawn in (``red: "#e8384f"``), chosen by the ruleset so that the
  colours drawn together stay apart, for colour-blind eyes too (:func:`entity_colour`; the
  same in ``render``, ``view`` and the terminal); ``legend``: the kinds whose every entity the
  legend lists (besides the kinds of the entities drawn);
* ``at`` (over ``h``): the grid id a hex is drawn at, for boards whose ids are names (default
  the hex's own id), or a list of them (a city printed over several hexes); ``grid``: the layout
  to draw with when the board file has none (``odd-q`` or ``even-q``: letters count columns;
  ``odd-r`` or ``even-r``: letters count rows);
* ``edges``: edge kind -> ``{between, label, colour}``: ``between`` (over ``a`` and ``b``, two
  neighbouring hexes) whether the edge they share is of this kind (a river, a ridge: an edge
  with a cost), ``label`` (over ``a`` and ``b``) a short text written on it (its cost), drawn
  in ``colour`` and listed in the edges legend, after the board's impassable (``blocked``) edges.

``displays`` lists the game's own displays, drawn beside the board, each ``{title, ...}`` with
one of: ``track: {of, at, spaces}`` (``of`` an expression giving the entities with a marker,
``at`` over ``e`` its space's index, ``spaces`` the spaces' labels; without ``spaces`` the values
``at`` gives are the spaces), ``supply: {of, count}`` (``count`` over ``e``: how many pieces it
has left) or ``decision: {}`` (the rule waiting for a player's choice, its values and who acts:
:func:`in_progress`). Their expressions read the public view only when the ruleset has no secret.

The panels are the public state of the ``show:`` key (per kind, the fields to show), read from
``game.view(None)``: nothing secret is drawn.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from railrules.interpreter.engine import secrecy
from railrules.interpreter.board.hexgrid import parse_id

from railrules.tools.common.words import shown_now

PALETTE = ["#d62728", "#1f77b4", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2",
           "#17becf", "#bcbd22", "#7f7f7f"]
SHAPES = ("circle", "square", "triangle", "diamond")
PER_HEX = ("hex", "terrain", "fill", "name", "label", "track", "marks", "at")


@dataclass
class HexView:
    id: str
    col: int | None          # grid column and row (None: drawn in the list of loose hexes)
    row: int | None
    fill: str
    label: str
    text: str                # the short text of the text map
    marks: list              # entity ids, one circle each
    name: str = ""           # the place's name, written beside the hex
    track: list = field(default_factory=list)    # entity ids with track on the hex
    pieces: list = field(default_factory=list)   # (piece name, entity id)
    places: list = field(default_factory=list)   # every (col, row) it covers, when more than one


@dataclass
class BoardModel:
    title: str
    offset: str              # "odd-q"/"even-q": which columns sit half a hex lower; "-r": rows
    hexes: list = field(default_factory=list)
    owners: dict = field(default_factory=dict)   # entity id -> (name, colour), in order of first mark
    blocked: list = field(default_factory=list)  # (hex id, hex id): an impassable edge between them
    edges: list = field(default_factory=list)    # (kind, hex id, hex id, label): an edge of a kind
    edge_kinds: dict = field(default_factory=dict)  # edge kind -> its colour, in the legend's order
    panels: list = field(default_factory=list)   # (title, header, rows, key: [(id, name)])
    track: list = field(default_factory=list)    # (hex id, hex id, [entity ids]): lines of track
    shapes: dict = field(default_factory=dict)   # piece name -> shape
    terrain: list = field(default_factory=list)  # (ground name, colour): the terrain legend
    displays: list = field(default_factory=list)  # Track, Supply or Decision, in the ruleset's order


@dataclass
class Track:
    title: str
    spaces: list             # the spaces' labels
    markers: list            # (entity id, space index)


@dataclass
class Supply:
    title: str
    rows: list               # (entity id, pieces left)


@dataclass
class Decision:
    title: str
    lines: list              # the rule waiting and its values (who bids, the price, who is still in)
    who: tuple | None        # (id, name, colour) of the player whose choice it is


def board_model(game) -> BoardModel:
    """The board of ``game`` as its ruleset declares it (see the module's note)."""
    ruleset = game.ruleset
    spec = ruleset.meta.get("render") or {}
    board = ruleset.board
    offset = (board.offset if board is not None else None) or spec.get("grid") or "odd-q"
    model = BoardModel(ruleset.meta.get("title", ruleset.name), offset)
    pieces = spec.get("pieces") or {}
    model.shapes = {k: p.get("shape", "circle") for k, p in pieces.items()}
    if board is not None:
        per_hex = {k: _compile(game, spec, (k,)) for k in PER_HEX if spec.get(k)}
        owners_of = {k: _compile(game, spec, ("pieces", k, "owners")) for k in pieces}
        colours = spec.get("terrain_colours") or {}
        entities = game.state["entities"]
        grounds: set = set()
        for h in board.adj:
            places = _ids(per_hex["at"](h=h)) if "at" in per_hex else [h]
            grid = [cr for cr in map(parse_id, places) if cr]
            col, row = grid[0] if grid else (None, None)
            ground = _text(per_hex["terrain"](h=h)) if "terrain" in per_hex else ""
            grounds.add(ground)
            fill = str(per_hex["fill"](h=h)) if "fill" in per_hex else colours.get(ground, "#eeeeee")
            rec = entities.get(h, {})
            model.hexes.append(HexView(
                h, col, row, fill=fill,
                label=_text(per_hex["label"](h=h)) if "label" in per_hex else "",
                text=_text(per_hex["hex"](h=h)) if "hex" in per_hex else "",
                marks=_ids(per_hex["marks"](h=h)) if "marks" in per_hex else [],
                name=_text(per_hex["name"](h=h)) if "name" in per_hex
                else str(rec.get("name") or rec.get("alias") or ""),
                track=_ids(per_hex["track"](h=h)) if "track" in per_hex else [],
                pieces=[(k, e) for k, f in owners_of.items() for e in _ids(f(h=h))],
                places=grid if len(grid) > 1 else []))
        model.blocked = list(board.blocked)
        model.edge_kinds, model.edges = _edges(game, spec, board.adj)
        model.terrain = [(g, c) for g, c in colours.items() if g in grounds]
        model.track = _lines(model.hexes, board.adj)
    seen = [m for hv in model.hexes for m in [*hv.track, *(e for _, e in hv.pieces), *hv.marks]]
    model.owners = _owners(game, spec, _every_of_their_kinds(game, spec.get("legend") or [], seen))
    model.panels = _panels(game)
    model.displays = [_display(game, d, k) for k, d in enumerate(spec.get("displays") or [])
                      if _shown(game, d, k)]
    return model


def _shown(game, d: dict, k: int) -> bool:
    """Whether display ``k`` may be drawn: none of its expressions reads a secret (RR116)."""
    return all(secrecy.shows(game.ruleset.secrecy, "render", "displays", k, kind, key)
               for kind, spec in d.items() if isinstance(spec, dict) for key in spec)


def _display(game, d: dict, k: int):
    def expr(*key, params=("e",)):
        places = game.ruleset.meta_places.get("ruleset")
        where = places.value_of("render", "displays", k, *key) if places is not None else None
        text = d
        for part in key:
            text = text[part]
        return game.compile_expression(text, params, where)
    if "track" in d:
        spec = d["track"]
        who = _ids(expr("track", "of", params=())())
        at = expr("track", "at")
        values = [(e, at(e=e)) for e in who]
        if spec.get("spaces"):
            spaces = [_text(s) for s in expr("track", "spaces", params=())()]
            return Track(d["title"], spaces, [(e, int(v)) for e, v in values])
        spaces = sorted({v for _, v in values})
        return Track(d["title"], [_text(s) for s in spaces], [(e, spaces.index(v)) for e, v in values])
    if "supply" in d:
        count = expr("supply", "count")
        return Supply(d["title"], [(e, int(count(e=e))) for e in _ids(expr("supply", "of", params=())())])
    lines, mover = in_progress(game)
    name = str(game.state["entities"].get(mover, {}).get("name", mover))
    return Decision(d["title"], lines, (mover, name, entity_colour(game, mover)) if mover else None)


def in_progress(game) -> tuple[list, str | None]:
    """The rule waiting for a choice (its name and place) and its values, from the innermost
    paused frame (an auction's high bid, price, who is still in...), as lines, and the entity
    whose choice it is: the rule's ``show`` lines (:func:`..common.words.shown_now`) when it has
    any, else each local by name, then who is still in turn. A ruleset with secret fields shows
    no values: they may hold a secret."""
    from railrules.interpreter.dsl import turns
    from railrules.interpreter.paths import in_ruleset
    who = game.current_player if not game.is_over else None
    if not game.state["stack"]:
        return [], who
    frame = game.state["stack"][-1]
    code = game.ruleset.program.codes.get(frame["c"])
    if code is None:
        return [], who
    head = f"in {frame['c'].split(':', 1)[-1]} ({in_ruleset(code.pos.file, code.pos.line)})"
    if game.ruleset.meta.get("secret"):
        return [head], who
    told = shown_now(game, frame)   # the rule's own `show` lines, when it has any
    values = [turns.shown(k, v, game.machine.show) if k.startswith("$") else
              f"{k} {game.machine.show(v)}" if told is None else ""
              for k, v in frame["L"].items() if not k.startswith("__")]
    return [head, *(told or []), *[v for v in values if v]], who


EDGE_COLOUR = "#2b8cd6"   # an edge kind's colour when the ruleset gives none


def _edges(game, spec: dict, adj: dict) -> tuple[dict, list]:
    """The edge kinds the ruleset declares (kind -> colour) and its edges: (kind, a, b, label)
    for each pair of neighbouring hexes whose ``between`` is true, each pair once."""
    kinds = spec.get("edges") or {}
    if not kinds:
        return {}, []
    pairs = list(dict.fromkeys(tuple(sorted((a, b))) for a, near in adj.items() for b in near))
    out = []
    for kind, how in kinds.items():
        between = _compile(game, spec, ("edges", kind, "between"), ("a", "b"))
        label = _compile(game, spec, ("edges", kind, "label"), ("a", "b")) if how.get("label") else None
        out += [(kind, a, b, _text(label(a=a, b=b)) if label else "") for a, b in pairs if between(a=a, b=b)]
    return {k: str(how.get("colour") or EDGE_COLOUR) for k, how in kinds.items()}, out


def _lines(hexes: list, adj: dict) -> list:
    """(a, b, entities): the lines of track between neighbouring hexes. An entity's hexes are
    joined as a tree (each reached from the first in board order, breadth first), so that
    track laid hex by hex reads as lines, not as a lattice of every neighbouring pair."""
    on: dict = {}
    for hv in hexes:
        for e in hv.track:
            on.setdefault(e, []).append(hv.id)
    edges: dict = {}
    for e, mine in on.items():
        left, todo = set(mine), []
        for start in mine:
            if start not in left:
                continue
            left.discard(start)
            todo.append(start)
            while todo:
                a = todo.pop(0)
                for b in adj.get(a, ()):
                    if b in left:
                        left.discard(b)
                        todo.append(b)
                        edges.setdefault(tuple(sorted((a, b))), []).append(e)
    return [(a, b, shared) for (a, b), shared in edges.items()]


def _compile(game, spec: dict, key: tuple, params: tuple | None = None):
    """The render expression at ``key`` (over ``params``, default ``h``, or ``e`` for
    ``colour``); its faults point into ruleset.yaml. One that reads a secret (lint's RR116)
    draws nothing."""
    if not secrecy.shows(game.ruleset.secrecy, "render", *key):
        return lambda **_: None
    places = game.ruleset.meta_places.get("ruleset")
    where = places.value_of("render", *key) if places is not None else None
    text = spec
    for k in key:
        text = text[k]
    return game.compile_expression(text, params or (("e",) if key == ("colour",) else ("h",)), where)


def _ids(value) -> list:
    """A list of entity ids (a list, one id, or none) as strings."""
    return [] if value is None else [str(v) for v in value] if isinstance(value, list) else [str(value)]


def _text(value) -> str:
    return "" if value is None else str(value)


def _every_of_their_kinds(game, listed: list, drawn: list) -> list:
    """Every entity of the kinds ``listed`` (render: legend) and of each kind that has one drawn
    (the legend lists the companies with nothing on the board yet too), kind by kind."""
    entities = game.state["entities"]
    kinds = {**game.ruleset.kinds, **game.state["kinds"]}
    out: list = [e for k in listed for e in kinds.get(k, [])]
    for e in drawn:
        kind = entities.get(e, {}).get("kind")
        out += kinds.get(kind, []) if kind in kinds else [e]
    return list(dict.fromkeys(out))


def entity_colour(game, e: str, index: int = 0) -> str:
    """The colour entity ``e`` is drawn in, as the ruleset's ``render:`` says (see the module's
    note); ``index`` picks the palette's colour when it says nothing."""
    spec = game.ruleset.meta.get("render") or {}
    rec = game.state["entities"].get(e, {})
    if spec.get("colour"):
        c = _compile(game, spec, ("colour",))(e=e)
    else:
        c = rec.get("colour")
    seats = spec.get("players") or []
    if not c and rec.get("kind") == "players" and seats:
        c = seats[(int(rec.get("seat", 1)) - 1) % len(seats)]
    c = (spec.get("colours") or {}).get(str(c), c) if c else None
    return str(c) if c else PALETTE[index % len(PALETTE)]


def _owners(game, spec, marks: list) -> dict:
    entities = game.state["entities"]
    return {m: (str(entities.get(m, {}).get("name", m)), entity_colour(game, m, k)) for k, m in enumerate(marks)}


def _panels(game) -> list:
    """(title, header, rows, key) for each kind of the ``show:`` key, from the public view; the
    key names each entity a cell gives by its id only (a share holding ``ABC:1``): (id, name)."""
    view = game.view(None)
    entities = view["entities"]
    kinds = {**game.ruleset.kinds, **view["kinds"]}
    hexes = game.ruleset.board.adj if game.ruleset.board is not None else {}
    out = []
    for kind, fields in (game.ruleset.meta.get("show") or {}).items():
        rows, named = [], []
        for eid in kinds.get(kind, []):
            rec = entities.get(eid, {})
            rows.append([str(rec.get("name", eid))] + [_cell(rec.get(f)) for f in fields])
            named += [x for f in fields for x in _ids_in(rec.get(f))]
        key = [(x, str(entities[x]["name"])) for x in dict.fromkeys(named)
               if x in entities and x not in hexes and str(entities[x].get("name", x)) != x]
        out.append((kind, ["name", *fields], rows, key))
    return out


def _ids_in(value) -> list:
    """The strings a field's value holds: a map's keys, a list's items, a text (maybe ids)."""
    if isinstance(value, dict):
        return [str(k) for k, v in value.items() if v]
    if isinstance(value, list):
        return [x for v in value for x in _ids_in(v)]
    return [value] if isinstance(value, str) else []


def _cell(value) -> str:
    if isinstance(value, dict):
        return " ".join(f"{k}:{_cell(v)}" for k, v in value.items() if v)
    if isinstance(value, list):  # a list of pairs reads "I9 textiles, L14 leather"
        return ", ".join(" ".join(map(_cell, v)) if isinstance(v, list) else _cell(v) for v in value)
    return _text(value)
