"""`railrules render` and play's `map`: the board drawn from the ruleset's own render expression."""
from railrules.tools.pictures.board_view import board_picture
from railrules.tools.cli import main


def test_every_chicago_express_hex_is_drawn_in_its_place(chicago):
    game = chicago.new_game(players=3, seed=1)
    picture = board_picture(game)
    cells = [c for line in picture.splitlines()[1:] for c in line[4:].split()]
    assert len(cells) == len(chicago.kinds["hexes"]) == 160
    # New York (S3) is a start hex with the NYC train: row 3, first line (even column S)
    row = next(line for line in picture.splitlines() if line.startswith(" 3a"))
    assert row[4 + 18 * 4:].startswith("S1")


def test_render_without_a_declaration_says_so(capsys):
    from pathlib import Path
    base = Path(__file__).parent / "lint_corpus" / "base"  # a board, and no render key
    assert main(["render", str(base)]) == 0
    assert "declares no `render" in capsys.readouterr().out


def test_the_text_map_of_a_board_in_rows_puts_each_letter_on_a_line(capsys):
    assert main(["render", "german_railways"]) == 0
    lines = capsys.readouterr().out.splitlines()
    row_a = next(line for line in lines if line.startswith("  A "))
    assert "C" in row_a  # A5 is a city (Flensburg's place), drawn in row A
    assert not any(line.startswith("Berlin") for line in lines)  # drawn at its printed hexes
    row_g = next(line for line in lines if line.startswith("  G "))
    assert row_g.split()[9:11] == ["C", "C"]  # G10 and G11 (Berlin) are cities; G9 is a suburb


def test_render_of_a_saved_game_shows_its_trains(chicago, tmp_path, capsys):
    from railrules.tools.play.table import save
    game = chicago.new_game(players=3, seed=1)
    game.execute("add PRR to Q6.trains")
    path = tmp_path / "g.save.json"
    save(game, path)
    assert main(["render", "--resume", str(path)]) == 0
    # Q6: column Q (index 16, even: not shifted in odd-q), row 6, so the line " 6a"
    row = next(line for line in capsys.readouterr().out.splitlines() if line.startswith(" 6a"))
    assert row[4 + 16 * 4:4 + 17 * 4].strip() == ".1"          # plain, one train


# ---------------------------------------------------------------- the SVG picture
import re

import pytest

from railrules.interpreter import load_ruleset
from railrules.interpreter.paths import shipped_rulesets
import browser
from game_checks import played
from railrules.tools.pictures.board_model import board_model
from railrules.tools.pictures.svg_board import R, centres, to_svg
import math
import shutil
from pathlib import Path


def _played(name: str, actions: int = 150):
    return played(name, 3, 2, actions)


@pytest.mark.parametrize("name", shipped_rulesets())
def test_the_svg_draws_every_hex_every_mark_and_the_legend(name):
    game = _played(name)
    model = board_model(game)
    svg = to_svg(model, ids=True)
    placed = [h for h in model.hexes if h.col is not None]
    assert len(placed) == len(game.ruleset.board.adj)  # every hex has its place
    assert "not on the grid" not in svg
    assert svg.count('<g class="hex"') == len(placed)
    assert svg.count('class="hex-id"') == len(placed)
    nodes = re.findall(r'<circle class="track-node" data-owner="([^"]+)"', svg)
    assert sorted(nodes) == sorted(e for h in placed for e in h.track)
    pieces = re.findall(r'class="(?:piece|mark)" data-kind="([^"]+)" data-owner="([^"]+)"', svg)
    assert sorted(pieces) == sorted([*((k, e) for h in placed for k, e in h.pieces),
                                     *(("mark", m) for h in placed for m in h.marks)])
    assert nodes or pieces
    legend = re.findall(r'<g class="legend-entry" data-owner="([^"]+)"', svg)
    assert legend == list(model.owners) and set(nodes) | {e for _, e in pieces} <= set(legend)
    terrain = re.findall(r'<g class="legend-terrain" data-terrain="([^"]+)"', svg)
    assert terrain and set(terrain) == {g for g, c in model.terrain}
    assert {h.fill for h in placed} <= {c for _, c in model.terrain}  # every colour explained
    assert svg.count('<g class="panel"') == len(game.ruleset.meta["show"])


@pytest.mark.parametrize("name", shipped_rulesets())
def test_track_joins_neighbouring_hexes_of_its_entity_as_a_tree(name):
    """Each entity's lines join only its own hexes, neighbours, and as many lines as hexes less
    one per connected group: what was laid, without a lattice of every neighbouring pair."""
    import networkx as nx
    game = _played(name, 300)
    model = board_model(game)
    adj = game.ruleset.board.adj
    on = {}
    for h in model.hexes:
        for e in h.track:
            on.setdefault(e, set()).add(h.id)
    for e, hexes in on.items():
        lines = [(a, b) for a, b, shared in model.track if e in shared]
        assert all(a in hexes and b in hexes and b in adj[a] for a, b in lines)
        groups = nx.number_connected_components(nx.Graph({h: [b for b in adj[h] if b in hexes] for h in hexes}))
        assert len(lines) == len(hexes) - groups, e
    svg = to_svg(model)
    assert svg.count('<g class="track"') == sum(len(shared) for _, _, shared in model.track)


@pytest.mark.parametrize("name", shipped_rulesets())
def test_chromium_lays_every_text_inside_the_picture_and_over_no_other(name, tmp_path):
    """As a person would see it: every name, label, legend and table cell is inside the picture
    and overlaps no other text; every named place's name is drawn."""
    model = board_model(_played(name, 300))
    svg = to_svg(model, ids=True)
    boxes, (width, height) = browser.text_boxes(svg, tmp_path)
    assert len(boxes) == svg.count("<text ")
    for b in boxes:
        assert b["x"] >= 0 and b["y"] >= 0 and b["x"] + b["width"] <= width and b["y"] + b["height"] <= height, b
    shrunk = [(b["x"] + 0.5, b["y"] + 1.5, b["x"] + b["width"] - 0.5, b["y"] + b["height"] - 1.5, b) for b in boxes]
    shrunk.sort(key=lambda s: s[0])
    for i, a in enumerate(shrunk):   # the font's line box is taller than its letters: 1.5 px less
        for b in shrunk[i + 1:]:
            if b[0] >= a[2]:
                break
            assert not (a[1] < b[3] and b[1] < a[3]), (a[4], b[4])
    names = {b["id"]: b["text"] for b in boxes if b["cls"] == "name"}
    named = {h.id: h.name for h in model.hexes if h.name}
    assert names == named and named


def test_chicago_express_draws_one_mark_per_train_placed():
    game = _played("chicago_express", 200)
    svg = to_svg(board_model(game))
    for c in game.evaluate("[c for c in companies where c.open]"):
        placed = game.evaluate(f"{c}.trains - {c}.trains_left")
        assert len(re.findall(f'class="track-node" data-owner="{c}" cx=', svg)) == placed, c


def test_german_railways_draws_berlin_over_its_printed_hexes():
    model = board_model(load_ruleset("german_railways").new_game(3, 1))
    berlin = next(h for h in model.hexes if h.id == "Berlin")
    assert berlin.places == [(6, 10), (6, 11), (7, 11)] and berlin.name == "Berlin"   # G10, G11, H11
    svg = to_svg(model)
    hex_svg = re.search(r'<g class="hex" data-id="Berlin">.*?</g>', svg).group(0)
    assert hex_svg.count("<polygon") == 6           # three hexes, each filled and outlined
    x, y = centres(model)["Berlin"]
    assert re.search(rf'<text class="name" data-id="Berlin" x="{x:.1f}"', svg)


def test_german_railways_is_drawn_in_its_shape():
    """Rows are letters north to south: Kiel north of München, Köln west of Breslau."""
    model = board_model(load_ruleset("german_railways").new_game(3, 1))
    at = {h.id: (h.col, h.row) for h in model.hexes}  # (letter index, number)
    assert at["Kiel"][0] < at["Muenchen"][0] and at["Koeln"][1] < at["Breslau"][1]


def _corpus_board(tmp_path, blocked: str = "", render: str = "{hex: '\"x\"'}"):
    """The lint corpus's five-hex board with ``blocked`` edges and a ``render`` key."""
    root = tmp_path / "lake"
    shutil.copytree(Path(__file__).parent / "lint_corpus" / "base", root)
    board = (root / "board.yaml").read_text(encoding="utf-8")
    (root / "board.yaml").write_text(board.replace("hexes:\n", f"blocked:\n{blocked}hexes:\n" if blocked else "hexes:\n"), encoding="utf-8")
    meta = (root / "ruleset.yaml").read_text(encoding="utf-8")
    (root / "ruleset.yaml").write_text(meta + f"render: {render}\n", encoding="utf-8")
    return board_model(load_ruleset(str(root)).new_game(2, 1))


def _edge_line(svg: str, cls: str) -> tuple:
    [line] = re.findall(rf'<line class="{cls}"[^>]* x1="([\d.]+)" y1="([\d.]+)" x2="([\d.]+)" y2="([\d.]+)" '
                        r'stroke="([^"]+)"', svg)
    return tuple(map(float, line[:4])), line[4]


def test_a_blocked_edge_is_drawn_on_the_edge_the_two_hexes_share_in_a_colour_of_its_own(tmp_path):
    from railrules.tools.pictures.svg_board import BLOCKED
    model = _corpus_board(tmp_path, "  - [A1, A2]\n")
    assert model.blocked == [("A1", "A2")]
    svg = to_svg(model)
    (x1, y1, x2, y2), colour = _edge_line(svg, "blocked")
    a, b = centres(model)["A1"], centres(model)["A2"]     # A2 is below A1: the edge is level
    assert y1 == y2 == pytest.approx((a[1] + b[1]) / 2, abs=0.1)
    assert abs(x2 - x1) == pytest.approx(R, abs=0.2) and (x1 + x2) / 2 == pytest.approx(a[0], abs=0.1)
    assert colour == BLOCKED
    assert re.search(rf'<g class="legend-edge" data-kind="blocked"><line [^>]*stroke="{BLOCKED}"[^>]*/>'
                     r'<text [^>]*>impassable edge</text>', svg)


@pytest.mark.parametrize("name", shipped_rulesets())
def test_the_blocked_edges_colour_is_no_company_s_or_player_s(name):
    from railrules.tools.pictures.svg_board import BLOCKED
    from test_colours import MACHADO, distance
    game = _played(name)
    for e, (_, colour) in board_model(game).owners.items():
        assert distance(BLOCKED, colour) >= 30 and all(distance(BLOCKED, colour, v) >= 15 for v in MACHADO), e


def test_an_edge_with_a_cost_is_drawn_on_its_edge_with_its_label_and_in_the_legend(tmp_path):
    river = ("{hex: '\"x\"', edges: {river: {between: '(a == \"A1\" and b == \"B1\") or (a == \"B1\" and b == \"A1\")', "
             "label: '\"+${a.cost + b.cost}\"', colour: '#3366ff'}}}")
    model = _corpus_board(tmp_path, render=river)
    assert model.edges == [("river", "A1", "B1", "+$3")] and model.edge_kinds == {"river": "#3366ff"}
    svg = to_svg(model)
    (x1, y1, x2, y2), colour = _edge_line(svg, 'edge" data-kind="river" data-id="A1-B1')
    a, b = centres(model)["A1"], centres(model)["B1"]
    assert colour == "#3366ff" and (x1 + x2) / 2 == pytest.approx((a[0] + b[0]) / 2, abs=0.1)
    assert (y1 + y2) / 2 == pytest.approx((a[1] + b[1]) / 2, abs=0.1)
    assert math.hypot(x2 - x1, y2 - y1) == pytest.approx(R, abs=0.2)
    assert re.search(r'<text class="edge-label" data-id="A1-B1"[^>]*>\+\$3</text>', svg)
    assert re.search(r'<g class="legend-edge" data-kind="river"><line [^>]*stroke="#3366ff"[^>]*/><text [^>]*>river</text>', svg)
    assert 'class="blocked"' not in svg and "impassable" not in svg


def test_secret_fields_are_not_drawn():
    model = board_model(_played("stephensons_rocket"))
    players = next(rows for kind, header, rows, _ in model.panels if kind == "players")
    assert all(row[1] == "hidden" for row in players)  # cash is secret


@pytest.mark.parametrize("name", shipped_rulesets())
def test_chromium_shows_the_board_in_colour(name, tmp_path):
    path = tmp_path / f"{name}.svg"
    path.write_text(to_svg(board_model(_played(name))), encoding="utf-8")
    svg = path.read_text(encoding="utf-8")
    width, height = map(int, re.search(r'width="(\d+)" height="(\d+)"', svg).groups())
    pixels = browser.screenshot(path, width, height)[..., :3]
    assert (pixels < 0.5).mean() > 0.003  # hex outlines and text drawn, not a blank page
    saturated = (pixels.max(axis=2) - pixels.min(axis=2) > 0.5).sum()
    assert saturated > 300  # the companies' track and pieces, and the legend, in their colours


def test_render_writes_an_svg_and_refuses_what_it_cannot_do(tmp_path, capsys):
    from railrules.tools.play.terminal import save
    svg = tmp_path / "b.svg"
    assert main(["render", "chicago_express", "--svg", str(svg), "--ids"]) == 0
    assert svg.read_text(encoding="utf-8").startswith("<svg")
    assert main(["render", "chicago_express", "--svg", str(svg)]) == 2  # exists: not overwritten
    assert "--force" in capsys.readouterr().err
    assert main(["render", "chicago_express", "--svg", str(tmp_path / "no" / "b.svg")]) == 1
    assert "cannot write" in capsys.readouterr().err
    assert main(["render", "chicago_express", "--step", "3"]) == 2
    game = _played("chicago_express", 20)
    save(game, tmp_path / "g.save.json")
    assert main(["render", "--resume", str(tmp_path / "g.save.json"), "--svg", str(tmp_path / "s.svg")]) == 0


def test_render_of_a_log_at_a_step(tmp_path, capsys):
    log = tmp_path / "g.log"
    assert main(["play", "chicago_express", "--bots", "random", "--players", "3", "--seed", "3",
                 "--log", str(log)]) == 0
    capsys.readouterr()
    assert main(["render", "--log", str(log), "--step", "0"]) == 0
    start = capsys.readouterr().out
    assert main(["render", "--log", str(log)]) == 0
    assert capsys.readouterr().out != start  # trains were placed during the game
    assert main(["render", "--log", str(log), "--step", "100000"]) == 1
    assert "beyond the game" in capsys.readouterr().err


def test_render_of_another_rulesets_log_is_refused_in_one_line(tmp_path, capsys):
    """The log of one game drawn with another game's rules was refused with every rule of the
    two listed as changed ("changed game game; changed procedure setup; ... and 407 more")."""
    log = tmp_path / "g.log"
    assert main(["play", "chicago_express", "--bots", "random", "--players", "3", "--seed", "3",
                 "--log", str(log)]) == 0
    capsys.readouterr()
    assert main(["render", "german_railways", "--log", str(log), "--svg", str(tmp_path / "b.svg")]) == 1
    out, err = capsys.readouterr()
    assert not out and err == f"{log}: error RR304 the log is of chicago_express, not of " \
        "german_railways: give its own rules, or none\n"
    assert not (tmp_path / "b.svg").exists()
    assert main(["render", "chicago_express", "--log", str(log)]) == 0


def test_render_png_is_the_picture_at_its_own_size(tmp_path):
    import shutil
    if not (shutil.which("chromium") or shutil.which("chromium-browser")):
        pytest.skip("headless Chromium is not installed (apt-get install chromium; CI installs it)")
    image = pytest.importorskip("matplotlib.image")
    png, svg = tmp_path / "b.png", tmp_path / "b.svg"
    assert main(["render", "german_railways", "--png", str(png), "--svg", str(svg)]) == 0
    width, height = map(int, re.search(r'width="(\d+)" height="(\d+)"', svg.read_text(encoding="utf-8")).groups())
    pixels = image.imread(str(png))
    assert pixels.shape[:2] == (height, width)
    assert (pixels[..., :3].max(axis=2) - pixels[..., :3].min(axis=2) > 0.5).sum() > 300  # colours drawn


# ---------------------------------------------------------------- the game's own displays
@pytest.mark.parametrize("name", shipped_rulesets())
def test_the_displays_the_ruleset_declares_are_drawn_with_the_games_values(name):
    from railrules.tools.pictures.board_model import Decision, Supply, Track
    game = _played(name, 200)
    model = board_model(game)
    declared = game.ruleset.meta["render"]["displays"]
    assert [d.title for d in model.displays] == [d["title"] for d in declared]
    svg = to_svg(model)
    for d, spec in zip(model.displays, declared):
        assert f'<g class="display" data-title="{d.title}">' in svg
        if isinstance(d, Track):
            who = game.evaluate(spec["track"]["of"])
            assert [e for e, _ in d.markers] == who
            for e, at in d.markers:
                value = game.evaluate(spec["track"]["at"].replace("e.", f"{e}."))
                assert (at == value) if spec["track"].get("spaces") else d.spaces[at] == str(value)
                assert 0 <= at < len(d.spaces)
            assert svg.count('class="marker"') >= len(d.markers)
        elif isinstance(d, Supply):
            for e, left in d.rows:
                assert left == game.evaluate(spec["supply"]["count"].replace("e.", f"{e}."))
            assert svg.count('class="supply-piece"') >= sum(left for _, left in d.rows)
        else:
            assert isinstance(d, Decision)
            assert d.who is None if game.is_over else d.who[0] == game.current_player


def test_the_auction_in_progress_shows_the_price_and_who_may_still_act():
    from railrules.tools.pictures.board_model import Decision
    game = load_ruleset("chicago_express").new_game(3, 1)
    game.apply("bid 7")
    decision = next(d for d in board_model(game).displays if isinstance(d, Decision))
    text = "\n".join(decision.lines)
    assert "auction.rules:" in text and "high bid 7 by Player 1" in text   # the rule's show line
    assert "in turn" in text and decision.who[0] == game.current_player != "p1"
    secret = load_ruleset("stephensons_rocket").new_game(3, 1)   # values may hold a secret
    decision = next(d for d in board_model(secret).displays if isinstance(d, Decision))
    assert len(decision.lines) <= 1 and decision.who[0] == secret.current_player


def test_the_ids_a_table_gives_get_a_key_of_their_names():
    game = _played("german_railways")
    model = board_model(game)
    title, header, rows, key = next(p for p in model.panels if p[0] == "players")
    held = {m for row in rows for m in re.findall(r"([A-Z]+):\d", row[header.index("shares")])}
    names = game.state["entities"]
    assert held and dict(key) == {e: names[e]["name"] for e in held}
    svg = to_svg(model)
    assert {e: t for e, t in re.findall(r'<text class="key" data-id="([^"]+)"[^>]*>([^<]+)</text>', svg)} == \
        {e: f"{e}: {names[e]['name']}" for e in held}
