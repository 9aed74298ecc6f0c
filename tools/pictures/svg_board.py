"""The board as an SVG picture: hexes in their terrain colours, each place named, the track
joining hex centres in its entity's colour, the pieces (stations, locomotives...) as shapes, the
legends (entities, pieces, terrain) and tables of the public state.

Drawn from a :class:`tools.pictures.board_model.BoardModel` only: flat-topped hexes in columns, every
other column half a hex lower (the board's ``odd-q``/``even-q`` layout), or, for ``odd-r`` /
``even-r``, pointy-topped hexes in rows (the id's letters count rows, its number columns), every
other row half a hex to the right. A hex drawn over several grid places (a city printed over
three hexes) is one shape with its name once, at their middle; hexes with no grid place are
listed under the map. Texts are placed where they overlap no other text (the picture grows to
hold them), measured with :func:`text_width`, an upper bound of a sans-serif font's widths.
Every element carries a class (``hex``, ``track``, ``piece``, ``mark``, ``name``, ``label``,
``legend-entry``, ``panel``...) and ``data-`` attributes, so that tests and style sheets can find
them; each hex has a ``<title>`` (its id, name, label and pieces) shown on hover.
"""
from __future__ import annotations

import math
from xml.sax.saxutils import escape, quoteattr

R = 24.0                      # a hex's radius (centre to corner), in px
H = math.sqrt(3) * R          # a hex's height
MARK = 4.6                    # a mark's radius
LINE = 15                     # a line of text in the panels and legends
TOP = 44                      # the map starts below the title
NAME_SIZE, LABEL_SIZE, ID_SIZE = 8.5, 7.0, 6.0
BLOCKED = "#d000f0"           # an impassable edge: a colour no company or player is drawn in
HALO = 'stroke="white" stroke-width="2.2" stroke-opacity="0.75" paint-order="stroke"'


def text_width(text: str, size: float) -> float:
    """An upper bound of the width of ``text`` at font size ``size`` in a sans-serif font."""
    narrow, wide = set("iljI.,:;'!|() []ft"), set("mwMW@%&")
    return size * sum(0.36 if c in narrow else 0.95 if c in wide else 0.74 if c.isupper()
                      else 0.62 for c in text) + 2


def _grid_centre(col: int, row: int, left: int, top: int, offset: str) -> tuple:
    shifted = (col % 2 == 1) if offset.startswith("odd") else (col % 2 == 0)
    if offset.endswith("-r"):   # letters are rows, numbers columns
        return (H / 2 + 4 + (row - top) * H + (H / 2 if shifted else 0),
                R + TOP + (col - left) * 1.5 * R)
    return (R + 4 + (col - left) * 1.5 * R, H / 2 + TOP + (row - top) * H + (H / 2 if shifted else 0))


def _origin(model) -> tuple:
    cells = [cr for hv in model.hexes if hv.col is not None for cr in (hv.places or [(hv.col, hv.row)])]
    return min((c for c, _ in cells), default=0), min((r for _, r in cells), default=0)


def shapes_at(model) -> dict:
    """Hex id -> the centres of every grid place it is drawn at."""
    left, top = _origin(model)
    return {hv.id: [_grid_centre(c, r, left, top, model.offset) for c, r in (hv.places or [(hv.col, hv.row)])]
            for hv in model.hexes if hv.col is not None}


def centres(model) -> dict:
    """Hex id -> the (x, y) of its centre in the picture (the middle of its places), for the
    hexes with a grid place."""
    return {h: (sum(x for x, _ in ps) / len(ps), sum(y for _, y in ps) / len(ps))
            for h, ps in shapes_at(model).items()}


def mark_places(marks: list, x: float, y: float) -> list:
    """(owner, x, y) of each mark on a hex centred at (x, y): rows of three."""
    per_row, out = 3, []
    for k, m in enumerate(marks):
        row, col = divmod(k, per_row)
        in_row = min(per_row, len(marks) - row * per_row)
        out.append((m, x + (col - (in_row - 1) / 2) * (2 * MARK + 1),
                    y - 1 + row * (2 * MARK + 1) - (MARK if len(marks) > per_row else 0)))
    return out


def to_svg(model, ids: bool = False, marks: bool = True, panels: bool = True,
           displays: bool = True) -> str:
    """The picture; without ``marks``, an empty layer ``<g id="marks">`` where the track and the
    pieces would go (:func:`marks_layer` draws them); without ``panels``, no tables of the state;
    without ``displays``, none of the game's own displays (:func:`displays_svg` draws them)."""
    pointy = model.offset.endswith("-r")
    at, shapes = centres(model), shapes_at(model)
    body = [_hex(hv, shapes[hv.id], model, ids, pointy, marks) for hv in model.hexes if hv.id in at]
    body += [_edge(at[a], at[b], 'class="blocked"', BLOCKED, 4) for a, b in model.blocked if a in at and b in at]
    body += [_edge(at[a], at[b], f'class="edge" data-kind={quoteattr(kind)} data-id="{a}-{b}"',
                   model.edge_kinds[kind], 3) for kind, a, b, _ in model.edges if a in at and b in at]
    body.append(f'<g id="marks">{marks_layer(model, at) if marks else ""}</g>')
    texts, (right, bottom) = place_texts(model, at, ids)
    body += texts
    for x, y in (p for ps in shapes.values() for p in ps):
        right, bottom = max(right, x + R + 4), max(bottom, y + H / 2 + 4)
    legend, legend_right, legend_bottom = _legends(model, right + 24, TOP)
    body.append(legend)
    shown, shown_right, legend_bottom = _displays(model if displays else None, right + 24, legend_bottom + 24)
    body.append(shown)
    legend_right = max(legend_right, shown_right)
    y = max(bottom, legend_bottom) + 30
    loose = [hv for hv in model.hexes if hv.col is None]
    if loose:
        text = "not on the grid: " + ", ".join(hv.id + (" " + hv.text if hv.text else "") for hv in loose)
        body.append(f'<text class="loose" x="8" y="{y:.0f}" font-size="9">{escape(text)}</text>')
        right = max(right, 8 + text_width(text, 9))
        y += 2 * LINE
    for panel in model.panels if panels else []:
        svg, y, wide = _panel(panel, 8, y)
        body.append(svg)
        right = max(right, wide)
    total_w = max(legend_right, right) + 12
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{total_w:.0f}" height="{y + 10:.0f}" '
            f'viewBox="0 0 {total_w:.0f} {y + 10:.0f}" font-family="sans-serif" font-size="9">\n'
            f'<rect class="background" width="100%" height="100%" fill="white"/>\n'
            f'<text class="title" x="8" y="22" font-size="16">{escape(model.title)}</text>\n'
            + "\n".join(body) + "\n</svg>\n")


def _corners(x: float, y: float, pointy: bool) -> str:
    turn = math.pi / 6 if pointy else 0.0
    return " ".join(f"{x + R * math.cos(math.pi / 3 * k + turn):.1f},{y + R * math.sin(math.pi / 3 * k + turn):.1f}"
                    for k in range(6))


def _hex(hv, places: list, model, ids: bool, pointy: bool, marks: bool = True) -> str:
    owners = model.owners
    tip = ", ".join([hv.id, *([hv.name] if hv.name else []), *([hv.label] if hv.label else []),
                     *[f"{owners.get(e, (e,))[0]} {kind}" for kind, e in (hv.pieces if marks else [])],
                     *[owners.get(m, (m,))[0] for m in (hv.marks if marks else [])]])
    outline = "none" if len(places) > 1 else "#888"
    parts = [f'<g class="hex" data-id={quoteattr(hv.id)}>', f'<title>{escape(tip)}</title>']
    parts += [f'<polygon points="{_corners(x, y, pointy)}" fill={quoteattr(hv.fill)} stroke={quoteattr(outline)} '
              f'stroke-width="0.6"/>' for x, y in places]
    if len(places) > 1:   # one place printed over several hexes: drawn without inner edges
        parts += [f'<polygon points="{_corners(x, y, pointy)}" fill="none" stroke="#555" stroke-width="1.2" '
                  f'stroke-dasharray="3 2"/>' for x, y in places]
    parts.append("</g>")
    return "".join(parts)


def marks_layer(model, at: dict | None = None) -> str:
    """The track, the pieces and the marks of the hexes placed at ``at`` (default: the model's)."""
    at = centres(model) if at is None else at
    order = {e: k for k, e in enumerate(model.owners)}
    out = []
    for a, b, shared in model.track:
        if a in at and b in at:
            out += _track_line(at[a], at[b], sorted(shared, key=lambda e: order.get(e, len(order))), model.owners)
    for hv in model.hexes:
        if hv.id not in at:
            continue
        x, y = at[hv.id]
        ends = sorted(hv.track, key=lambda e: order.get(e, len(order)))
        for k, e in enumerate(ends):
            out.append(f'<circle class="track-node" data-owner={quoteattr(e)} cx="{x + (k - (len(ends) - 1) / 2) * 7:.1f}" '
                       f'cy="{y:.1f}" r="4" fill={quoteattr(_colour(model.owners, e))} stroke="black" stroke-width="0.5"/>')
        items = [(kind, e) for kind, e in hv.pieces] + [("mark", m) for m in hv.marks]
        for (kind, e), (_, px, py) in zip(items, mark_places(items, x, y)):
            shape = model.shapes.get(kind, "circle")
            out.append(_shape(shape, px, py, _colour(model.owners, e),
                              f'class="{"mark" if kind == "mark" else "piece"}" data-kind={quoteattr(kind)} '
                              f'data-owner={quoteattr(e)}'))
    return "".join(out)


def _colour(owners: dict, e: str) -> str:
    return owners.get(e, ("", "#000"))[1]


def _track_line(a: tuple, b: tuple, shared: list, owners: dict) -> list:
    """One line per entity from centre to centre, side by side when several share the way."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    length = math.hypot(dx, dy) or 1.0
    nx, ny = -dy / length, dx / length
    out = []
    for k, e in enumerate(shared):
        off = (k - (len(shared) - 1) / 2) * 3.6
        x1, y1, x2, y2 = a[0] + nx * off, a[1] + ny * off, b[0] + nx * off, b[1] + ny * off
        out.append(f'<g class="track" data-owner={quoteattr(e)}>'
                   f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" stroke="#222" stroke-width="4.2" stroke-linecap="round"/>'
                   f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" stroke={quoteattr(_colour(owners, e))} '
                   f'stroke-width="2.8" stroke-linecap="round"/></g>')
    return out


def _shape(shape: str, x: float, y: float, colour: str, attrs: str) -> str:
    paint = f'fill={quoteattr(colour)} stroke="black" stroke-width="0.7"'
    if shape == "square":
        return f'<rect {attrs} x="{x - MARK:.1f}" y="{y - MARK:.1f}" width="{2 * MARK}" height="{2 * MARK}" {paint}/>'
    if shape in ("triangle", "diamond"):
        pts = [(0, -1.25), (1.15, 0.85), (-1.15, 0.85)] if shape == "triangle" else [(0, -1.3), (1.1, 0), (0, 1.3), (-1.1, 0)]
        points = " ".join(f"{x + px * MARK:.1f},{y + py * MARK:.1f}" for px, py in pts)
        return f'<polygon {attrs} points="{points}" {paint}/>'
    return f'<circle {attrs} cx="{x:.1f}" cy="{y:.1f}" r="{MARK}" {paint}/>'


def place_texts(model, at: dict, ids: bool = False) -> tuple[list, tuple]:
    """The hexes' ids, labels and names as ``<text>`` elements, each where its box overlaps no
    other's (tried nearest first: inside the hex, then around it, then farther out), and the
    right and bottom edges of all of them."""
    boxes: list = []
    out: list = []
    right = bottom = 0.0
    todo = []
    for hv in model.hexes:
        if hv.id not in at:
            continue
        x, y = at[hv.id]
        if ids:
            todo.append((0, "hex-id", hv.id, hv.id, ID_SIZE, x, y, [(0, -0.62 * R)]))
        if hv.label:
            todo.append((1, "label", hv.id, hv.label, LABEL_SIZE, x, y, [(0, 0.56 * R), (0, 0.3 * R)]))
        if hv.name:
            todo.append((2, "name", hv.id, hv.name, NAME_SIZE, x, y, [(0, -0.5 * R), (0, -0.22 * R)]))
    for kind, a, b, label in model.edges:
        if label and a in at and b in at:
            x, y = (at[a][0] + at[b][0]) / 2, (at[a][1] + at[b][1]) / 2
            todo.append((1, "edge-label", f"{a}-{b}", label, LABEL_SIZE, x, y, [(0, 0)]))
    for _, cls, hid, text, size, x, y, first in sorted(todo, key=lambda t: t[0]):
        w, h = text_width(text, size), size * 1.25
        for dx, dy in first + _around(w, h):
            cx, cy = x + dx, y + dy
            box = (cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2)
            if box[0] >= 2 and box[1] >= TOP - 12 and not any(_overlap(box, o) for o in boxes):
                break
        boxes.append(box)
        right, bottom = max(right, box[2]), max(bottom, box[3])
        weight = ' font-weight="bold"' if cls == "name" else ""
        fill = "#555" if cls == "hex-id" else "#111"
        out.append(f'<text class="{cls}" data-id={quoteattr(hid)} x="{cx:.1f}" y="{cy + size * 0.36:.1f}" '
                   f'text-anchor="middle" font-size="{size}"{weight} fill="{fill}" {HALO}>{escape(text)}</text>')
    return out, (right, bottom)


def _around(w: float, h: float) -> list:
    """Offsets of a text's centre around a hex, nearest first, in rings farther and farther."""
    out = []
    for ring in range(1, 9):
        d = R * (0.55 + 0.45 * ring)
        side = d + w / 2 - R * 0.4
        out += [(0, -d), (0, d), (side, 0), (-side, 0), (side, -d * 0.6), (-side, -d * 0.6),
                (side, d * 0.6), (-side, d * 0.6)]
    return out


def _overlap(a: tuple, b: tuple) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _edge(a: tuple, b: tuple, attrs: str, colour: str, width: float) -> str:
    """A line on the edge two neighbouring hexes (centred at ``a`` and ``b``) share: the edge
    is R long, across the middle of the line between the centres."""
    mx, my = (a[0] + b[0]) / 2, (a[1] + b[1]) / 2
    dx, dy = b[0] - a[0], b[1] - a[1]
    scale = R / 2 / math.hypot(dx, dy)
    return (f'<line {attrs} x1="{mx - dy * scale:.1f}" y1="{my + dx * scale:.1f}" '
            f'x2="{mx + dy * scale:.1f}" y2="{my - dx * scale:.1f}" stroke={quoteattr(colour)} stroke-width="{width}" '
            'stroke-linecap="round"/>')


def _legends(model, x: float, y: float) -> tuple[str, float, float]:
    """The legends right of the map: every entity in its colour, each kind of piece, the
    terrain; returns the SVG and its right and bottom edges."""
    rows, right = ['<g class="legend">'], x
    drawn_track = {e for _, _, shared in model.track for e in shared} | \
        {e for hv in model.hexes for e in hv.track}
    shape_of = {e: model.shapes.get(kind, "circle") for hv in model.hexes for kind, e in hv.pieces}

    def section(title: str, entries: list) -> None:
        """A heading, then per entry (class, data attribute, swatch at (x, y), text) a line."""
        nonlocal right, y
        if rows[1:]:
            y += LINE + 6
        rows.append(f'<text x="{x:.0f}" y="{y:.0f}" font-size="11" font-weight="bold">{escape(title)}</text>')
        right = max(right, x + text_width(title, 11))
        for cls, data, swatch, text in entries:
            y += LINE
            rows.append(f'<g class="{cls}" {data}>{swatch(y)}'
                        f'<text x="{x + 18:.0f}" y="{y:.0f}" font-size="10">{escape(text)}</text></g>')
            right = max(right, x + 18 + text_width(text, 10))

    def line(colour: str, track: bool = True):
        """A swatch of track (a line with a dark edge), or of an edge of the board (a bare line)."""
        strokes = (("#222", 4.2), (colour, 2.8)) if track else ((colour, 3.5),)
        return lambda at: "".join(f'<line x1="{x:.0f}" y1="{at - 3:.0f}" x2="{x + 12:.0f}" y2="{at - 3:.0f}" '
                                  f'stroke={quoteattr(c)} stroke-width="{w}"/>' for c, w in strokes)

    def shape(kind: str, colour: str, attrs: str = ""):
        return lambda at: _shape(kind, x + 6, at - 3, colour, attrs)

    def square(colour: str):
        return lambda at: f'<rect x="{x:.0f}" y="{at - 9:.0f}" width="12" height="11" fill={quoteattr(colour)} stroke="#888"/>'
    section("legend", [("legend-entry", f"data-owner={quoteattr(e)}",
                        line(c) if e in drawn_track else shape(shape_of.get(e, "circle"), c, 'class="swatch"'), name)
                       for e, (name, c) in model.owners.items()])
    if model.shapes:
        section("pieces", [("legend-piece", f"data-kind={quoteattr(k)}", shape(s, "#bbbbbb"), k)
                           for k, s in model.shapes.items()])
    edges = [("legend-edge", 'data-kind="blocked"', line(BLOCKED, False), "impassable edge")] if model.blocked else []
    edges += [("legend-edge", f"data-kind={quoteattr(k)}", line(c, False), k) for k, c in model.edge_kinds.items()]
    if edges:
        section("edges", edges)
    if model.terrain:
        section("terrain", [("legend-terrain", f"data-terrain={quoteattr(g)}", square(c), g) for g, c in model.terrain])
    rows.append("</g>")
    return "".join(rows), right, y + 6


def _displays(model, x: float, y: float) -> tuple[str, float, float]:
    """The game's own displays (tracks, supplies, the decision in progress) in a column from
    (x, y); returns the SVG and its right and bottom edges."""
    from railrules.tools.pictures.board_model import Supply, Track
    out, right = [], x
    for d in model.displays if model is not None else []:
        out.append(f'<g class="display" data-title={quoteattr(d.title)}>'
                   f'<text x="{x:.0f}" y="{y:.0f}" font-size="11" font-weight="bold">{escape(d.title)}</text>')
        right = max(right, x + text_width(d.title, 11))
        if isinstance(d, Track):
            svg, wide, y = _track_display(d, model.owners, x, y + 6)
        elif isinstance(d, Supply):
            svg, wide, y = _supply_display(d, model.owners, x, y + 4)
        else:
            svg, wide, y = _decision_display(d, model.owners, x, y + 4)
        out.append(svg + "</g>")
        right = max(right, wide)
        y += 26
    return "".join(out), right, y


def displays_svg(model) -> str:
    """The game's own displays alone, as an SVG picture of their size ('' when there are none)."""
    if not model.displays:
        return ""
    svg, right, bottom = _displays(model, 8, 16)
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{right + 8:.0f}" height="{bottom:.0f}" '
            f'font-family="sans-serif" font-size="9">{svg}</svg>')


def _track_display(d, owners: dict, x: float, y: float) -> tuple[str, float, float]:
    widths = [max(text_width(s, 7) + 2, 15) for s in d.spaces]
    stacks: dict = {}
    for e, at in d.markers:
        stacks.setdefault(at, []).append(e)
    high = max((len(v) for v in stacks.values()), default=0)
    top = y + high * 9          # the markers stand above their space
    out, cx = [], x
    for k, (label, w) in enumerate(zip(d.spaces, widths)):
        out.append(f'<rect class="space" x="{cx:.1f}" y="{top:.1f}" width="{w:.1f}" height="13" fill="#f4f1e6" stroke="#888" stroke-width="0.6"/>'
                   f'<text class="space-label" x="{cx + w / 2:.1f}" y="{top + 9.5:.1f}" text-anchor="middle" font-size="7">{escape(label)}</text>')
        for j, e in enumerate(stacks.get(k, [])):
            out.append(_shape("circle", cx + w / 2, top - 5 - 9 * j, _colour(owners, e),
                              f'class="marker" data-owner={quoteattr(e)} data-space="{k}"').replace(f'r="{MARK}"', 'r="3.8"'))
        cx += w
    return "".join(out), cx, top + 13


def _supply_display(d, owners: dict, x: float, y: float) -> tuple[str, float, float]:
    names = [owners.get(e, (e,))[0] for e, _ in d.rows]
    indent = x + max((text_width(n, 9) for n in names), default=0) + 8
    out, right = [], x
    for (e, left), name in zip(d.rows, names):
        y += 13
        out.append(f'<text x="{x:.0f}" y="{y:.0f}" font-size="9">{escape(name)}</text>')
        out += [f'<rect class="supply-piece" data-owner={quoteattr(e)} x="{indent + 8 * k:.1f}" y="{y - 8:.1f}" '
                f'width="6" height="8" fill={quoteattr(_colour(owners, e))} stroke="black" stroke-width="0.5"/>'
                for k in range(max(left, 0))]
        count = f"{left}"
        out.append(f'<text class="supply-count" x="{indent + 8 * max(left, 0) + 4:.1f}" y="{y:.0f}" font-size="9">{count}</text>')
        right = max(right, indent + 8 * max(left, 0) + 4 + text_width(count, 9))
    return "".join(out), right, y + 4


def _decision_display(d, owners: dict, x: float, y: float) -> tuple[str, float, float]:
    out, right = [], x
    lines = list(d.lines) or ["(nothing in progress)"]
    for line in lines:
        y += 13
        out.append(f'<text class="decision-line" x="{x:.0f}" y="{y:.0f}" font-size="9">{escape(line)}</text>')
        right = max(right, x + text_width(line, 9))
    if d.who:
        y += 14
        who, name, colour = d.who
        text = f"to choose: {name}"
        out.append(_shape("circle", x + 5, y - 3, colour, f'class="to-act" data-owner={quoteattr(who)}')
                   + f'<text x="{x + 14:.0f}" y="{y:.0f}" font-size="9" font-weight="bold">{escape(text)}</text>')
        right = max(right, x + 14 + text_width(text, 9))
    return "".join(out), right, y + 4


def _panel(panel, x: float, y: float) -> tuple[str, float, float]:
    """A table of the state, and the key of the ids its cells give: its SVG, the y below it
    and its right edge."""
    title, header, rows, key = panel
    widths = [max(text_width(str(r[i]), 10) for r in [header, *rows]) + 12 for i in range(len(header))]
    out = [f'<g class="panel" data-kind={quoteattr(title)}>',
           f'<text x="{x:.0f}" y="{y:.0f}" font-size="11" font-weight="bold">{escape(title)}</text>']
    for k, row in enumerate([header, *rows]):
        cx = x
        cy = y + (k + 1) * LINE
        weight = ' font-weight="bold"' if k == 0 else ""
        for w, cell in zip(widths, row):
            if str(cell):
                out.append(f'<text x="{cx:.0f}" y="{cy:.0f}" font-size="10"{weight}>{escape(str(cell))}</text>')
            cx += w
    right, y = x + sum(widths), y + (len(rows) + 1) * LINE
    for e, name in key:
        y += LINE
        text = f"{e}: {name}"
        out.append(f'<text class="key" data-id={quoteattr(e)} x="{x + 8:.0f}" y="{y:.0f}" font-size="10">{escape(text)}</text>')
        right = max(right, x + 8 + text_width(text, 10))
    out.append("</g>")
    return "".join(out), y + LINE + 8, right
