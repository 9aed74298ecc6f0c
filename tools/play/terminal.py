"""`railrules play`: a person plays one seat at the terminal, bots play the others."""
from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

from railrules.interpreter import Game, IllegalAction
from railrules.interpreter.engine import secrecy
from railrules.interpreter.errors import RailrulesError
from railrules.interpreter.paths import in_ruleset
from railrules.interpreter.saves import game_of_save, read_save, save_text

from railrules.tools.common import outputs, verbs
from railrules.tools.pictures.board_model import entity_colour, in_progress
from railrules.tools.bots.players import seat_bots
from railrules.tools.common.outputs import OutputError, OutputExists, check_path
from railrules.tools.play.summary import standings, summary

HELP = """Type the number of an action, or its label (e.g. 'bid 8'; capitals or not). A range such as
'bid 7-40: type bid N' takes any N in it (its number takes the first).
Other commands: state (the whole summary; after each turn only what changed is shown), map (the
board), log (recent events), why LABEL (why an action is not allowed, and the rule that says so),
undo (take back your last decision and the bots' moves after it; when every other seat is a
bot), save FILE, help, quit (saves first)."""


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


def said(game: Game, action, seat: str | None = None) -> str:
    """How an action about to be applied reads to ``seat`` (None: to everyone): "commits" for a
    commitment in a round of secret choices (revealed with the others' in the log), else its
    label as the seat may read it (:meth:`Game.label_for`: another seat's secret hidden)."""
    if game.committing:
        return "commits"
    return action.label if seat is None else game.label_for(action, game.current_player, seat)


def play_bots(game: Game, bots: str, seed: int, out=None) -> None:
    out = out or sys.stdout
    seats = seat_bots(bots, game.players, seed)
    shown = [0]
    while not game.is_over:
        action = seats[game.current_player].choose(game)
        player = game.state["entities"][game.current_player]["name"]
        label = said(game, action)
        game.apply(action)
        print(f"{game.decisions:>5} {player}: {label}", file=out)
        _print_new(game, shown, out)
    print(standings(game), file=out)


def paused_in(game: Game) -> str:
    """The rule waiting for this choice and its values (an auction's current bid and who is still
    in...), from the innermost paused frame; nothing for a ruleset with secret fields, whose
    rules' values may hold a secret."""
    lines, _ = in_progress(game)
    return f"{lines[0]}: " + "; ".join(lines[1:]) if len(lines) > 1 else ""


def option_cost(game: Game, action) -> str:
    """What the action costs, as the ruleset's ``costs: {OPTION: EXPR}`` in ruleset.yaml says (an
    expression over the option's parameters and the names the option sees): '  costs 6'."""
    text = (game.ruleset.meta.get("costs") or {}).get(action.name)
    if not text:
        return ""
    if not secrecy.shows(game.ruleset.secrecy, "costs", action.name):
        return f"  costs {secrecy.HIDDEN}"
    scope = game.option_scope(action)
    try:
        value = game.compile_expression(text, tuple(scope))(**scope)
    except RailrulesError as err:
        return f"  (cost: {err.diagnostics[0].message})"
    return f"  costs {game.machine.show(value)}"


def option_names(game: Game, action) -> str:
    """The display names of the entities an action names by id, when they differ: '  (Red Line)'."""
    entities = game.state["entities"]
    names = [str(entities[x]["name"]) for x in action.args
             if isinstance(x, str) and x in entities and entities[x].get("name") not in (None, x)]
    return f"  ({', '.join(names)})" if names else ""


FOLD = 4   # this many bids or more in a row are one line: 'bid 7-40: type bid N'


def option_lines(game: Game, actions: list) -> list:
    """The choices as the prompt lists them: (line, the action its number takes). A run of the
    same option over whole numbers in steps (every bid from 7 to 40) is one line, 'bid 7–40:
    type bid N'; each option's first line ends with what it does (the ruleset's ``render:
    {options: {NAME: TEXT}}``)."""
    described = (game.ruleset.meta.get("render") or {}).get("options") or {}
    out, i, told = [], 0, set()
    while i < len(actions):
        a, j = actions[i], _run_end(actions, i)
        what = f"  — {described[a.name]}" if a.name in described and a.name not in told else ""
        told.add(a.name)
        if j - i >= FOLD:
            step = actions[i + 1].args[0] - a.args[0]
            by = f" by {step}" if step != 1 else ""
            out.append((f"{a.name} {a.args[0]}–{actions[j - 1].args[0]}{by}: type {a.name} N{what}", a))
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


def as_listed(game: Game, text: str) -> str:
    """``text`` with the capitals of the game's own names: the option's ('BID 8': 'bid 8') and
    the entities' ('hex home': 'hex Home', 'hex r2': 'hex R2'); a word with no such name
    stays as typed."""
    first, *words = text.split() or [""]
    options = {a.name.lower(): a.name for a in game.legal_actions()}
    names: dict[str, list[str]] = {}
    for n in game.ruleset.names.entities:
        names.setdefault(n.lower(), []).append(n)
    fixed = [w if w in game.ruleset.names.entities or len(names.get(w.lower(), [])) != 1
             else names[w.lower()][0] for w in words]
    return " ".join([options.get(first.lower(), first), *fixed])


def explain(game: Game, label: str) -> str:
    """Why the action ``label`` is or is not allowed now, with the place of the rule that decides;
    a name that is nothing in the game (a hex not on the board) is said to be so."""
    if not label:
        return "why what? type: why LABEL (an action as the list shows it, e.g. why bid 8)"
    label = as_listed(game, label)
    unknown = _unknown_name(game, label)
    if unknown:
        return unknown
    try:
        action = game.to_action(label)
    except IllegalAction as err:
        return err.diagnostics[0].message
    if action in game.legal_actions():
        return f"'{action.label}' is allowed now"
    reason, pos = game.machine.why_illegal(action)
    where = f" ({in_ruleset(pos.file, pos.line)})" if pos is not None and pos.line else ""
    return f"'{action.label}' is not allowed: {reason}{where}"


def _unknown_name(game: Game, label: str) -> str:
    """'there is nothing named ZZ among the hexes' when a word of ``label`` names no entity while
    the option it is given to takes entities; '' otherwise."""
    name, *words = label.split()
    names = game.ruleset.names.entities
    entities = game.state["entities"]
    choices = sorted({a.name for a in game.legal_actions()})
    if not words and name not in choices and name not in names:   # 'why ZZ'
        return (f"'{name}' is not a choice now (the choices are: {', '.join(choices)}) and nothing in "
                f"this game is named {name}")
    takes = {entities[x]["kind"] for a in game.legal_actions() if a.name == name
             for x in a.args if isinstance(x, str) and x in entities}
    for w in words:
        if takes and not w.lstrip("-").isdigit() and w not in ("true", "false", "none") and w not in names:
            return f"'{label}' is not allowed: there is nothing named {w} among the {' or '.join(sorted(takes))}"
    return ""


def take_back(game: Game, mine: list, shown: list) -> str:
    """Undo this seat's last decision and everything after it: the bots' moves (in `play`
    every other seat is a bot, so nobody else's decision is taken back)."""
    back = game.undoable - mine.pop()
    game.undo(back)
    shown[0] = min(shown[0], len(game.messages))
    return f"took back {back} decision(s): your turn again"


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
               inp=None, out=None, force: bool = False) -> int:
    """Play ``seat`` at the terminal. Quitting, end of input and Ctrl-C save to ``save_path``
    (which the caller has checked it may write); ``save FILE`` writes elsewhere, but never over
    an existing file this session did not write, unless ``force``."""
    inp, out = inp or sys.stdin, out or sys.stdout
    seats = seat_bots(bots, game.players, seed)
    shown = [0]
    ours = {save_path.resolve()}
    mine: list[int] = []      # how many actions could be undone before each of this seat's decisions
    last_summary: list = []   # the summary lines shown last time (only the changes are shown)
    paint = _painter(out)
    print(HELP, file=out)
    while not game.is_over:
        _print_new(game, shown, out, seat)
        if game.current_player != seat:
            action = seats[game.current_player].choose(game)
            name = game.state["entities"][game.current_player]["name"]
            colour = entity_colour(game, game.current_player)
            label = said(game, action, seat)
            game.apply(action)
            print(paint(f"{name}: {label}", colour), file=out)   # in the player's colour
            continue
        actions = game.legal_actions()
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
            print(HELP, file=out)
            continue
        if text == "state":
            print(summary(game, seat), file=out)
            continue
        if text == "why" or text.startswith("why "):
            print(explain(game, text[3:].strip()), file=out)
            continue
        if text == "undo":
            if not mine:
                print("nothing to undo: you have made no decision since the game was started or "
                      "loaded", file=out)
                continue
            print(take_back(game, mine, shown), file=out)
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
            before = game.undoable
            game.apply(choice)
            mine.append(before)
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


def save(game: Game, path: Path, new: bool = False) -> str:
    """Write a save whole or not at all (:mod:`.outputs`), so that a failed save never destroys
    an older one; ``new``: only if no file is at ``path`` yet. Returns the text written; raises
    OutputError."""
    text = save_text(game)
    (outputs.create if new else outputs.write)(path, text)
    return text


def save_on_leaving(game: Game, path: Path, out) -> int:
    """Save before leaving; when ``path`` cannot be written, save to a new file in the working
    folder or the temporary folder instead, so that the game is never lost."""
    import random
    tries = [path] + [Path(folder) / f"railrules-{game.ruleset.name}-{random.randrange(10**6):06d}.save.json"
                      for folder in (".", tempfile.gettempdir())]
    for target in tries:
        try:
            save(game, target, new=target is not path)
        except OutputError as err:
            print(f"cannot save to {target}: {err.why}", file=out)
            continue
        print(f"saved to {target}; continue with: railrules play --resume {target}", file=out)
        return 0
    print("the game could not be saved anywhere", file=out)
    return 1


def _numbered(path: Path, n: int) -> Path:
    """NAME-n.save.json for NAME.save.json (NAME-n.EXT for another name)."""
    if n < 2:
        return path
    stem = path.name[:-len(".save.json")] if path.name.endswith(".save.json") else path.stem
    suffix = ".save.json" if path.name.endswith(".save.json") else path.suffix
    return path.with_name(f"{stem}-{n}{suffix}")


def free_save_path(path: Path) -> Path:
    """``path``, or the first of NAME-2.save.json, NAME-3... that does not exist yet."""
    n = 1
    while os.path.lexists(_numbered(path, n)):
        n += 1
    return _numbered(path, n)


def take_save(game: Game, save: Path | None, resume: Path | None, there: bool, default: Path) -> Path:
    """The file a session saves its game to, taken now: created holding the game as it starts,
    exclusively, so that a second game given the same path is refused before it starts
    (``default``: the first free NAME, NAME-2... when no --save is given). Not taken: the
    resumed file, the game's own, or a file that was ``there`` at the check (--force replaces
    it)."""
    from railrules.tools.common import verbs
    path = save or resume
    if path is not None and (path == resume or there):
        return path
    try:
        return reserve_save(game, path or default, numbered=path is None)
    except OutputError as err:
        raise verbs.Usage(f"--save {err.path}: {err.why}") from None


def reserve_save(game: Game, path: Path, numbered: bool = False) -> Path:
    """Take ``path`` for this session's game when play starts: it is created holding the game
    as it starts (exclusive create), so that a second `railrules play` given the same path is
    refused now, not after both games were played. ``numbered``: when the name is taken, the
    next free NAME-2.save.json, NAME-3... is taken instead. Returns the path taken; raises
    OutputError."""
    n = 1
    while True:
        target = _numbered(path, n)
        try:
            save(game, target, new=True)
            return target
        except OutputError:
            if not numbered or not os.path.lexists(target):
                raise
        n += 1


def load_save(path: Path, ruleset_path: str | None = None, set_up: bool = False):
    """The game of a save file (:mod:`railrules.interpreter.saves`), with its ruleset: ``ruleset_path`` if given, else the folder the
    save names if it is still there, else the shipped ruleset of its name. Raises BadSave, saying
    which rules changed if the ruleset is no longer the one the game was saved with. Its history
    is replayed to check it; a save that says its position was set up outside its history
    (``"replayable": false``) cannot be checked so, and is loaded only with ``set_up`` (by a
    caller who trusts the file: anyone can write that word into an edited save)."""
    from railrules.interpreter.errors import BadSave, Diagnostic, Pos
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise BadSave(Diagnostic("RR304", f"cannot use the save: {err}", Pos(str(path), 1, 1))) from None
    return load_save_text(text, str(path), ruleset_path, set_up)


def load_save_text(text: str, where: str, ruleset_path: str | None = None, set_up: bool = False):
    """The game of a save file's text (``where``: what to call it in messages); the ruleset as
    :func:`load_save` finds it; ``set_up`` as there."""
    saved = read_save(text, where)
    return game_of_save(saved, find_ruleset(saved.ruleset, saved.path, saved.variant, ruleset_path), where,
                        set_up)


def find_ruleset(name: str, saved_in, variant, given: str | None = None):
    """The ruleset a save or log was made with: the one ``given``, else the folder it names if
    that folder still holds a ruleset of its name, else the shipped ruleset of its name."""
    from railrules.interpreter import load_ruleset
    if given:
        return load_ruleset(given, variant)
    if isinstance(saved_in, str) and (Path(saved_in) / "ruleset.yaml").is_file():
        ruleset = load_ruleset(saved_in, variant)
        if ruleset.name == name:
            return ruleset
    return load_ruleset(name, variant)


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


def open_game(args, verb: str, players: int | None = None, seed: int = 1) -> Game | None:
    """The game a verb works on: a saved one (--resume FILE) or a new one of the ruleset. Only
    ``render`` draws a save set up outside its history: it continues no game."""
    from railrules.interpreter import load_ruleset
    if args.resume:  # a ruleset named beside --resume is where the save's rules are
        return load_save(Path(args.resume), args.ruleset, set_up=verb == "render")
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
        play_bots(game, args.bots, seed)
    else:
        seat = f"p{args.seat or 1}"
        if seat not in game.players:
            raise verbs.Usage(f"--seat must be 1 to {len(game.players)}")
        save_path = take_save(game, save_path, resume, there, Path(f"{ruleset.name}-seed{seed}.save.json"))
        try:
            code = play_human(game, seat, args.bots or "random", seed, save_path, force=args.force)
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


__all__ = ["play_bots", "play_human", "save", "load_save", "save_on_leaving", "free_save_path",
           "reserve_save", "take_save", "RailrulesError", "open_game", "add_arguments", "run"]
