"""Sampled play checks (``railrules lint --play N``): run seeded random games and report
dead ends, step-budget overruns, quantities that were declared conserved but changed, and
options or end conditions that no game reached."""
from __future__ import annotations

import random

from ..dsl import nodes as n
from ..errors import Diagnostic, RailrulesError
from ..runtime.code import Choice


def play_check(ruleset, games: int, seed: int = 1) -> list[Diagnostic]:
    diags: list[Diagnostic] = []
    legal_seen: set = set()
    ends_seen: set = set()
    counts = range(ruleset.players_min, ruleset.players_max + 1)
    for i in range(games):
        players = counts[i % len(counts)]
        rng = random.Random(seed + i)
        try:
            game = ruleset.new_game(players, seed + i)
            start = _conserved(ruleset, game)
            while not game.is_over:
                actions = game.legal_actions()
                instr, _ = game.machine._choice()
                legal_seen.update((id(instr), a.name) for a in actions)
                action = rng.choice(actions)
                game.apply(action)
                now = _conserved(ruleset, game)
                for name in start:
                    if now[name] != start[name]:
                        diags.append(Diagnostic(
                            "RR308", f"'{name}' went from {start[name]} to {now[name]} at decision "
                            f"{game.decisions} ({action.label}) of game seed {seed + i}, {players} players",
                            ruleset.meta_places["components"].of("conserve", name)))
                        start = now
                        break
            ends_seen.update(game.result["reasons"])
        except RailrulesError as err:
            d = err.diagnostics[0]
            diags.append(Diagnostic(d.code, f"{d.message} (game seed {seed + i}, {players} players)",
                                    d.pos, d.severity, d.hint))
    for code in ruleset.program.codes.values():
        for instr in code.instrs:
            if isinstance(instr, Choice):
                for spec in instr.options:
                    if (id(instr), spec.name) not in legal_seen:
                        diags.append(Diagnostic("RR309", f"option '{spec.name}' was never legal in "
                                                f"{games} sampled games", spec.pos, "warning"))
    for d in ruleset.definitions:
        if isinstance(d, n.EndDef) and d.name not in ends_seen:
            diags.append(Diagnostic("RR309", f"end condition '{d.name}' never ended any of {games} "
                                    "sampled games", d.pos, "warning"))
    return _dedupe(diags)


def _conserved(ruleset, game) -> dict:
    return {name: fn(game.machine, {}) for name, fn in ruleset.conserve}


def _dedupe(diags):
    seen, out = set(), []
    for d in diags:
        key = (d.code, d.pos, d.message if d.code != "RR308" else "")
        if key not in seen:
            seen.add(key)
            out.append(d)
    return out
