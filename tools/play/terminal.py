"""`railrules play`: a person plays one seat at the terminal, bots play the others."""
from __future__ import annotations

import json
import sys
from pathlib import Path

from railrules.interpreter import Game, IllegalAction
from railrules.interpreter.saves import load_save

from railrules.tools.common import outputs, verbs, words
from railrules.tools.common.outputs import OutputError, OutputExists, check_path
from railrules.tools.pictures.board_model import entity_colour
from railrules.tools.play.summary import standings, summary
from railrules.tools.play.table import (Table, add_bot_seconds, as_listed, explain, option_cost, option_names,
                                        paused_in, save, save_on_leaving, take_save)

HELP = """Type the number of an action, or its label (e.g. '{example}'; capitals or not). A line that
stands for a range of numbers ('7–40: type ... N') takes any N in it (its number takes the first).
Other commands: state (the whole summary; after each turn only what changed is shown), map (the
board), log (recent events), why LABEL (why an action is not allowed, and the rule that says so),
undo (take back your last decision and the bots' moves after it; when every other seat is a
bot), save FILE, help, quit (saves first)."""


def help_text(game) -> str:
    """:data:`HELP` with an example of the game's own: a label of the legal actions (the person's:
    it is shown at their turn)."""
    return HELP.format(example=words.example(game))


def _painter(out):
    """``paint(text, style)``: the text in a colour on a terminal with rich installed (pip install
    ".[terminal]"), else as it is (pipes, files and logs stay plain)."""
    try:
        if not out.isatty():
            raise ImportError
        from rich.console import Console
        from rich.text import Text
    except (ImportError, AttributeError, ValueError):
        return lambda text, style: text
    console = Console(file=out, force_terminal=True, highlight=False)

    def paint(text: str, style: str) -> str:
        with console.capture() as captured:
            console.print(Text(text, style=style), end="", soft_wrap=True)
        return captured.get()
    return paint


def _print_new(game: Game, shown: list[int], out, seat: str | None = None) -> None:
    """The lines logged since last time; a seat reads only what it may see."""
    for line in (game.messages[shown[0]:] if seat is None else game.messages_for(seat, shown[0])):
        print(f"  {line}", file=out)
    shown[0] = len(game.messages)


def play_bots(game: Game, bots: str, seed: int, out=None, bot_seconds: float | None = None) -> None:
    out = out or sys.stdout
    table = Table(game, [], bots, seed, bot_seconds=bot_seconds, say=lambda text: print(text, file=out))
    shown = [0]
    while not game.is_over:
        move = table.bot_move()
        print(f"{game.decisions:>5} {move['by']}: {move['label']}", file=out)
        _print_new(game, shown, out)
    print(standings(game), file=out)


FOLD = 4   # this many bids or more in a row are one line: 'bid 7-40: type bid N'


def option_lines(game: Game, actions: list) -> list:
    """The choices as the prompt lists them: (line, the action its number takes). A run of the
    same option over whole numbers in steps (every bid from 7 to 40) is one line, 'bid 7–40:
    type bid N (N: the amount Player 1 bids)', its values said in the game's words; each option's
    first line ends with what it does (the ruleset's ``render: {options: {NAME: TEXT}}``)."""
    described = (game.ruleset.meta.get("render") or {}).get("options") or {}
    out, i, told = [], 0, set()
    while i < len(actions):
        a, j = actions[i], _run_end(actions, i)
        what = f"  — {described[a.name]}" if a.name in described and a.name not in told else ""
        told.add(a.name)
        if j - i >= FOLD:
            step = actions[i + 1].args[0] - a.args[0]
            by = f" by {step}" if step != 1 else ""
            about = game.described(a)[0]
            said = f" (N: {about})" if about else ""
            out.append((f"{a.name} {a.args[0]}–{actions[j - 1].args[0]}{by}: type {a.name} N{said}{what}", a))
        else:
            out += [(f"{b.label}{option_names(game, b)}{option_cost(game, b)}{what if k == 0 else ''}", b)
                    for k, b in enumerate(actions[i:j])]
        i = j
    return out


def _run_end(actions: list, i: int) -> int:
    """Where the run starting at ``i`` ends: the same option with one whole number, in steps."""
    def number(a):
        return len(a.args) == 1 and isinstance(a.args[0], int) and not isinstance(a.args[0], bool)
    a, j = actions[i], i + 1
    if not number(a):
        return j
    while j < len(actions) and actions[j].name == a.name and number(actions[j]) and \
            actions[j].args[0] - actions[j - 1].args[0] == actions[i + 1].args[0] - a.args[0] > 0:
        j += 1
    return j


COMMANDS = ("help", "state", "why", "undo", "map", "log", "save", "quit", "exit")


def _command_case(text: str) -> str:
    """The text with its first word in small letters when it is a command ('Why HEX a2')."""
    first, _, rest = text.partition(" ")
    return f"{first.lower()} {rest}".strip() if first.lower() in COMMANDS else text


def read_line(inp) -> str:
    """One line typed at the prompt. Bytes are decoded here (not by the terminal's stream), so
    a line that is not UTF-8 is refused alone: the lines after it still arrive."""
    raw = getattr(inp, "buffer", None)
    if raw is None:
        return inp.readline()
    data = raw.readline()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise NotText from None


class NotText(Exception):
    """The line typed is not UTF-8 text."""


def play_human(game: Game, seat: str, bots: str, seed: int, save_path: Path,
               inp=None, out=None, force: bool = False, bot_seconds: float | None = None) -> int:
    """Play ``seat`` at the terminal, at a :class:`.table.Table` where bots play the other
    seats. Quitting, end of input and Ctrl-C save to ``save_path`` (which the caller has checked
    it may write); ``save FILE`` writes elsewhere, but never over an existing file this session
    did not write, unless ``force``."""
    inp, out = inp or sys.stdin, out or sys.stdout
    table = Table(game, [seat], bots, seed, save_path, bot_seconds=bot_seconds,
                  say=lambda text: print(text, file=out))
    shown = [0]
    ours = {save_path.resolve()}
    last_summary: list = []   # the summary lines shown last time (only the changes are shown)
    paint = _painter(out)
    helped = False   # the help is shown at the person's first turn, with a label of theirs
    while not game.is_over:
        _print_new(game, shown, out, seat)
        if game.current_player != seat:
            colour = entity_colour(game, game.current_player)
            move = table.bot_move()
            seen = table.last_for(seat) or move   # as this seat may read it
            print(paint(f"{move['by']}: {seen['label']}", colour), file=out)   # in the player's colour
            continue
        actions = game.legal_actions()
        if not helped:
            print(help_text(game), file=out)
            helped = True
        now = summary(game, seat).splitlines()
        changed = [line for line in now if line not in last_summary]
        if not last_summary:
            print("\n" + "\n".join(now), file=out)
        elif changed:
            print("\n" + paint("changed:\n" + "\n".join(changed), "yellow"), file=out)
        last_summary = now
        where = paused_in(game)
        if where:
            print("\n" + paint(where, "cyan"), file=out)
        print("\n" + paint(f"Your choice ({game.state['entities'][seat]['name']}):",
                            f"bold {entity_colour(game, seat)}"), file=out)
        listed = option_lines(game, actions)
        for i, (line, _) in enumerate(listed, 1):
            print(f"  {i:>3}. {line}", file=out)
        try:
            print("> ", end="", file=out, flush=True)
            line = read_line(inp)
            if not line:
                raise EOFError
        except NotText:
            print("that line is not UTF-8 text: type plain text (is the terminal set to UTF-8?)",
                  file=out)
            continue
        except (EOFError, KeyboardInterrupt):
            print("", file=out)
            return save_on_leaving(game, save_path, out)
        text = _command_case(line.strip())
        if not text:
            continue
        if text in ("help", "?"):
            print(help_text(game), file=out)
            continue
        if text == "state":
            print(summary(game, seat), file=out)
            continue
        if text == "why" or text.startswith("why "):
            print(explain(game, text[3:].strip()), file=out)
            continue
        if text == "undo":
            if not table.mine:
                print("nothing to undo: you have made no decision since the game was started or "
                      "loaded", file=out)
                continue
            print(table.take_back(), file=out)
            shown[0] = min(shown[0], len(game.messages))
            last_summary = []  # show the whole state again
            continue
        if text == "map":
            from railrules.tools.pictures.board_view import board_picture
            print(board_picture(game, marks=True, paint=paint), file=out)
            continue
        if text == "log":
            print("\n".join(game.messages_for(seat)[-20:]) or "(nothing yet)", file=out)
            continue
        if text == "save" or text.startswith("save "):
            target = Path(text[4:].strip() or save_path).expanduser()
            mine_already = target.resolve() in ours
            try:
                check_path(target, force or mine_already)
                save(game, target, new=not (force or mine_already))
            except OutputExists:
                print(f"not saved: {target} already exists; give another name (to overwrite "
                      "files, start railrules play with --force)", file=out)
                continue
            except OutputError as err:
                print(f"not saved: {err}; the game goes on", file=out)
                continue
            ours.add(target.resolve())
            print(f"saved to {target}", file=out)
            continue
        if text in ("quit", "exit"):
            return save_on_leaving(game, save_path, out)
        if text.isdigit():
            k = int(text)
            if not 1 <= k <= len(listed):
                print(f"choose a number from 1 to {len(listed)}", file=out)
                continue
            choice = listed[k - 1][1]
        else:
            choice = as_listed(game, text)
        try:
            table.decide(seat, choice)
        except IllegalAction as err:
            print(paint(f"not allowed: {err.diagnostics[0].message} (try: why {text})", "red"), file=out)
    _print_new(game, shown, out, seat)
    print(standings(game, game.view(seat)), file=out)
    try:   # the file reserved for this game when it started holds how it ended
        save(game, save_path)
    except OutputError as err:
        print(f"the finished game is not saved: {err}", file=out)
        return 1
    print(f"the finished game is saved to {save_path}", file=out)
    return 0


# ------------------------------------------------------------------ the verb: railrules play
def add_arguments(parser) -> None:
    parser.description = ("Play one seat (numbered legal actions, a state summary) while bots "
                          "play the others; with --bots and no --seat, watch an all-bot game.")
    parser.add_one_game("continue a saved game")
    parser.add_players()
    parser.add_argument("--seed", type=int,
                        help="seed of the game's chance and of the bots (default: drawn at random and printed)")
    parser.add_bots("--bots", help="the bots of the other seats (default random); alone it means an "
                    "all-bot game.")
    parser.add_argument("--seat", type=parser.count(1), help="your seat, 1 = first player (default 1)")
    parser.add_argument("--save", help="where quitting or end of input saves the game (default: "
                        "RULESET-seedN.save.json, or the --resume file)")
    parser.add_argument("--log", help="write the game log (for replay) here when the game ends")
    parser.add_argument("--force", action="store_true",
                        help="allow --save, --log and 'save FILE' to overwrite existing files")
    add_bot_seconds(parser, None)


def open_game(args, verb: str, players: int | None = None, seed: int = 1) -> Game | None:
    """The game a verb works on: a saved one (--resume FILE) or a new one of the ruleset. Only
    ``render`` draws a save set up outside its history: it continues no game."""
    from railrules.interpreter import load_ruleset
    if args.resume:  # a ruleset named beside --resume is where the save's rules are
        return load_save(Path(args.resume), args.ruleset, set_up=verb == "render",
                         tell=lambda text: print(text, file=sys.stderr))
    if not args.ruleset:
        print(f"railrules {verb}: give a ruleset, or --resume FILE", file=sys.stderr)
        return None
    ruleset = load_ruleset(args.ruleset, args.variant)
    return ruleset.new_game(verbs.players(ruleset, players), seed)


def run(args) -> int:
    import random
    resume = Path(args.resume) if args.resume else None
    log = Path(args.log) if args.log else None
    save_path = Path(args.save) if args.save else None
    verbs.check_output("--log", log, args.force)
    there = verbs.check_output("--save", save_path, args.force, mine=resume)
    drawn = args.seed is None and not resume
    seed = random.SystemRandom().randrange(1, 1_000_000) if drawn else args.seed
    game = open_game(args, "play", args.players, seed if seed is not None else 1)
    if game is None:
        return verbs.EXIT_USAGE
    ruleset = game.ruleset
    seed = game.state["seed"] if seed is None else seed    # a resumed game's bots: its own seed
    print(f"{ruleset.title}: {game.state['players']} players, seed {game.state['seed']}"
          + (f" (drawn at random: --seed {seed} plays this game again)" if drawn else ""))
    code = verbs.EXIT_OK
    if args.bots and not args.seat:
        play_bots(game, args.bots, seed, bot_seconds=args.bot_seconds)
    else:
        seat = f"p{args.seat or 1}"
        if seat not in game.players:
            raise verbs.Usage(f"--seat must be 1 to {len(game.players)}")
        save_path = take_save(game, save_path, resume, there)
        try:
            code = play_human(game, seat, args.bots or "random", seed, save_path, force=args.force,
                              bot_seconds=args.bot_seconds)
        except KeyboardInterrupt:
            code = save_on_leaving(game, save_path, sys.stdout)
    if log and game.is_over:
        try:
            outputs.write(log, json.dumps(game.log(), indent=1))
        except OutputError as err:    # it could be written when the game started
            print(f"railrules play: the log: {err}", file=sys.stderr)
            return verbs.EXIT_FAIL
        print(f"log written to {log}")
    return code


__all__ = ["play_bots", "play_human", "option_lines", "open_game", "add_arguments", "run"]
