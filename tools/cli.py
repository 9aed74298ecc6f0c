"""The `railrules` command: the table of verbs, and the options several verbs share.

Each verb lives in its module (the table's second column), which owns its options,
``add_arguments(parser)``, and its work, ``run(args) -> int`` (load the input, call the library,
print). A verb's module is imported only when the verb is named on the command line, so
`railrules --help` loads none. The parser a verb is given (:class:`VerbParser`) adds the options
several verbs share, each defined once here. Shell completion (:mod:`.completion`) reads the
same parser; the commands page (tools/COMMANDS.md) is its help, written by `railrules __commands`.
"""
from __future__ import annotations

import argparse
import os
import sys
from importlib import import_module

EXIT_OK, EXIT_FAIL, EXIT_USAGE = 0, 1, 2

# name, module (under railrules.tools), the one line `railrules --help` shows
VERBS = (
    ("play", "play.terminal", "play a game at the terminal against bots, or watch bots play"),
    ("simulate", "lab.simulate", "run many bot games and report the figures"),
    ("compare", "lab.compare", "play the same seeded games under variants or changed constants and "
     "report what changed, with 95%% intervals"),
    ("tune", "lab.tune", "search constant values toward seat balance or a metric's target with "
     "paired games (needs pip install \".[tune]\")"),
    ("coverage", "lab.coverage", "which rules, actions, options, triggers and end conditions fire in "
     "many bot games, and how often"),
    ("tournament", "lab.tournament", "rank bots against each other: ratings with intervals, "
     "head-to-head win rates"),
    ("observe", "agents.observe", "list each slice of the observation vector agents are given, and "
     "what it encodes"),
    ("learn", "bots.learned", "learn an estimate for the bots by self-play (needs pip install "
     "\".[agents]\")"),
    ("lint", "author.lint", "check rulesets: YAML, schemas, rules language, names"),
    ("replay", "play.replay", "replay a game log; fail at the first divergence"),
    ("test", "author.scenario_report", "run the scenario tests kept under each ruleset's scenarios/"),
    ("bench", "lab.bench", "measure the engine: playouts/s, clone, apply, load, lint"),
    ("codes", "author.codes", "explain diagnostic codes: meaning, example, fix"),
    ("render", "play.render", "draw the board with its state, as text or as an SVG picture"),
    ("lsp", "author.lsp", "a language server for .rules files, over stdio (for editors)"),
    ("view", "play.viewer", "write one HTML page to step through a logged game"),
    ("serve", "play.serve", "play a game in the browser: people and bots in any mix"),
    ("doc", "author.doc", "print a ruleset's rules as Markdown, with their citations"),
    ("code", "author.generated", "print the Python the interpreter writes for a ruleset's rules"),
    ("new", "author.new", "write a new ruleset folder to edit (an overlay of a ruleset, a copy, or a template)"),
    ("list", "play.shelf", "list the shipped rulesets and their variants"),
    ("completion", "completion", "print a shell completion script (bash, zsh or fish)"),
)
MODULES = {name: module for name, module, _ in VERBS}


def verb_module(name: str):
    """The module of a verb of the table (imported now, if it was not)."""
    return import_module(f"railrules.tools.{MODULES[name]}")


# ------------------------------------------------------------------ the options several verbs share
def count(least: int):
    """An argparse type: a whole number of at least ``least``."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"'{text}' is not a whole number") from None
        if value < least:
            raise argparse.ArgumentTypeError(f"must be at least {least}, not {value}")
        return value
    parse.__name__ = "count"
    return parse


def _bots(text: str) -> str:
    """An argparse type: bot specs separated by commas, each one that makes a bot."""
    from railrules.tools.bots.players import BotSpecError, check_specs
    try:
        return check_specs(text)
    except BotSpecError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


class VerbParser(argparse.ArgumentParser):
    """The parser of one verb: argparse's, with the options several verbs share (the verb's
    module calls these where the option belongs among its own, which sets their order in the
    help) and the argparse types they use."""

    count = staticmethod(count)
    bots = staticmethod(_bots)
    VARIANT_HELP = ("a variant: the name of one in the ruleset's variants/ folder, or the path of a "
                    "variant file anywhere (a path ends in .yaml)")

    def parse_known_args(self, args=None, namespace=None):
        """argparse's, but a mistyped option is refused here with the verb's closest option:
        "unrecognized arguments: --slect (did you mean --select?)"."""
        import difflib
        namespace, extras = super().parse_known_args(args, namespace)
        options = [s for action in self._actions for s in action.option_strings if s.startswith("--")]
        for word in extras:
            close = difflib.get_close_matches(word.split("=")[0], options, n=1) if word.startswith("--") else []
            if close:
                self.error(f"unrecognized arguments: {' '.join(extras)} (did you mean {close[0]}?)")
        return namespace, extras

    def add_ruleset(self) -> None:
        """The ruleset a verb works on, and its variant."""
        self.add_argument("ruleset", help="a shipped ruleset's name (see: railrules list) or a ruleset folder")
        self.add_argument("--variant", help=self.VARIANT_HELP)

    def add_one_game(self, resume_help: str) -> None:
        """One game, new (a ruleset and its variant) or saved (--resume FILE)."""
        self.add_argument("ruleset", nargs="?", help="a shipped ruleset's name or a ruleset folder")
        self.add_argument("--variant", help=self.VARIANT_HELP)
        self.add_argument("--resume", help=resume_help)

    def add_players(self) -> None:
        self.add_argument("--players", type=count(1),
                          help="number of players (default 4, within the game's range)")

    def add_bots(self, *flags: str, help: str, **settings) -> None:
        """An option whose value is bot specs; the help ends with what the bots are."""
        from railrules.tools.bots.players import BOT_HELP
        settings.setdefault("metavar", "BOTS")
        self.add_argument(*flags, type=_bots, help=f"{help} {BOT_HELP}", **settings)

    def add_games(self, games: int, forced: bool = True) -> None:
        """The options of the verbs that play many bot games."""
        self.add_argument("--games", type=count(1), default=games, help=f"number of games (default {games})")
        self.add_argument("--seed", type=int, default=1, help="seed of the first game; game i uses seed+i")
        self.add_players()
        self.add_argument("--json", action="store_true", help="print exactly one JSON object")
        self.add_bots("--bots", "--bot", dest="bot", default="random", help="the bots (default random).")
        if forced:
            self.add_argument("--forced", action="store_true",
                              help="apply a decision with one legal action without asking the bot (it is "
                              "still a decision of the game, logged and replayed as any other)")

    def add_parallel(self) -> None:
        """Where the games are played: processes, a cluster, and a time limit."""
        self.add_argument("--jobs", type=count(1), default=1, help="worker processes (default 1); the "
                          "figures are the same for any number")
        self.add_argument("--cluster", metavar="ADDRESS",
                          help="play the games on a Dask cluster: its scheduler's address (tcp://host:8786), "
                          "or 'local' to start one on this machine; needs pip install \".[cluster]\"; the "
                          "figures are the same as with --jobs 1")
        self.add_argument("--time-limit", type=float, metavar="SECONDS",
                          help="stop after this long, as Ctrl-C does: the games finished are reported, "
                          "marked partial (exit 130)")


class _Version(argparse.Action):
    """--version: the installed version, looked up only when asked for."""

    def __call__(self, parser, namespace, values, option_string=None):
        from railrules.interpreter import __version__
        print(f"railrules {__version__}")
        parser.exit()


# ------------------------------------------------------------------ the parser
def build_parser(verbs=None) -> argparse.ArgumentParser:
    """The command's parser, with the options of ``verbs`` (default: every verb's); the others
    are listed, with their one line, but not loaded."""
    top = argparse.ArgumentParser(prog="railrules", description=(
        "Run, simulate and lint railway share games written as data (YAML + a rules language)."))
    top.add_argument("--version", action=_Version, nargs=0,
                     help="show program's version number and exit")
    sub = top.add_subparsers(dest="command", metavar="COMMAND", parser_class=VerbParser)
    for name, _, help in VERBS:
        parser = sub.add_parser(name, help=help)
        if verbs is None or name in verbs:
            verb_module(name).add_arguments(parser)
    return top


def _named_verb(words: list[str]) -> set:
    """The verb the words name (the first word that is not an option), if it is one."""
    first = next((w for w in words if not w.startswith("-")), None)
    return {first} & MODULES.keys()


def verb_parsers(parser: argparse.ArgumentParser) -> dict:
    """verb -> its parser, in the table's order."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


# ------------------------------------------------------------------ the commands page
PAGE = "COMMANDS.md"
PAGE_HEAD = """# The `railrules` command

Every verb: examples and what it does in detail (notes written by hand), then its full help as
`railrules VERB --help` prints it on a 100-column terminal. The help blocks are written from the
command's own parser by `railrules __commands`, which rewrites them in this file and keeps the
notes; a test keeps them in step. The README has one line per verb.
"""


class _PageFormatter(argparse.HelpFormatter):
    """The help as Python 3.11 writes it, 100 columns wide, whichever Python writes the page."""

    def __init__(self, prog: str) -> None:
        super().__init__(prog, width=98)

    def _format_action_invocation(self, action: argparse.Action) -> str:
        if not action.option_strings or action.nargs == 0:
            return super()._format_action_invocation(action)
        args = self._format_args(action, self._get_default_metavar_for_optional(action))
        return ", ".join(f"{option} {args}" for option in action.option_strings)


def commands_page(old: str = "") -> str:
    """The commands page: every verb's help, with the notes ``old`` (the page as it was) has
    between a verb's heading and its help."""
    notes = {}
    for section in old.split("\n## ")[1:]:
        heading, _, rest = section.partition("\n")
        notes[heading] = rest.split("```text\n")[0]
    top = build_parser()
    parts = [PAGE_HEAD]
    for parser in [top, *verb_parsers(top).values()]:
        parser.formatter_class = _PageFormatter
        heading = f"`{parser.prog}`"
        parts.append(f"## {heading}\n{notes.get(heading, chr(10))}```text\n{parser.format_help()}```\n")
    return "\n".join(parts)


def _write_commands_page() -> int:
    from pathlib import Path
    path = Path(__file__).with_name(PAGE)
    page = commands_page(path.read_text(encoding="utf-8") if path.exists() else "")
    path.write_text(page, encoding="utf-8")
    print(f"wrote {path}")
    return EXIT_OK


# ------------------------------------------------------------------ running a verb
def main(argv: list[str] | None = None) -> int:
    words = sys.argv[1:] if argv is None else argv
    if words[:1] == ["__complete"]:   # asked by the completion script: candidates, one a line
        from railrules.tools.completion import candidates
        print("\n".join(candidates(build_parser(_named_verb(words[1:-1])), words[1:])))
        return EXIT_OK
    if words[:1] == ["__commands"]:   # rewrite the commands page (tools/COMMANDS.md)
        return _write_commands_page()
    parser = build_parser(_named_verb(words))
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return EXIT_USAGE
    for stream in (sys.stdout, sys.stderr):   # a terminal that cannot show a character: '?'
        if hasattr(stream, "reconfigure"):
            try:
                stream.reconfigure(errors="replace")
            except (ValueError, OSError):
                pass
    return _run(args)


def _run(args) -> int:
    """Run the verb parsed; every failure becomes a message and an exit code, never a traceback."""
    from railrules.interpreter.errors import RailrulesError

    from railrules.tools.common import diagnostics
    from railrules.tools.common.outputs import OutputError
    from railrules.tools.common.verbs import Usage
    try:
        code = _run_verb(args)
        sys.stdout.flush()   # a full disk or a closed pipe is found here, not at exit
        return code
    except OutputError as err:
        print(f"railrules {args.command}: {err}", file=sys.stderr)
        return EXIT_FAIL
    except (Usage, *_raised("railrules.tools.bots.players", "BotSpecError")) as err:
        print(f"railrules {args.command}: {err}", file=sys.stderr)
        return EXIT_USAGE
    except _raised("railrules.tools.lab.runner", "ClusterError") as err:
        print(f"railrules {args.command}: {err}", file=sys.stderr)
        return EXIT_FAIL
    except RailrulesError as err:
        print(diagnostics.render(err.diagnostics, "text"), file=sys.stderr)
        return EXIT_FAIL
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        _drop_stdout()
        return EXIT_OK
    except Exception as err:  # never a traceback; RAILRULES_DEBUG=1 shows it
        if isinstance(err, OSError) and _stdout_failed(err):
            print(f"railrules {args.command}: cannot write to the standard output: "
                  f"{err.strerror or err}", file=sys.stderr)
            _drop_stdout()
            return EXIT_FAIL
        if os.environ.get("RAILRULES_DEBUG"):
            raise
        print(f"railrules: internal error: {type(err).__name__}: {err}\n"
              "this is a bug in railrules, not in your files; RAILRULES_DEBUG=1 shows the traceback",
              file=sys.stderr)
        return 3


def _raised(module: str, name: str) -> tuple:
    """Exception class ``name`` of ``module`` when that module is imported, else none: a class
    never imported cannot have been raised, and importing it only to catch it would slow every
    verb's start (the bots' module takes about 0.1 s)."""
    found = sys.modules.get(module)
    return (getattr(found, name),) if found is not None else ()


_RUNS = {"simulate", "compare", "tune", "tournament", "coverage"}   # verbs that play many games


def _run_verb(args) -> int:
    """The verb's work; a verb that plays many games stops the same way on SIGINT or SIGTERM
    wherever it comes (runner.stoppable): the figures of the games finished, its files written."""
    if args.command not in _RUNS:
        return verb_module(args.command).run(args)
    from railrules.tools.lab.runner import stoppable
    with stoppable():
        return verb_module(args.command).run(args)


def _stdout_failed(err: OSError) -> bool:
    """Whether it is the standard output that failed (a full disk: ``--json > /dev/full``):
    every file railrules writes goes through :mod:`.outputs` (OutputError) or names its file."""
    import errno
    return err.filename is None and err.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO)


def _drop_stdout() -> None:
    """Send what is still buffered for a standard output that failed to /dev/null, so that
    Python's own flush at exit does not fail a second time with a traceback."""
    try:
        fd = sys.stdout.fileno()
    except (OSError, ValueError, AttributeError):
        return   # not a real file (a test's capture): nothing is flushed at exit
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, fd)
    os.close(null)


if __name__ == "__main__":
    sys.exit(main())
