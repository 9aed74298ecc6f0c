"""Bytecodes and Python calls a decision: a figure of the engine's work that does not depend on
the machine's load (a busy or shared machine moves time figures by ±50 %; these do not move).

Random games (game i: seed + i, uniform choices drawn from random.Random(seed + i)) are played
under a trace that counts every bytecode executed (CPython's opcode events) and every Python
call; the counts are divided by the decisions. Generated code (the rules, compiled) is counted
apart from the engine and builtins around it. The ruleset is loaded afresh and the same games
are played once untraced first, so that code written lazily and what the engine keeps between
decisions are there as in a long run, and the cyclic garbage collector is off while counting
(a library's gc callback runs Python code at each collection), so the counts are exact: the
same commit, games and seed always give the same figures. Tracing makes play about 50 times
slower, so a few games are enough.
"""
from __future__ import annotations

import gc
import random
import sys
from collections.abc import Callable

from railrules.interpreter import load_ruleset

GENERATED = ("<rules ", "<unit ")   # the file names of generated code objects (compile/sources.py)


def tally(run: Callable[[], object]) -> dict:
    """{'all': bytecodes, 'generated': those of generated code, 'calls': Python calls} of run()."""
    counts = {"all": 0, "generated": 0, "calls": 0}

    def on_call(frame, event, arg):
        counts["calls"] += 1
        frame.f_trace_opcodes = True
        generated = frame.f_code.co_filename.startswith(GENERATED)

        def on_event(frame, event, arg):
            if event == "opcode":
                counts["all"] += 1
                if generated:
                    counts["generated"] += 1
            return on_event
        return on_event

    gc.collect()        # a collection mid-run finalizes what it finds (a generator's close
    enabled = gc.isenabled()    # runs Python code), at a moment that depends on the history of
    gc.disable()        # the process: off while counting, so the count does not depend on it
    sys.settrace(on_call)
    try:
        run()
    finally:
        sys.settrace(None)
        if enabled:
            gc.enable()
    return counts


def count(name: str, players: int, games: int, seed: int) -> dict:
    """{'bytecodes': all a decision, 'generated': those of generated code, 'calls': Python
    calls a decision, 'games': games, 'decisions': their decisions} of ruleset ``name``."""
    ruleset = load_ruleset(name)
    decisions = [0]

    def play():
        for i in range(games):
            game = ruleset.new_game(players, seed + i, undo=False)
            rng = random.Random(seed + i)
            while not game.is_over:
                game.apply(rng.choice(game.legal_actions()))
            decisions[0] += game.decisions
    play()
    decisions[0] = 0
    counts = tally(play)
    per = max(decisions[0], 1)
    return {"bytecodes": round(counts["all"] / per), "generated": round(counts["generated"] / per),
            "calls": round(counts["calls"] / per, 1), "games": games, "decisions": decisions[0]}
