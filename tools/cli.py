"""The `railrules` command: thin verbs over the library (lint, play, simulate, replay, test, bench)."""
from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from railrules.interpreter.errors import RailrulesError
from railrules.interpreter.paths import rulesets_dir, shipped_rulesets

from railrules.tools.common import diagnostics
from railrules.tools.bots.players import BOT_HELP, BotSpecError, check_specs
from railrules.tools.completion import SHELLS, candidates, script
from railrules.tools.common.outputs import OutputError
from railrules.tools.lab.runner import ClusterError, stoppable

if TYPE_CHECKING:   # the verbs import the loader and the engine when they run (not for --help)
    from railrules.interpreter import Game

EXIT_OK, EXIT_FAIL, EXIT_USAGE = 0, 1, 2
VARIANT_HELP = ("a variant: the name of one in the ruleset's variants/ folder, or the path of a "
                "variant file anywhere (a path ends in .yaml)")


def _ruleset_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("ruleset", help="a shipped ruleset's name (see: railrules list) or a ruleset folder")
    p.add_argument("--variant", help=VARIANT_HELP)


class _Version(argparse.Action):
    """--version: the installed version, looked up only when asked for."""

    def __call__(self, parser, namespace, values, option_string=None):
        from railrules.interpreter import __version__
        print(f"railrules {__version__}")
        parser.exit()


class Usage(Exception):
    """A usage error found after parsing (exit 2): the message says what to type instead."""


def _bots(text: str) -> str:
    try:
        return check_specs(text)
    except BotSpecError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def _count(least: int):
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


def _games_args(p: argparse.ArgumentParser, games: int, forced: bool = True) -> None:
    """Options shared by the verbs that play many bot games."""
    p.add_argument("--games", type=_count(1), default=games, help=f"number of games (default {games})")
    p.add_argument("--seed", type=int, default=1, help="seed of the first game; game i uses seed+i")
    p.add_argument("--players", type=_count(1),
                   help="number of players (default 4, within the game's range)")
    p.add_argument("--json", action="store_true", help="print exactly one JSON object")
    p.add_argument("--bots", "--bot", dest="bot", type=_bots, default="random", metavar="BOTS",
                   help="the bots (default random). " + BOT_HELP)
    if forced:
        p.add_argument("--forced", action="store_true",
                       help="apply a decision with one legal action without asking the bot (it is "
                       "still a decision of the game, logged and replayed as any other)")


def _parallel_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--jobs", type=_count(1), default=1, help="worker processes (default 1); the "
                   "figures are the same for any number")
    p.add_argument("--cluster", metavar="ADDRESS",
                   help="play the games on a Dask cluster: its scheduler's address (tcp://host:8786), "
                   "or 'local' to start one on this machine; needs pip install \".[cluster]\"; the "
                   "figures are the same as with --jobs 1")
    p.add_argument("--time-limit", type=float, metavar="SECONDS",
                   help="stop after this long, as Ctrl-C does: the games finished are reported, "
                   "marked partial (exit 130)")


def _players(ruleset, wanted: int | None) -> int:
    if wanted is None:
        return min(max(4, ruleset.players_min), ruleset.players_max)
    if not ruleset.players_min <= wanted <= ruleset.players_max:
        raise Usage(f"--players: {ruleset.name} is for {ruleset.players_min} to "
                    f"{ruleset.players_max} players, not {wanted}")
    return wanted


# ------------------------------------------------------------------ verbs
def cmd_lint(args) -> int:
    from railrules.tools.author import fixes
    from railrules.tools.author.lint import lint_paths, missing_paths, watch
    for path in missing_paths(args.paths):
        print(f"railrules lint: no ruleset, folder or file '{path}' (shipped rulesets: "
              f"{', '.join(shipped_rulesets())})", file=sys.stderr)
        return EXIT_USAGE

    def codes(values):
        return None if values is None else [c.strip() for v in values for c in v.split(",") if c.strip()]

    def once() -> int:
        diags = lint_paths(args.paths, args.play, args.variant or [], codes(args.select), codes(args.ignore))
        if args.diff:
            patch = fixes.diff(diags)
            print(patch, end="")
            return EXIT_FAIL if patch else EXIT_OK
        if args.fix:
            made = fixes.write(diags)
            if made:
                print(f"fixed {made} problem(s)", file=sys.stderr)
                diags = lint_paths(args.paths, args.play, args.variant or [], codes(args.select), codes(args.ignore))
        shown = [d for d in diags if d.severity == "error"] if args.errors_only else diags
        out = diagnostics.render(shown, args.format)
        if out:
            print(out)
        errors = sum(d.severity == "error" for d in diags)
        if args.format == "text":
            fixable = sum(fixes.fix_of(d) is not None for d in diags)
            print(f"{errors} error(s), {len(diags) - errors} warning(s)"
                  + (f"; {fixable} fixable with --fix" if fixable else ""), file=sys.stderr, flush=True)
        return EXIT_FAIL if errors else EXIT_OK

    if args.watch:
        try:
            watch(args.paths, once)
        except KeyboardInterrupt:
            pass
        return EXIT_OK
    return once()


def _one_game_args(p: argparse.ArgumentParser, resume_help: str) -> None:
    """Options of the verbs that work on one game, new or saved (what _game reads)."""
    p.add_argument("ruleset", nargs="?", help="a shipped ruleset's name or a ruleset folder")
    p.add_argument("--variant", help=VARIANT_HELP)
    p.add_argument("--resume", help=resume_help)


def _game(args, verb: str, players: int | None = None, seed: int = 1) -> Game | None:
    """The game a verb works on: a saved one (--resume FILE) or a new one of the ruleset."""
    from railrules.interpreter import load_ruleset

    from railrules.tools.play.terminal import load_save
    if args.resume:  # a ruleset named beside --resume is where the save's rules are
        return load_save(Path(args.resume), args.ruleset)
    if not args.ruleset:
        print(f"railrules {verb}: give a ruleset, or --resume FILE", file=sys.stderr)
        return None
    ruleset = load_ruleset(args.ruleset, args.variant)
    return ruleset.new_game(_players(ruleset, players), seed)


def _check_output(option: str, path: Path | None, force: bool, mine: Path | None = None) -> bool:
    """Refuse, before the game starts, a file the session could not write or would overwrite
    (``mine``: the file this session's game came from, which it may write back). Whether the
    file was there (so --force or ``mine`` allowed it)."""
    from railrules.tools.common.outputs import OutputError, OutputExists, check
    ours = mine is not None and path is not None and path.resolve() == mine.resolve()
    there = path is not None and os.path.lexists(path)
    try:
        check({option: path}, force or ours)
    except OutputExists as err:
        raise Usage(str(err)) from None
    except OutputError as err:
        raise Usage(f"{option} {path}: {err.why}") from None
    return there


def _take_save(game, save: Path | None, resume: Path | None, there: bool, default: Path) -> Path:
    """The file this session saves its game to, taken now: created holding the game as it
    starts, exclusively, so that a second game given the same path is refused before it starts
    (``default``: the first free NAME, NAME-2... when no --save is given). Not taken: the
    resumed file, the game's own, or a file that was ``there`` at the check (--force replaces
    it)."""
    from railrules.tools.common.outputs import OutputError
    from railrules.tools.play.terminal import reserve_save
    path = save or resume
    if path is not None and (path == resume or there):
        return path
    try:
        return reserve_save(game, path or default, numbered=path is None)
    except OutputError as err:
        raise Usage(f"--save {err.path}: {err.why}") from None


def cmd_play(args) -> int:
    from railrules.tools.common.outputs import OutputError, write
    from railrules.tools.play.terminal import play_bots, play_human, save_on_leaving
    resume = Path(args.resume) if args.resume else None
    log = Path(args.log) if args.log else None
    save = Path(args.save) if args.save else None
    _check_output("--log", log, args.force)
    there = _check_output("--save", save, args.force, mine=resume)
    drawn = args.seed is None and not resume
    seed = random.SystemRandom().randrange(1, 1_000_000) if drawn else args.seed
    game = _game(args, "play", args.players, seed if seed is not None else 1)
    if game is None:
        return EXIT_USAGE
    ruleset = game.ruleset
    seed = game.state["seed"] if seed is None else seed    # a resumed game's bots: its own seed
    print(f"{ruleset.title}: {game.state['players']} players, seed {game.state['seed']}"
          + (f" (drawn at random: --seed {seed} plays this game again)" if drawn else ""))
    code = EXIT_OK
    if args.bots and not args.seat:
        play_bots(game, args.bots, seed)
    else:
        seat = f"p{args.seat or 1}"
        if seat not in game.players:
            raise Usage(f"--seat must be 1 to {len(game.players)}")
        save_path = _take_save(game, save, resume, there, Path(f"{ruleset.name}-seed{seed}.save.json"))
        try:
            code = play_human(game, seat, args.bots or "random", seed, save_path, force=args.force)
        except KeyboardInterrupt:
            code = save_on_leaving(game, save_path, sys.stdout)
    if log and game.is_over:
        try:
            write(log, json.dumps(game.log(), indent=1))
        except OutputError as err:    # it could be written when the game started
            print(f"railrules play: the log: {err}", file=sys.stderr)
            return EXIT_FAIL
        print(f"log written to {log}")
    return code


def cmd_simulate(args) -> int:
    from railrules.interpreter import load_ruleset

    from railrules.tools.lab.simulate import describe, simulate
    ruleset = load_ruleset(args.ruleset, args.variant)
    result = simulate(ruleset, args.games, args.seed, _players(ruleset, args.players), args.bot,
                      progress=sys.stderr.isatty() and not args.json, forced=args.forced,
                      jobs=args.jobs, time_limit=args.time_limit, cluster=args.cluster)
    print(json.dumps(result) if args.json else describe(result))
    if result["partial"]:
        print("stopped early: the figures are those of the games finished", file=sys.stderr)
        return 130
    return EXIT_OK if result["finished"] == result["games"] else EXIT_FAIL


def cmd_coverage(args) -> int:
    from railrules.tools.lab.arms import ArmError, Arms
    from railrules.tools.lab.compare import run
    from railrules.tools.lab.coverage import coverage, table
    try:
        with Arms(args.ruleset, [args.variant] if args.variant else [], []) as arms:
            ruleset = arms[-1].ruleset
            result = run(arms[-1:], args.games, _players(ruleset, args.players), args.bot, args.seed,
                         args.jobs, args.time_limit, progress=sys.stderr.isatty() and not args.json,
                         cluster=args.cluster)
    except ArmError as err:
        raise Usage(str(err)) from None
    cov = coverage(result, ruleset)
    code = _figures(cov, args.json, table)
    return code if code != EXIT_OK or not cov["errors"] else EXIT_FAIL


def _figures(result: dict, as_json: bool, table) -> int:
    """Print a run's figures, as one JSON object or as a table; 130 when it stopped early."""
    from railrules.tools.common.tables import show
    if as_json:
        print(json.dumps(result))
    else:
        show(table(result))
    if result["partial"]:
        print("stopped early: the figures are those of the games finished", file=sys.stderr)
        return 130
    return EXIT_OK


def cmd_compare(args) -> int:
    from railrules.tools.lab.arms import ArmError, Arms
    from functools import partial

    from railrules.tools.lab import sequential
    from railrules.tools.lab.compare import check_metrics, run, table, to_csv, verdicts
    from railrules.tools.common.outputs import OutputError, write
    from railrules.tools.lab.report import to_html
    _check_outputs({"--csv": args.csv, "--html": args.html}, args.force)
    try:
        with Arms(args.rulesets[0], args.variant or [], args.set or [], args.rulesets[1:]) as arms:
            players = _players(arms[0].ruleset, args.players)
            if args.ladder:
                args.bot, args.metrics = args.ladder, (args.metrics or []) + ["ladder"]
            check_metrics((args.metrics or []) + (args.plot or []), [a.ruleset for a in arms], players, args.bot)
            if args.max_games and not args.until_verdict:
                raise Usage("--max-games goes with --until-verdict")
            play = partial(sequential.run, arms, args.games, max(args.max_games or 1000, args.games)) \
                if args.until_verdict else partial(run, arms, args.games)
            result = play(players, args.bot, args.seed, args.jobs, args.time_limit,
                          progress=sys.stderr.isatty() and not args.json, cluster=args.cluster,
                          correction="fdr" if args.fdr else "holm", only=args.metrics)
    except ArmError as err:
        raise Usage(str(err)) from None
    failed = False
    for path, make in ((args.csv, to_csv), (args.html, lambda r: to_html(r, verdicts(r), args.plot))):
        if path:
            try:
                write(Path(path), make(result))
            except OutputError as err:
                print(f"railrules compare: {err}", file=sys.stderr)
                failed = True
    code = _figures(result, args.json, table)
    return EXIT_FAIL if failed and code == EXIT_OK else code


def cmd_tournament(args) -> int:
    from railrules.interpreter import load_ruleset

    from railrules.tools.common.outputs import OutputError, write
    from railrules.tools.common.tables import show
    from railrules.tools.lab.tournament import report_tables, to_html, tournament
    bots = args.bot.split(",")
    if len(set(bots)) < len(bots):
        raise Usage("--bots: each bot once (give a setting to tell two of a kind apart: mcts:iterations=100,mcts)")
    ruleset = load_ruleset(args.ruleset, args.variant)
    least = max(2, ruleset.players_min)
    players = least if args.players is None else _players(ruleset, args.players)
    if len(bots) < max(2, players):
        raise Usage(f"--bots: {players}-player games need at least {max(2, players)} bots (one a seat), not {len(bots)}")
    _check_outputs({"--html": args.html}, args.force)
    try:
        result = tournament(ruleset, bots, players, args.games, args.seed, args.jobs, args.time_limit,
                            progress=sys.stderr.isatty() and not args.json, cluster=args.cluster)
    except ImportError:
        raise Usage('ratings need openskill: pip install "railrules[rating]" (or pip install ".[rating]" '
                    "in the checkout)") from None
    failed = False
    if args.html:
        try:
            write(Path(args.html), to_html(result))
        except OutputError as err:
            print(f"railrules tournament: {err}", file=sys.stderr)
            failed = True
    if args.json:
        print(json.dumps(result))
    else:
        for table in report_tables(result):
            show(table)
    if result["partial"]:
        print("stopped early: the figures are those of the games finished", file=sys.stderr)
        return 130
    return EXIT_FAIL if result["errors"] or failed else EXIT_OK


def cmd_observe(args) -> int:
    from railrules.interpreter import load_ruleset

    from railrules.tools.agents.encoding import encoding
    from railrules.tools.common.tables import Table, show
    ruleset = load_ruleset(args.ruleset, args.variant)
    players = _players(ruleset, args.players)
    code = encoding(ruleset, players)
    slices = code.slices()
    if args.json:
        print(json.dumps({"ruleset": ruleset.name, "variant": ruleset.variant, "players": players,
                          "width": code.width, "actions": code.size,
                          "slices": [vars(s) for s in slices]}))
        return EXIT_OK
    table = Table(f"{ruleset.name}, {players} players: the observation vector ({code.width} numbers, "
                  f"{len(slices)} slices); {code.size} actions",
                  ["numbers", "what", "encodes"], right=(0,))
    table.rows = [[f"{s.start}" if s.stop == s.start + 1 else f"{s.start}..{s.stop - 1}", s.name, s.encodes]
                  for s in slices]
    table.notes = ["the observer's own view: other players' secret fields read hidden; fields no "
                   "sampled game changed are left out (tools/agents/encoding.py)"]
    show(table)
    return EXIT_OK


def cmd_tune(args) -> int:
    from railrules.tools.lab.arms import ArmError
    try:
        from railrules.tools.lab.tune import describe, plot, tune
        import optuna  # noqa: F401
    except ImportError:
        raise Usage('tune needs Optuna: pip install "railrules[tune]"') from None
    if args.plot and Path(args.plot).suffix.lower() not in (".svg", ".png"):   # before any trial
        raise Usage(f"--plot {args.plot}: the picture is .svg or .png")
    _check_outputs({"--plot": args.plot}, args.force)

    def progress(k, values, value):
        if sys.stderr.isatty() and not args.json:
            print(f"trial {k}: {values} -> {value:.3g}", file=sys.stderr)
    try:
        result = tune(args.ruleset, args.param, args.objective, args.budget, args.games,
                      lambda rs: _players(rs, args.players), args.bot, args.seed, args.jobs, progress)
    except ArmError as err:
        raise Usage(str(err)) from None
    if args.plot and result["trials"]:
        try:
            plot(result, args.plot)
        except ImportError:
            print('railrules tune: no plot: matplotlib is not installed (pip install "railrules[report]")',
                  file=sys.stderr)
    print(json.dumps(result) if args.json else describe(result))
    return 130 if result["partial"] else EXIT_OK


def cmd_replay(args) -> int:
    from railrules.tools.play.replay import read_log, replay
    log = read_log(Path(args.log))
    game, notes = replay(log, args.log, args.ruleset, args.force)
    for note in notes:
        print(note)
    state = "over: " + ", ".join(game.result["reasons"]) if game.is_over else "still running"
    print(f"replayed {len(log['actions'])} actions of {log['ruleset']}: identical ({state})")
    return EXIT_OK


def cmd_test(args) -> int:
    if args.mutate:
        from railrules.tools.author.mutate import run_mutate
        return run_mutate(args)
    from railrules.tools.author.scenario_report import run_selected
    return run_selected(args)


def cmd_bench(args) -> int:
    import statistics
    from railrules.tools.lab.bench import bench_ruleset, cold_start_ms, describe
    from railrules.tools.author.lint import lint_paths
    names = args.rulesets or shipped_rulesets()
    report: dict = {"rulesets": {}}
    for name in names:
        report["rulesets"][name] = bench_ruleset(name, args.games, args.seed, args.players,
                                                 args.bot, args.forced)
    times = []
    for _ in range(args.lint_runs):
        t = time.perf_counter()
        lint_paths(names)
        times.append(time.perf_counter() - t)
    report["lint_seconds_median"] = round(statistics.median(times), 3)
    report["lint_runs"] = args.lint_runs
    report["cold_start_ms"] = cold_start_ms()
    print(json.dumps(report) if args.json else describe(report))
    return EXIT_OK


def codes_markdown() -> str:
    from railrules.interpreter.errors import CODES
    lines = ["# Diagnostic codes", "",
             "Generated by `railrules codes --markdown`; a test keeps it in step with",
             "`interpreter/errors.py`. Codes are stable: they are never renumbered.", "",
             "| code | name | what it means | example | how to fix |", "|---|---|---|---|---|"]
    for code, c in sorted(CODES.items()):
        example = c.example.replace("|", "\\|").replace("\n", " / ")
        lines.append(f"| {code} | {c.name} | {c.meaning} | `{example}` | {c.fix} |")
    return "\n".join(lines) + "\n"


def cmd_codes(args) -> int:
    from railrules.interpreter.errors import CODES
    if args.markdown:
        print(codes_markdown(), end="")
        return EXIT_OK
    wanted = [c.upper() for c in args.codes] or sorted(CODES)
    for code in wanted:
        if code not in CODES:
            print(f"railrules codes: no code {code}", file=sys.stderr)
            return EXIT_USAGE
        c = CODES[code]
        print(f"{code} {c.name}: {c.meaning}\n    example: {c.example}\n    fix: {c.fix}")
    return EXIT_OK


def _check_outputs(paths: dict, force: bool) -> None:
    """Refuse, before any work, the first of ``{option: path or None}`` that cannot be written:
    one that exists is a usage error (exit 2); one that cannot be written an OutputError (1)."""
    from railrules.tools.common.outputs import OutputExists, check
    try:
        check(paths, force)
    except OutputExists as err:
        raise Usage(str(err)) from None


def cmd_view(args) -> int:
    from railrules.tools.common.outputs import write
    from railrules.tools.play.replay import read_log
    from railrules.tools.play.viewer import to_html
    out = Path(args.output)
    _check_outputs({"-o": out}, args.force)
    page = to_html(read_log(Path(args.log)), args.log, args.ruleset, args.force_rules)
    write(out, page)
    print(f"wrote {out} ({len(page) // 1024} KB): open it in a browser")
    return EXIT_OK


def _seats(text: str) -> str:
    """An argparse type for --seats: 'all', 'none' or seat numbers separated by commas."""
    if text in ("all", "none") or all(part.strip().isdigit() and int(part) >= 1 for part in text.split(",")):
        return text
    raise argparse.ArgumentTypeError(f"'{text}': give seat numbers separated by commas (1,3), all or none")


def cmd_serve(args) -> int:
    try:
        from railrules.tools.play.serve import Refused, Table, run
        import uvicorn  # noqa: F401 - checked before the game starts
    except ImportError as err:
        print(f"railrules serve: needs pip install \".[web]\" (Starlette and uvicorn): {err}", file=sys.stderr)
        return EXIT_FAIL
    from railrules.tools.play.terminal import save_on_leaving
    resume = Path(args.resume) if args.resume else None
    save = Path(args.save) if args.save else None
    there = _check_output("--save", save, args.force, mine=resume)
    if args.delay < 0:
        raise Usage(f"--delay must be 0 seconds or more, not {args.delay}")
    game = _game(args, "serve", args.players, args.seed)
    if game is None:
        return EXIT_USAGE
    n = len(game.players)
    wanted = range(1, n + 1) if args.seats == "all" else () if args.seats == "none" else \
        sorted({int(x) for x in args.seats.split(",")})
    if any(k > n for k in wanted):
        raise Usage(f"--seats: this game has seats 1 to {n}")
    seed = game.state["seed"]
    save_path = _take_save(game, save, resume, there, Path(f"{game.ruleset.name}-seed{seed}.save.json"))
    table = Table(game, [f"p{k}" for k in wanted], args.bots, seed, save_path, args.delay)
    print(f"{game.ruleset.title}: {n} players, seed {seed}; people at seat(s) "
          f"{', '.join(map(str, wanted)) or 'none'}, bots: {args.bots}")
    try:
        run(table, args.host, args.port)
    except Refused as err:   # the port: said before any link is printed
        raise Usage(err.message) from None
    if table.game.decisions and not table.game.is_over:
        return save_on_leaving(table.game, save_path, sys.stdout)
    return EXIT_OK


def cmd_lsp(args) -> int:
    from railrules.tools.author.lsp import main as serve
    return serve()


def cmd_render(args) -> int:
    from railrules.tools.pictures.board_model import board_model
    from railrules.tools.pictures.board_view import board_picture
    from railrules.tools.pictures.svg_board import to_svg
    from railrules.tools.common.outputs import write
    if args.step is not None and not args.log:
        raise Usage("--step needs --log LOG (the game at that step of the log)")
    _check_outputs({"--svg": args.svg, "--png": args.png}, args.force)
    if args.log:
        from railrules.tools.play.replay import read_log, replay
        game, _ = replay(read_log(Path(args.log)), args.log, args.ruleset, step=args.step)
    else:
        game = _game(args, "render")
        if game is None:
            return EXIT_USAGE
    if not args.svg and not args.png:
        print(board_picture(game))
        return EXIT_OK
    picture = to_svg(board_model(game), ids=args.ids)
    try:
        if args.svg:
            write(Path(args.svg), picture)
            print(f"wrote {args.svg}")
        if args.png:
            from railrules.tools.pictures.png import svg_to_png
            svg_to_png(picture, Path(args.png))
            print(f"wrote {args.png}")
    except OSError as err:
        print(f"railrules render: cannot write {err.filename or args.png}: {err.strerror or err}",
              file=sys.stderr)
        return EXIT_FAIL
    except RuntimeError as err:  # no browser to draw the PNG with
        print(f"railrules render: {err}", file=sys.stderr)
        return EXIT_FAIL
    return EXIT_OK


def cmd_doc(args) -> int:
    from railrules.interpreter import load_ruleset

    from railrules.tools.author.doc import ruleset_doc
    print(ruleset_doc(load_ruleset(args.ruleset, args.variant)), end="")
    return EXIT_OK


def cmd_code(args) -> int:
    from railrules.tools.author.generated import main as code_main
    return code_main(args)


def cmd_new(args) -> int:
    from railrules.tools.author.new import UsageError, new_ruleset
    try:
        folder, notes = new_ruleset(args.name, args.source)
    except UsageError as err:
        print(f"railrules new: {err}", file=sys.stderr)
        return EXIT_USAGE
    origin = args.source or "the minimal template (the README's coin race)"
    print(f"wrote {folder}/ from {origin}")
    for note in notes:
        print(f"note: {note}")
    print(f"next: railrules lint {folder} && railrules test {folder} && railrules play {folder}")
    return EXIT_OK


def cmd_list(args) -> int:
    from railrules.interpreter import load_ruleset
    for name in shipped_rulesets():
        try:
            rs = load_ruleset(name)
            variants = ", ".join(rs.variants()) or "-"
            print(f"{name:<20} {rs.title} ({rs.players_min}-{rs.players_max} players; variants: {variants})")
        except RailrulesError as err:
            print(f"{name:<20} (broken: {err.diagnostics[0].message})")
    print(f"(in {rulesets_dir()})")
    return EXIT_OK


# ------------------------------------------------------------------ parser
def build_parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="railrules", description=(
        "Run, simulate and lint railway share games written as data (YAML + a rules language)."))
    top.add_argument("--version", action=_Version, nargs=0,
                     help="show program's version number and exit")
    sub = top.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("play", help="play a game at the terminal against bots, or watch bots play",
                       description="Play one seat (numbered legal actions, a state summary) while bots "
                       "play the others; with --bots and no --seat, watch an all-bot game.")
    _one_game_args(p, "continue a saved game")
    p.add_argument("--players", type=_count(1),
                   help="number of players (default 4, within the game's range)")
    p.add_argument("--seed", type=int,
                   help="seed of the game's chance and of the bots (default: drawn at random and printed)")
    p.add_argument("--bots", type=_bots, metavar="BOTS",
                   help="the bots of the other seats (default random); alone it means an all-bot "
                   "game. " + BOT_HELP)
    p.add_argument("--seat", type=_count(1), help="your seat, 1 = first player (default 1)")
    p.add_argument("--save", help="where quitting or end of input saves the game (default: "
                   "RULESET-seedN.save.json, or the --resume file)")
    p.add_argument("--log", help="write the game log (for replay) here when the game ends")
    p.add_argument("--force", action="store_true",
                   help="allow --save, --log and 'save FILE' to overwrite existing files")
    p.set_defaults(func=cmd_play)

    p = sub.add_parser("simulate", help="run many bot games and report the figures",
                       description="Run N seeded bot games; print finishes, wins by seat, "
                       "end reasons, decisions per game and playouts per second. Ctrl-C or "
                       "--time-limit stops early and reports the games finished (exit 130).")
    _ruleset_arg(p)
    _games_args(p, 100)
    _parallel_args(p)
    p.set_defaults(func=cmd_simulate)

    p = sub.add_parser("compare", help="play the same seeded games under variants or changed "
                       "constants and report what changed, with 95%% intervals",
                       description="Arms: the base ruleset, each --variant, and each value of each "
                       "--set NAME=V1,V2,... (a sweep). Game i of every arm uses the same seed, bot "
                       "seating (rotated game by game) and bot seeds. Per metric: each arm's mean with "
                       "a 95%% interval, and the paired change to the base arm with its effect size; * "
                       "marks a change that stays significant after correcting for the number of "
                       "metrics (Holm, or --fdr). Ctrl-C or --time-limit stops early and reports the games "
                       "finished, marked partial (exit 130).")
    p.add_argument("rulesets", nargs="+", metavar="RULESET", help="the base: a shipped ruleset's name (see: "
                   "railrules list) or a ruleset folder; more folders (or names) are arms of their own, "
                   "played with the same seeds, and the report names the definitions and data that differ")
    p.add_argument("--variant", action="append", metavar="VARIANT", help="an arm: " + VARIANT_HELP + " (repeatable)")
    p.add_argument("--set", action="append", metavar="NAME=VALUE",
                   help="an arm with a constant of components.yaml changed; NAME=V1,V2,... makes one "
                   "arm per value (repeatable)")
    p.add_argument("--games", type=_count(1), default=100, help="games per arm (default 100); with "
                   "--until-verdict, games per block")
    p.add_argument("--until-verdict", action="store_true", help="play block after block (of --games) and "
                   "stop at the first block after which a metric (with --metrics: every metric chosen) has a "
                   "corrected verdict, spending the 5%% over the looks (Lan-DeMets O'Brien-Fleming type) so "
                   "that stopping early keeps the error rate; the report says how many games and why it stopped")
    p.add_argument("--max-games", type=_count(1), metavar="N", help="with --until-verdict: the most games "
                   "per arm (default 1000)")
    p.add_argument("--seed", type=int, default=1, help="seed of the first game; game i uses seed+i")
    p.add_argument("--players", type=_count(1), help="number of players (default 4, within the game's range)")
    p.add_argument("--bots", "--bot", dest="bot", type=_bots, default="random", metavar="BOTS",
                   help="the bots (default random), seated in rotation when several. " + BOT_HELP)
    _parallel_args(p)
    p.add_argument("--json", action="store_true", help="print exactly one JSON object (figures and games)")
    p.add_argument("--csv", metavar="FILE", help="also write one row per game and arm to FILE")
    p.add_argument("--html", metavar="FILE", help="also write a self-contained report with plots to "
                   "FILE (plots need matplotlib: pip install \".[report]\")")
    p.add_argument("--force", action="store_true", help="allow --csv and --html to overwrite existing files")
    p.add_argument("--metrics", nargs="+", metavar="NAME", help="report (and correct over) only these "
                   "metrics: names as the table shows them, or families (metric, end, seat, bot, ladder, action, rule)")
    p.add_argument("--ladder", type=_bots, metavar="BOTS", help="a skill ladder, weaker bots first "
                   "(random,greedy,mcts): seats them in rotation and reports how often each stronger bot "
                   "outscores each weaker one per arm, and whether a variant makes skill matter more or less")
    p.add_argument("--plot", nargs="+", metavar="METRIC", help="the metrics of the --html report's change "
                   "and sweep plots (default: the six that changed most)")
    p.add_argument("--fdr", action="store_true", help="correct the verdicts with Benjamini-Hochberg (the "
                   "expected share of false verdicts at most 5%%) instead of Holm (the chance of any "
                   "false verdict per arm at most 5%%)")
    p.set_defaults(func=cmd_compare)

    p = sub.add_parser("tune", help="search constant values toward seat balance or a metric's target "
                       "with paired games (needs pip install \".[tune]\")",
                       description="Each trial sets the --param constants to values Optuna's seeded TPE "
                       "sampler proposes and plays the same seeded games (--games) as every other trial; "
                       "the search ends at --budget games or Ctrl-C (exit 130) and reports the best values "
                       "with their figures' 95%% intervals.")
    p.add_argument("ruleset", help="a shipped ruleset's name (see: railrules list) or a ruleset folder")
    p.add_argument("--param", action="append", required=True, metavar="NAME=LO..HI",
                   help="a constant of components.yaml (or a map's entry: prices.3) and its range; "
                   "whole numbers for a whole-number constant (repeatable)")
    p.add_argument("--objective", default="balance", help="balance (default: the largest gap between a "
                   "turn-order position's win rate and an equal share), or METRIC=TARGET ('decisions=150')")
    p.add_argument("--budget", type=_count(1), default=1000, help="games in all (default 1000)")
    p.add_argument("--games", type=_count(1), default=50, help="paired games per trial (default 50)")
    p.add_argument("--seed", type=int, default=1, help="seed of the games and of the sampler")
    p.add_argument("--players", type=_count(1), help="number of players (default 4, within the game's range)")
    p.add_argument("--bots", "--bot", dest="bot", type=_bots, default="random", metavar="BOTS",
                   help="the bots (default random). " + BOT_HELP)
    p.add_argument("--jobs", type=_count(1), default=1, help="worker processes (default 1)")
    p.add_argument("--json", action="store_true", help="print exactly one JSON object (every trial)")
    p.add_argument("--plot", metavar="FILE", help="also draw the objective against each value (.svg or .png; "
                   "needs matplotlib)")
    p.add_argument("--force", action="store_true", help="allow --plot to overwrite an existing file")
    p.set_defaults(func=cmd_tune)

    p = sub.add_parser("coverage", help="which rules, actions, options, triggers and end conditions "
                       "fire in many bot games, and how often",
                       description="Play N seeded bot games and list every rule of the ruleset with "
                       "how often it fired and in how many games; the rules that never fired are "
                       "listed apart with the reason ruleset.yaml gives (coverage: {unfired: {NAME: "
                       "why}}) or NOT EXPLAINED. Ctrl-C or --time-limit stops early and reports the "
                       "games finished (exit 130).")
    _ruleset_arg(p)
    _games_args(p, 200, forced=False)
    _parallel_args(p)
    p.set_defaults(func=cmd_coverage)

    p = sub.add_parser("tournament", help="rank bots against each other: ratings with intervals, "
                       "head-to-head win rates",
                       description="Every combination of P of the bots is a table; each table plays N "
                       "deals (seeds S, S+1...), each deal once per rotation of the seats, so every bot "
                       "plays every seat on the same deal. Prints each bot's rating (openskill "
                       "Plackett-Luce, needs pip install \".[rating]\") with a 95 % interval, its games "
                       "and share of wins, and head-to-head win rates with Wilson 95 % intervals. Ctrl-C "
                       "or --time-limit stops early and reports the games finished (exit 130).")
    _ruleset_arg(p)
    p.add_argument("--bots", "--bot", dest="bot", type=_bots, required=True, metavar="A,B,C,...",
                   help="the bots, each once (at least P). " + BOT_HELP)
    p.add_argument("--games", type=_count(1), default=10, help="deals per table (default 10); each is "
                   "played once per seat rotation, so a table plays N x P games")
    p.add_argument("--players", type=_count(2), help="players per game (default: the fewest the ruleset "
                   "allows, at least 2)")
    p.add_argument("--seed", type=int, default=1, help="seed of the first deal; deal i uses seed+i")
    _parallel_args(p)
    p.add_argument("--json", action="store_true", help="print exactly one JSON object")
    p.add_argument("--html", metavar="FILE", help="also write a page with the tables and plots (plots "
                   "need matplotlib: pip install \".[report]\")")
    p.add_argument("--force", action="store_true", help="allow --html to overwrite an existing file")
    p.set_defaults(func=cmd_tournament)

    p = sub.add_parser("observe", help="list each slice of the observation vector agents are given, "
                       "and what it encodes",
                       description="The layout of the observation vector of the PettingZoo and OpenSpiel "
                       "adapters for a ruleset and player count: each slice (its numbers, from 0), the "
                       "field or variable it holds and how it encodes it; made by the code that builds "
                       "the vector. Needs no agent library.")
    _ruleset_arg(p)
    p.add_argument("--players", type=_count(1), help="number of players (default 4, within the game's range)")
    p.add_argument("--json", action="store_true", help="print exactly one JSON object")
    p.set_defaults(func=cmd_observe)

    p = sub.add_parser("lint", help="check rulesets: YAML, schemas, rules language, names",
                       description="Report every problem as file:line:col: severity CODE message. "
                       "Exit 0 when clean, 1 on errors, 2 on usage errors. No PATH: every shipped ruleset.")
    p.add_argument("paths", nargs="*", help="ruleset names, folders, or files inside them")
    p.add_argument("--format", choices=["text", "json", "sarif"], default="text")
    p.add_argument("--errors-only", action="store_true", help="hide warnings")
    p.add_argument("--variant", action="append", metavar="NAME_OR_FILE",
                   help="also check this variant over each ruleset: a variant's name, or the path "
                   "of a variant YAML file anywhere (repeatable)")
    p.add_argument("--play", type=_count(0), default=0, metavar="N",
                   help="also run N seeded random games: dead ends, step budget, conservation, "
                   "options and end conditions never reached (default 0: off)")
    p.add_argument("--select", action="append", metavar="CODES",
                   help="report only these codes or prefixes (RR1,RR207; repeatable); replaces the "
                   "lint: select of ruleset.yaml")
    p.add_argument("--ignore", action="append", metavar="CODES",
                   help="do not report these codes or prefixes (repeatable); replaces the lint: ignore "
                   "of ruleset.yaml. One line: end it with # lint: ignore[RR207]")
    p.add_argument("--fix", action="store_true",
                   help="make the fixes a did-you-mean hint gives (the misspelt name replaced), then lint again")
    p.add_argument("--diff", action="store_true",
                   help="print the fixes --fix would make as a unified diff; write nothing (exit 1 if any)")
    p.add_argument("--watch", action="store_true",
                   help="lint again whenever a file of the rulesets changes, until Ctrl-C")
    p.set_defaults(func=cmd_lint)

    p = sub.add_parser("replay", help="replay a game log; fail at the first divergence",
                       description="Replay a log written by 'play --log' (or Game.log()); exit 1 "
                       "and say where, if the game no longer replays identically.")
    p.add_argument("log", help="the log file (JSON)")
    p.add_argument("--ruleset", help="the ruleset folder to replay with (default: the folder the "
                   "log names if it is still there, else the shipped ruleset of its name)")
    p.add_argument("--force", action="store_true",
                   help="replay even though the rules changed since the log was made (to see where "
                   "the game diverges)")
    p.set_defaults(func=cmd_replay)

    p = sub.add_parser("test", help="run the scenario tests kept under each ruleset's scenarios/",
                       description="Run every scenarios/*.yaml of the given rulesets (default: all).")
    p.add_argument("rulesets", nargs="*", help="ruleset names or folders, or scenario files")
    p.add_argument("-k", dest="pattern", metavar="EXPRESSION",
                   help="run only the scenarios whose ruleset, file name or description match, as "
                   "pytest -k: words (substrings, any case) with and, or, not and brackets")
    p.add_argument("--junit", metavar="FILE", help="also write the results as JUnit XML (for CI)")
    p.add_argument("--force", action="store_true", help="replace an existing --junit file")
    p.add_argument("--json", action="store_true", help="print the results as JSON instead of text")
    p.add_argument("--record", action="store_true",
                   help="for each scenario chosen: play its do/set steps and add at its end the expect, "
                   "turn and over steps that state the position reached, for you to review")
    p.add_argument("--mutate", action="store_true",
                   help="plant small wrong edits in the ruleset's rules and numbers, one at a time, and "
                   "report those no scenario (nor --games) notices, with a mutation score")
    p.add_argument("--budget", type=_count(1), default=100, metavar="N",
                   help="with --mutate: how many mutants to judge, drawn with --seed (default 100)")
    p.add_argument("--all", dest="budget", action="store_const", const=None,
                   help="with --mutate: judge every mutant")
    p.add_argument("--seed", type=int, default=1, help="with --mutate: the seed of the draw (default 1)")
    p.add_argument("--games", type=_count(0), default=0, metavar="K",
                   help="with --mutate: also play K seeded random games on each mutant and compare them, "
                   "decision by decision, with the ruleset's own (default 0)")
    p.add_argument("--jobs", type=_count(1), default=1, help="with --mutate: worker processes (default 1)")
    p.set_defaults(func=cmd_test)

    p = sub.add_parser("bench", help="measure the engine: playouts/s, clone, apply, load, lint",
                       description="Benchmark, one core: random playouts per second, decisions per game "
                       "and microseconds per decision for each ruleset; a clone and an action applied and "
                       "undone at a mid-game position; warm load+compile; the cold start of `railrules play` "
                       "(to its first prompt) and of `railrules list`; "
                       "the median time to lint them all. --json for machines.")
    p.add_argument("rulesets", nargs="*", help="ruleset names (default: all shipped)")
    _games_args(p, 100)
    p.add_argument("--lint-runs", type=_count(1), default=5, help="lint runs to take the median of")
    p.set_defaults(func=cmd_bench)

    p = sub.add_parser("codes", help="explain diagnostic codes: meaning, example, fix",
                       description="Print what each diagnostic code means, a bad example and the fix.")
    p.add_argument("codes", nargs="*", help="codes to explain (default: all)")
    p.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    p.set_defaults(func=cmd_codes)

    p = sub.add_parser("render", help="draw the board with its state, as text or as an SVG picture",
                       description="Draw a ruleset's board at the start of a game, a saved game's, or a "
                       "logged game's at a step: as text (the ruleset's render: {hex: ...}), or with --svg "
                       "as a picture (terrain, labels, every company's marks in its colour, a legend, "
                       "the public state), as the ruleset's render: key declares.")
    _one_game_args(p, "draw the board of this saved game instead")
    p.add_argument("--log", help="draw the board of this logged game (at its end, or at --step)")
    p.add_argument("--step", type=_count(0), help="with --log: the game after this many actions")
    p.add_argument("--svg", metavar="FILE", help="write an SVG picture here instead of printing text")
    p.add_argument("--png", metavar="FILE", help="write the picture as PNG here (drawn by the system's "
                   "headless Chromium: apt-get install chromium)")
    p.add_argument("--ids", action="store_true", help="write each hex's id in the picture")
    p.add_argument("--force", action="store_true", help="allow --svg and --png to overwrite existing files")
    p.set_defaults(func=cmd_render)

    p = sub.add_parser("lsp", help="a language server for .rules files, over stdio (for editors)",
                       description="Start a Language Server Protocol server on stdin/stdout: lint "
                       "diagnostics as you type, hover, go to definition, completion, symbols and "
                       "references for ruleset files. Needs pip install \".[lsp]\" (pygls). An editor "
                       "starts it; see tools/vscode/README.md.")
    p.set_defaults(func=cmd_lsp)

    p = sub.add_parser("view", help="write one HTML page to step through a logged game",
                       description="Write a self-contained HTML page (works offline) to step through a "
                       "game log: the board at each step, the action taken and the rule that offers it, "
                       "the log lines and the public state; a slider, buttons and the arrow keys move, "
                       "#step=N in the address opens step N.")
    p.add_argument("log", help="a game log (railrules play --log FILE)")
    p.add_argument("-o", "--output", required=True, metavar="FILE", help="the HTML file to write")
    p.add_argument("--ruleset", help="the ruleset folder the log was made with (default: the one it names)")
    p.add_argument("--force", action="store_true", help="allow -o to overwrite an existing file")
    p.add_argument("--force-rules", action="store_true",
                   help="replay even if the rules changed since the log was made")
    p.set_defaults(func=cmd_view)

    p = sub.add_parser("serve", help="play a game in the browser: people and bots in any mix",
                       description="Serve one game to the browser (needs pip install \".[web]\"): "
                       "click an option or a hex to act, why for a refused click, undo when the "
                       "others are bots, save and load, bots' moves shown at a chosen speed, the log "
                       "beside the board. It prints the table's link (hotseat: it acts for, and shows "
                       "what may be seen by, whichever person is to move) and one link per person's seat, which shows only what that "
                       "seat may see. Each link holds a secret token; the server listens on "
                       "127.0.0.1 unless --host says otherwise. Ctrl-C saves and stops.")
    _one_game_args(p, "continue a saved game (a railrules play or serve save)")
    p.add_argument("--players", type=_count(1),
                   help="number of players (default 4, within the game's range)")
    p.add_argument("--seed", type=int, default=1, help="seed of the game's chance and of the bots (default 1)")
    p.add_argument("--bots", type=_bots, default="random", metavar="BOTS",
                   help="the bots of the seats no person plays (default random); a list has one per "
                   "seat, people's included (their entry is not used). " + BOT_HELP)
    p.add_argument("--seats", type=_seats, default="1", metavar="SEATS",
                   help="the seats people play: numbers separated by commas (1,3), all or none "
                   "(default 1)")
    p.add_argument("--host", default="127.0.0.1",
                   help="the address to listen on (default 127.0.0.1: this machine only)")
    p.add_argument("--port", type=_count(1), default=8765, help="the port (default 8765)")
    p.add_argument("--delay", type=float, default=0.6, metavar="SECONDS",
                   help="how long each bot's move stays on screen before the next (default 0.6; "
                   "the page can change it)")
    p.add_argument("--save", help="where save and Ctrl-C write the game (default: "
                   "RULESET-seedN.save.json, or the --resume file)")
    p.add_argument("--force", action="store_true", help="allow --save to overwrite an existing file")
    p.set_defaults(func=cmd_serve)

    p = sub.add_parser("doc", help="print a ruleset's rules as Markdown, with their citations",
                       description="Every definition of a ruleset with the rulebook passages it "
                       "cites and the options it offers: to check the rules against the rulebook.")
    _ruleset_arg(p)
    p.set_defaults(func=cmd_doc)

    p = sub.add_parser("code", help="print the Python the interpreter writes for a ruleset's rules",
                       description="Every function generated for a ruleset (rule expressions, defs, "
                       "comprehension loops, code units), with the rule it was written for as "
                       "comments; NAME: only those whose rule line or unit names it (a def, an "
                       "option, a procedure, `estimate`...). Exit 1 when none does.")
    _ruleset_arg(p)
    p.add_argument("name", nargs="?", help="a name the rule line or unit must contain, as a word")
    p.add_argument("--list", action="store_true", help="print only the generated functions' names")
    p.set_defaults(func=cmd_code)

    p = sub.add_parser("new", help="write a new ruleset folder to edit (a copy of a ruleset or a template)",
                       description="Write the folder NAME (a path; its last part becomes the "
                       "ruleset's name): a copy of RULESET with --from, else a minimal working game "
                       "to start from. Never overwrites an existing folder.")
    p.add_argument("name", help="the folder to create, e.g. my_game or games/my_game")
    p.add_argument("--from", dest="source", metavar="RULESET",
                   help="start from this ruleset (a shipped name or a folder) instead of the template")
    p.set_defaults(func=cmd_new)

    p = sub.add_parser("list", help="list the shipped rulesets and their variants")
    p.set_defaults(func=cmd_list)

    p = sub.add_parser("completion", help="print a shell completion script (bash, zsh or fish)",
                       description="Print the script that completes railrules' verbs, options, "
                       "ruleset and variant names in your shell. bash: eval \"$(railrules "
                       "completion bash)\" in ~/.bashrc; zsh: the same with zsh in ~/.zshrc; fish: "
                       "railrules completion fish > ~/.config/fish/completions/railrules.fish")
    p.add_argument("shell", choices=SHELLS)
    p.set_defaults(func=cmd_completion)
    return top


def cmd_completion(args) -> int:
    print(script(args.shell), end="")
    return EXIT_OK


_RUNS = {"simulate", "compare", "tune", "tournament", "coverage"}   # verbs that play many games


def _run_verb(args) -> int:
    """The verb's work; a verb that plays many games stops the same way on SIGINT or SIGTERM
    wherever it comes (runner.stoppable): the figures of the games finished, its files written."""
    if args.command not in _RUNS:
        return args.func(args)
    with stoppable():
        return args.func(args)


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    words = sys.argv[1:] if argv is None else argv
    if words[:1] == ["__complete"]:   # asked by the completion script: candidates, one a line
        print("\n".join(candidates(parser, words[1:])))
        return EXIT_OK
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return EXIT_USAGE
    for stream in (sys.stdout, sys.stderr):   # a terminal that cannot show a character: '?'
        if hasattr(stream, "reconfigure"):
            try:
                stream.reconfigure(errors="replace")
            except (ValueError, OSError):
                pass
    try:
        code = _run_verb(args)
        sys.stdout.flush()   # a full disk or a closed pipe is found here, not at exit
        return code
    except OutputError as err:
        print(f"railrules {args.command}: {err}", file=sys.stderr)
        return EXIT_FAIL
    except (Usage, BotSpecError) as err:
        print(f"railrules {args.command}: {err}", file=sys.stderr)
        return EXIT_USAGE
    except ClusterError as err:
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
    except Exception as err:  # noqa: BLE001 - never a traceback; RAILRULES_DEBUG=1 shows it
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
