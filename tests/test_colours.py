"""The colours of companies and players are the ruleset's (render: colours,
players), the same in `render`, `view` and the terminal, and stay apart: every pair drawn
together differs by a CIELAB distance (CIE 1976, D65) of at least 30, and of at least 15 as a
deuteranope or a protanope sees them (Machado, Oliveira and Fernandes 2009, severity 1, applied
to linear RGB); each differs as much from the map's ground (its most common hex colour) and
from the picture's white. Legends list every entity of the kinds drawn."""
from __future__ import annotations

import itertools
import json
import re

import numpy as np
import pytest

from collections import Counter

from railrules.interpreter import load_ruleset
from railrules.interpreter.paths import shipped_rulesets
from railrules.tools.pictures.board_model import board_model, entity_colour
from railrules.tools.pictures.board_view import board_picture
from railrules.tools.cli import main
from railrules.tools.pictures.svg_board import to_svg
from game_checks import played

MACHADO = {
    "deuteranopia": np.array([[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413],
                              [-0.011820, 0.042940, 0.968881]]),
    "protanopia": np.array([[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216],
                            [-0.003882, -0.048116, 1.051998]]),
}
SRGB_TO_XYZ = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]])
WHITE = np.array([0.95047, 1.0, 1.08883])


def linear(colour: str) -> np.ndarray:
    c = np.array([int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5)])
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def lab(rgb: np.ndarray) -> np.ndarray:
    xyz = SRGB_TO_XYZ @ np.clip(rgb, 0, 1) / WHITE
    f = np.where(xyz > (6 / 29) ** 3, np.cbrt(xyz), xyz / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def distance(a: str, b: str, vision: str | None = None) -> float:
    la, lb = linear(a), linear(b)
    if vision:
        la, lb = MACHADO[vision] @ la, MACHADO[vision] @ lb
    return float(np.linalg.norm(lab(la) - lab(lb)))


def test_the_colour_arithmetic_matches_published_values():
    # CIELAB of sRGB primaries (D65), as published (Lindbloom's calculator): red, green, blue
    assert lab(linear("#ff0000")) == pytest.approx([53.24, 80.09, 67.20], abs=0.05)
    assert lab(linear("#00ff00")) == pytest.approx([87.73, -86.18, 83.18], abs=0.05)
    assert lab(linear("#0000ff")) == pytest.approx([32.30, 79.19, -107.86], abs=0.05)
    # a deuteranope cannot tell red from green much better than by lightness; a protanope
    # sees red darkened: the simulations keep blue and yellow apart
    assert distance("#ff0000", "#00ff00", "deuteranopia") < 0.5 * distance("#ff0000", "#00ff00")
    assert distance("#0000ff", "#ffff00", "protanopia") > 80


def _played(name: str, players: int, actions: int = 300):
    return played(name, players, 4, actions)


def _apart(colours: dict, what: str) -> None:
    for (a, ca), (b, cb) in itertools.combinations(colours.items(), 2):
        assert distance(ca, cb) >= 30, f"{what}: {a} {ca} and {b} {cb} look alike"
        for vision in MACHADO:
            assert distance(ca, cb, vision) >= 15, f"{what}: {a} {ca} and {b} {cb} look alike with {vision}"


@pytest.mark.parametrize("name", shipped_rulesets())
def test_the_colours_drawn_together_stay_apart_for_colour_blind_eyes_too(name):
    ruleset = load_ruleset(name)
    game = _played(name, ruleset.players_max)
    model = board_model(game)
    drawn = {e: colour for e, (_, colour) in model.owners.items()}
    assert all(re.fullmatch(r"#[0-9a-f]{6}", c) for c in drawn.values()), drawn  # the ruleset's shades
    _apart(drawn, f"{name}'s board")
    seats = {p: entity_colour(game, p) for p in game.players}   # the terminal paints players
    _apart(seats, f"{name}'s players")


@pytest.mark.parametrize("name", shipped_rulesets())
def test_every_colour_stands_out_from_the_map_s_ground(name):
    ruleset = load_ruleset(name)
    game = _played(name, ruleset.players_max)
    model = board_model(game)
    ground = Counter(h.fill for h in model.hexes).most_common(1)[0][0]
    colours = {e: colour for e, (_, colour) in model.owners.items()} | \
        {p: entity_colour(game, p) for p in game.players}
    for e, colour in colours.items():
        _apart({e: colour, "the map's ground": ground}, name)
        _apart({e: colour, "the picture's white": "#ffffff"}, name)


@pytest.mark.parametrize("name", shipped_rulesets())
def test_the_legend_lists_every_entity_of_the_kinds_drawn(name):
    game = load_ruleset(name).new_game(3, 1)       # at the start: most have nothing drawn yet
    model = board_model(game)
    kinds = {game.state["entities"][e]["kind"] for e in model.owners}
    every = [e for k, ids in {**game.ruleset.kinds, **game.state["kinds"]}.items() if k in kinds for e in ids]
    assert sorted(model.owners) == sorted(every) and len(every) >= 4
    legend = re.findall(r'<g class="legend-entry" data-owner="([^"]+)"', to_svg(model))
    assert legend == list(model.owners)


def test_render_view_and_the_terminal_use_the_same_colours(tmp_path):
    log, page = tmp_path / "g.log", tmp_path / "g.html"
    assert main(["play", "chicago_express", "--bots", "random", "--players", "3", "--seed", "6",
                 "--log", str(log)]) == 0
    assert main(["view", str(log), "-o", str(page)]) == 0
    data = json.loads(re.search(r'<script id="game-data" type="application/json">(.*?)</script>',
                                page.read_text(encoding="utf-8"), re.S).group(1))
    game = _played("chicago_express", 3, 60)
    assert {e: c for e, _, c in data["owners"]} == {e: entity_colour(game, e) for e, _, _ in data["owners"]}
    painted = []
    board_picture(game, marks=True, paint=lambda text, colour: painted.append((text, colour)) or text)
    assert painted and {c for _, c in painted} <= {entity_colour(game, e) for e in board_model(game).owners}
    svg = to_svg(board_model(game))
    for e, (_, colour) in board_model(game).owners.items():
        assert re.search(rf'class="track-node" data-owner="{e}"[^>]*fill="{colour}"', svg) or \
            e not in {x for h in board_model(game).hexes for x in h.track}
