"""`railrules serve`: play one game in the browser, people (hotseat or each on their own page)
and bots in any mix. :mod:`..table` (the play table) is the game and who may see and do what; :mod:`.app` the web
app (Starlette, run by uvicorn; ``pip install ".[web]"``); ``static/`` the page (plain HTML, CSS
and JavaScript, shipped with the package: nothing is fetched from elsewhere)."""
from __future__ import annotations

import argparse
import errno
import shlex
import signal
import socket
import sys
from pathlib import Path

from railrules.tools.common import verbs
from railrules.tools.play.lobby import Lobby
from railrules.tools.play.table import Refused, Table, add_bot_seconds

__all__ = ["Refused", "Table", "serve_table", "serve_lobby", "add_arguments", "run"]


def serve_table(table: Table, host: str, port: int, out=None) -> None:
    """Serve ``table`` at http://HOST:PORT until Ctrl-C; print each page's link first."""
    serve_lobby(Lobby.of(table), host, port, out)


def serve_lobby(lobby: Lobby, host: str, port: int, out=None) -> None:
    """Serve the tables of ``lobby`` (and its page, if it has a lobby file) at http://HOST:PORT
    until Ctrl-C; print the links first."""
    import uvicorn

    from railrules.tools.play.serve.app import hosts_of, make_app
    out = out or sys.stdout
    _port_free(host, port)
    # (uvicorn's Server, not uvicorn.run: that exits with status 3, skipping the save, when a
    # Ctrl-C comes before it listens)
    server = uvicorn.Server(uvicorn.Config(make_app(lobby, hosts_of(host)), host=host, port=port,
                                           log_level="warning"))

    def stop(signum, frame):
        """Ctrl-C or SIGTERM before uvicorn takes them (and once it gives them back): the server
        is told to stop too, for a KeyboardInterrupt raised inside a finalizer is dropped."""
        server.should_exit = True
        raise KeyboardInterrupt
    previous = {s: signal.signal(s, stop) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        _print_links(lobby, host, port, out)
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)


def _print_links(lobby: Lobby, host: str, port: int, out) -> None:
    print("open these pages in a browser (each link holds its page's secret token):", file=out)
    if host in ("0.0.0.0", "::"):   # every address of this machine: a link needs one of them
        shown = socket.gethostname()
        print(f"(the links name this machine, {shown}, as other machines reach it; on this machine "
              f"http://127.0.0.1:{port} works too)", file=out)
    else:
        shown = f"[{host}]" if ":" in host else host
    if lobby.token:
        print(f"  {'lobby:':<12} http://{shown}:{port}/lobby/{lobby.token}  (yours only: start tables, "
              "reach every table's links)", file=out)
    for table in lobby.tables:
        if lobby.token:
            print(f"  {table.game.ruleset.title} ({table.save_path}):", file=out)
        for name, path in table.links().items():
            print(f"  {name + ':':<12} http://{shown}:{port}{path}", file=out)
    if host not in ("127.0.0.1", "localhost", "::1"):
        print(f"note: bound to {host}: anyone who can reach this machine and has a link can play "
              "that seat", file=out)
    print("Ctrl-C stops the server (the game is saved first)", file=out, flush=True)


def _port_free(host: str, port: int) -> None:
    """Refuse a port another program holds, before any link is printed (Refused, with the next
    port to try)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)   # as uvicorn binds
        try:
            probe.bind((host, port))
        except OSError as err:
            raise Refused(0, f"port {port} is in use; try --port {port + 1}" if err.errno == errno.EADDRINUSE
                          else f"cannot listen on {host} port {port}: {err.strerror or err}") from None


# ------------------------------------------------------------------ the verb: railrules serve
def _seats(text: str) -> str:
    """An argparse type for --seats: 'all', 'none' or seat numbers separated by commas."""
    if text in ("all", "none") or all(part.strip().isdigit() and int(part) >= 1 for part in text.split(",")):
        return text
    raise argparse.ArgumentTypeError(f"'{text}': give seat numbers separated by commas (1,3), all or none")


def add_arguments(parser) -> None:
    parser.description = (
        "Serve one game to the browser (needs pip install \".[web]\"): click an option or a hex to "
        "act, why for a refused click, undo when the others are bots, save and load, bots' moves shown "
        "at a chosen speed, the log beside the board. It prints the table's link (hotseat: it acts "
        "for, and shows what may be seen by, whichever person is to move) and one link per person's "
        "seat, which shows only what that seat may see. Each link holds a secret token, kept beside "
        "the save (NAME.links.json) so that a restart with --resume gives the same links; the server "
        "listens on 127.0.0.1 unless --host says otherwise. The game is saved after every decision; "
        "Ctrl-C saves and prints the command that restarts the table. With --lobby FILE, one server "
        "holds several tables: a lobby page lists them and starts new ones.")
    parser.add_one_game("continue a saved game (a railrules play or serve save), with the links, "
                        "people and bots its links file keeps")
    parser.add_players()
    parser.add_argument("--seed", type=int, default=1, help="seed of the game's chance and of the bots (default 1)")
    parser.add_bots("--bots", help="the bots of the seats no person plays (default random; with "
                    "--resume, the table's own); a list has one per seat, people's included (their "
                    "entry is not used).")
    parser.add_argument("--seats", type=_seats, metavar="SEATS",
                        help="the seats people play: numbers separated by commas (1,3), all or none "
                        "(default 1; with --resume, the table's own)")
    parser.add_argument("--lobby", metavar="FILE",
                        help="serve several tables: FILE lists them (created if missing; new tables' "
                        "saves go in its folder) and prints the link of a lobby page, yours only, "
                        "that lists the games and starts new ones; a ruleset or --resume given too "
                        "adds that table. Restart with the same --lobby FILE: the same links")
    parser.add_argument("--host", default="127.0.0.1",
                        help="the address to listen on (default 127.0.0.1: this machine only)")
    parser.add_argument("--port", type=parser.count(1), default=8765, help="the port (default 8765)")
    parser.add_argument("--delay", type=float, default=0.6, metavar="SECONDS",
                        help="how long each bot's move stays on screen before the next (default 0.6; "
                        "the page can change it)")
    parser.add_argument("--save", help="where every decision, save and Ctrl-C write the game (default: "
                        "RULESET-seedN.save.json, or the --resume file); its links go beside it")
    parser.add_argument("--force", action="store_true", help="allow --save to overwrite an existing file")
    add_bot_seconds(parser, 30)


def run(args) -> int:
    try:
        import uvicorn  # noqa: F401 - checked before the game starts
    except ImportError as err:
        print(f"railrules serve: needs pip install \".[web]\" (Starlette and uvicorn): {err}", file=sys.stderr)
        return verbs.EXIT_FAIL
    if args.delay < 0:
        raise verbs.Usage(f"--delay must be 0 seconds or more, not {args.delay}")
    if not (args.ruleset or args.resume or args.lobby):
        print("railrules serve: give a ruleset, --resume FILE or --lobby FILE", file=sys.stderr)
        return verbs.EXIT_USAGE
    def say(text: str) -> None:   # a note for the host
        print(text, flush=True)
    lobby = Lobby.open(Path(args.lobby), args.delay, args.bot_seconds, say) if args.lobby else \
        Lobby(None, None, args.delay, args.bot_seconds, say)
    table = _one_table(args, lobby) if args.ruleset or args.resume else None
    try:
        if args.lobby:
            if table is not None:
                lobby.add(table)
            serve_lobby(lobby, args.host, args.port)
        else:
            assert table is not None
            serve_table(table, args.host, args.port)
    except Refused as err:   # the port: said before any link is printed
        raise verbs.Usage(err.message) from None
    except KeyboardInterrupt:   # before uvicorn took the signal: the same stop
        pass
    return _leave(lobby.tables if args.lobby else [table], args)


def _one_table(args, lobby: Lobby) -> Table:
    """The table the command names: a new game of the ruleset, or the game of --resume with the
    links, people and bots its links file keeps (--seats, --bots: given instead)."""
    from railrules.tools.play.table import take_save
    from railrules.tools.play.terminal import open_game
    resume = Path(args.resume) if args.resume else None
    save = Path(args.save) if args.save else None
    if resume is not None and any(t.save_path and t.save_path.resolve() == resume.resolve() for t in lobby.tables):
        raise verbs.Usage(f"--resume {resume}: it is a table of the lobby {args.lobby} already (served with it)")
    there = verbs.check_output("--save", save, args.force, mine=resume)
    game = open_game(args, "serve", args.players, args.seed)
    if game is None:   # (a ruleset or --resume was given: run() checked)
        raise verbs.Usage("give a ruleset, --resume FILE or --lobby FILE")
    n = len(game.players)
    people = None
    if args.seats is not None:
        numbers = range(1, n + 1) if args.seats == "all" else () if args.seats == "none" else \
            sorted({int(x) for x in args.seats.split(",")})
        if any(k > n for k in numbers):
            raise verbs.Usage(f"--seats: this game has seats 1 to {n}")
        people = [f"p{k}" for k in numbers]
    save_path = take_save(game, save, resume, there)
    if resume is not None:
        table = lobby.resume(resume, game, people, args.bots, to=save_path)
    else:
        table = lobby.seat(game, people if people is not None else ["p1"], args.bots or "random", save_path)
    print(f"{game.ruleset.title}: {n} players, seed {game.state['seed']}; people at seat(s) "
          f"{_seat_numbers(table) if table.humans else 'none'}, bots: {table.specs}")
    return table


def _seat_numbers(table: Table) -> str:
    return ",".join(str(table.game.players.index(p) + 1) for p in table.humans)


def _leave(tables: list, args) -> int:
    """Ctrl-C: every game not over saved, and the command that serves it again with the same
    links."""
    from railrules.tools.play.links import write_links
    from railrules.tools.play.table import save_on_leaving
    code = verbs.EXIT_OK
    flags = _server_flags(args)
    for table in tables:
        if table.game.is_over:
            continue

        def again(target: Path, table=table) -> str:
            if args.lobby and target == table.save_path:    # the lobby's command, said once
                return ""
            if target != table.save_path:    # saved elsewhere: its links go with it
                write_links(table, target)
            return shlex.join(["railrules", "serve", "--resume", str(target), "--seats",
                               _seat_numbers(table) or "none", "--bots", table.specs, *flags]) + \
                " (the same links)"
        code = max(code, save_on_leaving(table.game, table.save_path, sys.stdout, again))
    if args.lobby:
        print("restart the lobby and its tables (the same links) with: "
              + shlex.join(["railrules", "serve", "--lobby", args.lobby, *flags]))
    return code


def _server_flags(args) -> list[str]:
    """The server's options that differ from their defaults, as a command gives them."""
    given = [("--host", args.host, "127.0.0.1"), ("--port", args.port, 8765), ("--delay", args.delay, 0.6),
             ("--bot-seconds", args.bot_seconds or 0, 30)]
    return [word for flag, value, default in given if value != default for word in (flag, f"{value:g}"
            if isinstance(value, float) else str(value))]
