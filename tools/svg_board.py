"""The board as an SVG picture: hexes in their terrain colours with their labels, each entity's
marks (trains, stations...) in its colour, a legend, and tables of the public state.

Drawn from a :class:`tools.board_model.BoardModel` only: flat-topped hexes in columns, every
other column half a hex lower (the board's ``odd-q``/``even-q`` layout), or, for ``odd-r`` /
``even-r``, pointy-topped hexes in rows (the id's letters count rows, its number columns), every
other row half a hex to the right. Hexes with no grid
position are listed under the map. Every element carries a class (``hex``, ``mark``,
``legend-entry``, ``panel``...) and ``data-`` attributes, so that tests and style sheets can
find them; each hex has a ``<title>`` (its id, label and marks) shown on hover.
"""
from __future__ import annotations

import math
from xml.sax.saxutils import escape, quoteattr

R = 18.0                      # a hex's radius (centre to corner), in px
H = math.sqrt(3) * R          # a hex's height
MARK = 4.2                    # a mark's radius
LINE = 15                     # a line of text in the panels


def centres(model) -> dict:
    """Hex id -> the (x, y) of its centre in the picture, for the hexes with a grid place."""
    placed = [hv for hv in model.hexes if hv.col is not None]
    left = min((hv.col for hv in placed), default=0)
    top = min((hv.row for hv in placed), default=0)
    pointy = model.offset.endswith("-r")   # letters are rows, numbers columns
    out = {}
    for hv in placed:
        shifted = (hv.col % 2 == 1) if model.offset.startswith("odd") else (hv.col % 2 == 0)
        if pointy:
            out[hv.id] = (H / 2 + 4 + (hv.row - top) * H + (H / 2 if shifted else 0),
                          R + 40 + (hv.col - left) * 1.5 * R)
        else:
            out[hv.id] = (R + 4 + (hv.col - left) * 1.5 * R,
                          H / 2 + 40 + (hv.row - top) * H + (H / 2 if shifted else 0))
    return out


def mark_places(marks: list, x: float, y: float) -> list:
    """(owner, x, y) of each mark on a hex centred at (x, y): rows of three."""
    per_row, out = 3, []
    for k, m in enumerate(marks):
        row, col = divmod(k, per_row)
        in_row = min(per_row, len(marks) - row * per_row)
        out.append((m, x + (col - (in_row - 1) / 2) * (2 * MARK + 1),
                    y - 1 + row * (2 * MARK + 1) - (MARK if len(marks) > per_row else 0)))
    return out


def to_svg(model, ids: bool = False, marks: bool = True, panels: bool = True) -> str:
    """The picture; without ``marks``, an empty layer ``<g id="marks">`` where they would go;
    without ``panels``, no tables of the state."""
    loose = [hv for hv in model.hexes if hv.col is None]
    pointy = model.offset.endswith("-r")
    at = centres(model)
    body, width, height = [], 300.0, 60.0
    for hv in model.hexes:
        if hv.id not in at:
            continue
        x, y = at[hv.id]
        body.append(_hex(hv, x, y, ids, model.owners, pointy, marks))
        width, height = max(width, x + R + 4), max(height, y + H / 2 + 4)
    body += [_blocked_edge(at[a], at[b]) for a, b in model.blocked if a in at and b in at]
    if not marks:
        body.append('<g id="marks"></g>')
    legend_x = width + 20
    body.append(_legend(model.owners, legend_x, 40))
    y = height + 30
    if loose:
        body.append(f'<text class="loose" x="8" y="{y:.0f}">not on the grid: '
                    f'{escape(", ".join(hv.id + (" " + hv.text if hv.text else "") for hv in loose))}</text>')
        y += 2 * LINE
    for panel in model.panels if panels else []:
        svg, y = _panel(panel, 8, y)
        body.append(svg)
    total_w = max(legend_x + 220, 720)
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{total_w:.0f}" height="{y + 10:.0f}" '
            f'viewBox="0 0 {total_w:.0f} {y + 10:.0f}" font-family="sans-serif" font-size="9">\n'
            f'<rect class="background" width="100%" height="100%" fill="white"/>\n'
            f'<text class="title" x="8" y="22" font-size="16">{escape(model.title)}</text>\n'
            + "\n".join(body) + "\n</svg>\n")


def _hex(hv, x: float, y: float, ids: bool, owners: dict, pointy: bool, marks: bool = True) -> str:
    turn = math.pi / 6 if pointy else 0.0
    corners = " ".join(f"{x + R * math.cos(math.pi / 3 * k + turn):.1f},{y + R * math.sin(math.pi / 3 * k + turn):.1f}"
                       for k in range(6))
    tip = ", ".join([hv.id, *([hv.label] if hv.label else []),
                     *[owners.get(m, (m,))[0] for m in (hv.marks if marks else [])]])
    parts = [f'<g class="hex" data-id={quoteattr(hv.id)}>',
             f'<title>{escape(tip)}</title>',
             f'<polygon points="{corners}" fill={quoteattr(hv.fill)} stroke="#888" stroke-width="0.6"/>']
    if ids:
        parts.append(f'<text class="hex-id" x="{x:.1f}" y="{y - R * 0.45:.1f}" text-anchor="middle" '
                     f'font-size="6" fill="#555">{escape(hv.id)}</text>')
    if hv.label:
        parts.append(f'<text class="label" x="{x:.1f}" y="{y + R * 0.62:.1f}" text-anchor="middle" '
                     f'font-size="6.5">{escape(hv.label[:14])}</text>')
    for m, mx, my in mark_places(hv.marks if marks else [], x, y):
        colour = owners.get(m, ("", "#000"))[1]
        parts.append(f'<circle class="mark" data-owner={quoteattr(m)} cx="{mx:.1f}" cy="{my:.1f}" '
                     f'r="{MARK}" fill={quoteattr(colour)} stroke="black" stroke-width="0.6"/>')
    parts.append("</g>")
    return "".join(parts)


def _blocked_edge(a: tuple, b: tuple) -> str:
    """A thick line on the edge two neighbouring hexes (centred at ``a`` and ``b``) share: the
    edge is R long, across the middle of the line between the centres."""
    mx, my = (a[0] + b[0]) / 2, (a[1] + b[1]) / 2
    dx, dy = b[0] - a[0], b[1] - a[1]
    scale = R / 2 / math.hypot(dx, dy)
    return (f'<line class="blocked" x1="{mx - dy * scale:.1f}" y1="{my + dx * scale:.1f}" '
            f'x2="{mx + dy * scale:.1f}" y2="{my - dx * scale:.1f}" stroke="#1f4e8c" stroke-width="3" '
            'stroke-linecap="round"/>')


def _legend(owners: dict, x: float, y: float) -> str:
    rows = [f'<g class="legend"><text x="{x:.0f}" y="{y:.0f}" font-size="11" font-weight="bold">legend</text>']
    for k, (eid, (name, colour)) in enumerate(owners.items()):
        cy = y + 16 + k * LINE
        rows.append(f'<g class="legend-entry" data-owner={quoteattr(eid)}>'
                    f'<circle cx="{x + 6:.0f}" cy="{cy - 3:.0f}" r="{MARK}" fill={quoteattr(colour)} stroke="black" stroke-width="0.6"/>'
                    f'<text x="{x + 16:.0f}" y="{cy:.0f}" font-size="10">{escape(name)}</text></g>')
    rows.append("</g>")
    return "".join(rows)


def _panel(panel, x: float, y: float) -> tuple[str, float]:
    title, header, rows = panel
    widths = [max(len(str(r[i])) for r in [header, *rows]) * 6 + 14 for i in range(len(header))]
    out = [f'<g class="panel" data-kind={quoteattr(title)}>',
           f'<text x="{x:.0f}" y="{y:.0f}" font-size="11" font-weight="bold">{escape(title)}</text>']
    for k, row in enumerate([header, *rows]):
        cx = x
        cy = y + (k + 1) * LINE
        weight = ' font-weight="bold"' if k == 0 else ""
        for w, cell in zip(widths, row):
            out.append(f'<text x="{cx:.0f}" y="{cy:.0f}" font-size="10"{weight}>{escape(str(cell))}</text>')
            cx += w
    out.append("</g>")
    return "".join(out), y + (len(rows) + 2) * LINE + 8
