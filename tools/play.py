"""`railrules play`: a person plays one seat at the terminal, bots play the others."""
from __future__ import annotations

import json
import sys
from pathlib import Path

from interpreter import Game, IllegalAction
from interpreter.errors import RailrulesError

from .bots import BOTS
from .summary import standings, summary

HELP = """Type the number of an action, or its label (e.g. 'bid 8').
Other commands: state (the summary), map (the board), log (recent events), save FILE, help,
quit (saves first)."""


def _print_new(game: Game, shown: list[int], out) -> None:
    for line in game.messages[shown[0]:]:
        print(f"  {line}", file=out)
    shown[0] = len(game.messages)


def play_bots(game: Game, bot_name: str, seed: int, out=None) -> None:
    out = out or sys.stdout
    bot = BOTS[bot_name](seed)
    shown = [0]
    while not game.is_over:
        action = bot.choose(game)
        player = game.state["entities"][game.current_player]["name"]
        game.apply(action, safe=False)
        print(f"{game.decisions:>5} {player}: {action.label}", file=out)
        _print_new(game, shown, out)
    print(standings(game), file=out)


def play_human(game: Game, seat: str, bot_name: str, seed: int, save_path: Path,
               inp=None, out=None) -> int:
    inp, out = inp or sys.stdin, out or sys.stdout
    bot = BOTS[bot_name](seed)
    shown = [0]
    print(HELP, file=out)
    while not game.is_over:
        _print_new(game, shown, out)
        if game.current_player != seat:
            action = bot.choose(game)
            name = game.state["entities"][game.current_player]["name"]
            game.apply(action)
            print(f"{name}: {action.label}", file=out)
            continue
        actions = game.legal_actions()
        print("\n" + summary(game, seat), file=out)
        print(f"\nYour choice ({game.state['entities'][seat]['name']}):", file=out)
        for i, a in enumerate(actions, 1):
            print(f"  {i:>3}. {a.label}", file=out)
        try:
            print("> ", end="", file=out, flush=True)
            line = inp.readline()
            if not line:
                raise EOFError
        except (EOFError, KeyboardInterrupt):
            save(game, save_path)
            print(f"\nsaved to {save_path}; continue with: railrules play --resume {save_path}", file=out)
            return 0
        text = line.strip()
        if not text:
            continue
        if text in ("help", "?"):
            print(HELP, file=out)
            continue
        if text == "state":
            print(summary(game, seat), file=out)
            continue
        if text == "map":
            from .board_view import board_picture
            print(board_picture(game), file=out)
            continue
        if text == "log":
            print("\n".join(game.messages[-20:]) or "(nothing yet)", file=out)
            continue
        if text.startswith("save"):
            target = Path(text[4:].strip() or save_path)
            save(game, target)
            print(f"saved to {target}", file=out)
            continue
        if text in ("quit", "exit"):
            save(game, save_path)
            print(f"saved to {save_path}; continue with: railrules play --resume {save_path}", file=out)
            return 0
        if text.isdigit():
            k = int(text)
            if not 1 <= k <= len(actions):
                print(f"choose a number from 1 to {len(actions)}", file=out)
                continue
            choice = actions[k - 1]
        else:
            choice = text
        try:
            game.apply(choice)
        except IllegalAction as err:
            print(f"not allowed: {err.diagnostics[0].message}", file=out)
    _print_new(game, shown, out)
    print(standings(game), file=out)
    return 0


def save(game: Game, path: Path) -> None:
    """A save holds the state and the seat and bot settings of this session."""
    path.write_text(json.dumps({"format": "railrules-save-1", "ruleset": game.ruleset.name,
                                "variant": game.ruleset.variant, "state": json.loads(game.to_json())}))


def load_save(path: Path):
    """(ruleset name, variant, state JSON text) of a save file; raises BadSave."""
    from interpreter.errors import BadSave, Diagnostic, Pos
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("format") != "railrules-save-1":
            raise ValueError("not a railrules save file")
        return data["ruleset"], data.get("variant"), json.dumps(data["state"])
    except (OSError, ValueError, KeyError, AttributeError, UnicodeDecodeError) as err:
        raise BadSave(Diagnostic("RR304", f"cannot use the save: {err}", Pos(str(path), 1, 1))) from None


__all__ = ["play_bots", "play_human", "save", "load_save", "RailrulesError"]
