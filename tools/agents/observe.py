"""`railrules observe`: the layout of the observation vector the agent adapters give agents
(made by :mod:`railrules.tools.common.encoding`)."""
from __future__ import annotations

import json

from railrules.tools.common.encoding import encoding


def add_arguments(parser) -> None:
    parser.description = (
        "The layout of the observation vector of the PettingZoo and OpenSpiel adapters for a ruleset "
        "and player count: each slice (its numbers, from 0), the field or variable it holds and how "
        "it encodes it; made by the code that builds the vector. Needs no agent library.")
    parser.add_ruleset()
    parser.add_players()
    parser.add_argument("--json", action="store_true", help="print exactly one JSON object")


def run(args) -> int:
    from railrules.interpreter import load_ruleset

    from railrules.tools.common import verbs
    from railrules.tools.common.tables import Table as Shown, show
    ruleset = load_ruleset(args.ruleset, args.variant)
    players = verbs.players(ruleset, args.players)
    code = encoding(ruleset, players)
    slices = code.slices()
    if args.json:
        print(json.dumps({"ruleset": ruleset.name, "variant": ruleset.variant, "players": players,
                          "width": code.width, "actions": code.size,
                          "slices": [vars(s) for s in slices]}))
        return verbs.EXIT_OK
    table = Shown(f"{ruleset.name}, {players} players: the observation vector ({code.width} numbers, "
                  f"{len(slices)} slices); {code.size} actions",
                  ["numbers", "what", "encodes"], right=(0,))
    table.rows = [[f"{s.start}" if s.stop == s.start + 1 else f"{s.start}..{s.stop - 1}", s.name, s.encodes]
                  for s in slices]
    table.notes = ["the observer's own view: other players' secret fields read hidden; fields no "
                   "sampled game changed are left out (tools/common/encoding.py)"]
    show(table)
    return verbs.EXIT_OK
