"""The tables of one `railrules serve` and, with ``--lobby FILE``, the host's lobby: the games in
progress listed (ruleset, variant, players, seats, decisions, whose turn, the save, the links),
a new table started (ruleset, variant, players, the seats people play, bots), and the lobby
file that lists the tables, so that a restart (`railrules serve --lobby FILE`) serves them all
again with the same links.

The lobby file is JSON: ``format`` (:data:`FORMAT`), the lobby page's ``token`` and the saves of
its ``tables`` (relative to the file's folder, where a new table's save is written). Each
table's own tokens, people and bots are in its links file (:mod:`.links`). Like the links files,
the lobby file is the host's keys: written readable by its owner only.

A lobby's form names what the server may start: a shipped ruleset, one of its variants, a
number of players in its range, seats among them, the built-in bots. Anything else is refused
(422, in words) before anything is written.
"""
from __future__ import annotations

import json
import os
import random
import secrets
import threading
from pathlib import Path
from typing import TypeGuard

from railrules.interpreter import load_ruleset
from railrules.interpreter.errors import RailrulesError
from railrules.interpreter.paths import shipped_rulesets
from railrules.interpreter.saves import load_save

from railrules.tools.bots.players import BOTS, BotSpecError, check_specs
from railrules.tools.common import outputs, verbs
from railrules.tools.play.links import read_links, write_links
from railrules.tools.play.table import NO_PAGE, Refused, Table, new_token, reserve_save

FORMAT = "railrules-lobby-1"


class Lobby:
    """The tables a server serves; ``path``: its lobby file (None: a server of one table, with
    no lobby page); ``delay``, ``bot_seconds``, ``say``: as :class:`.Table`'s, for every table."""

    def __init__(self, path: Path | None, token: str | None, delay: float = 0.6,
                 bot_seconds: float | None = None, say=None):
        self.path, self.token = path, token
        self.delay, self.bot_seconds = delay, bot_seconds
        self.say = say or (lambda text: None)
        self.tables: list[Table] = []
        self.broken: list[dict] = []     # {"save", "error"}: listed in the file, not served
        self.lock = threading.Lock()
        self._shelf: list | None = None

    @classmethod
    def of(cls, table: Table) -> Lobby:
        """A server of the one ``table``, with no lobby page."""
        lobby = cls(None, None)
        lobby.tables.append(table)
        return lobby

    # ------------------------------------------------------------------ the tables
    def seat(self, game, people: list[str], bots: str, save: Path, tokens: dict | None = None) -> Table:
        """The table of ``game``, saved at ``save`` after every decision, its links kept beside it."""
        table = Table(game, people, bots, game.state["seed"], save, self.delay, bot_seconds=self.bot_seconds,
                      autosave=True, say=self.say, tokens=tokens)
        note = write_links(table, save)
        if note:
            self.say(note)
        return table

    def resume(self, save: Path, game=None, people: list[str] | None = None, bots: str | None = None,
               to: Path | None = None) -> Table:
        """The table of the game saved at ``save`` (``game``: that game, loaded already), with the
        links, people and bots its links file keeps (``people``, ``bots``: given instead), saved
        from now on at ``to`` (default ``save``); RailrulesError if the save cannot be loaded."""
        game = game or load_save(save, tell=self.say)
        kept, note = read_links(save)
        if note:
            self.say(note)
        kept = kept or {"host": None, "seats": {}, "people": ["p1"], "bots": "random"}
        people = [p for p in (kept["people"] if people is None else people) if p in game.players]
        bots = bots or kept["bots"]
        try:
            check_specs(bots)
        except BotSpecError as err:
            self.say(f"{save}: the bots kept ({bots}) make no bot ({err}): random bots")
            bots = "random"
        return self.seat(game, people, bots, to or save, kept)

    def page(self, token: str) -> tuple[Table, str | None]:
        """The table and the seat a page's token opens (None: the table's page); Refused if none."""
        for table in list(self.tables):
            found, seat = table.opens(token)
            if found:
                return table, seat
        raise Refused(404, NO_PAGE)

    def is_lobby(self, token: str) -> bool:
        return self.token is not None and secrets.compare_digest(
            token.encode("utf-8", "surrogatepass"), self.token.encode())

    def add(self, table: Table) -> None:
        with self.lock:
            self.tables.append(table)
            self.kept()

    # ------------------------------------------------------------------ the lobby file
    @classmethod
    def open(cls, path: Path, delay: float = 0.6, bot_seconds: float | None = None, say=None) -> Lobby:
        """The lobby of the file ``path`` with its tables (a new lobby if there is no file yet,
        written now); Usage if the file is not a lobby file or cannot be written."""
        say = say or (lambda text: None)
        if not os.path.lexists(path):
            lobby = cls(path, new_token(), delay, bot_seconds, say)
            lobby.kept(strict=True)
            return lobby
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError, RecursionError) as err:
            raise verbs.Usage(f"--lobby {path}: cannot read it: {getattr(err, 'strerror', None) or err}") from None
        if not (isinstance(data, dict) and data.get("format") == FORMAT and isinstance(data.get("token"), str)
                and isinstance(data.get("tables"), list) and all(isinstance(s, str) for s in data["tables"])):
            raise verbs.Usage(f"--lobby {path}: not a lobby file of railrules serve (format {FORMAT}, "
                              "a token and the saves of its tables); give a new name to start a lobby")
        lobby = cls(path, data["token"], delay, bot_seconds, say)
        for name in dict.fromkeys(data["tables"]):      # (a save listed twice is served once)
            save = path.parent / name
            try:
                lobby.tables.append(lobby.resume(save))
            except RailrulesError as err:
                lobby.broken.append({"save": str(save), "error": err.diagnostics[0].message})
                say(f"{save}: not served ({err.diagnostics[0].message}); still listed in {path}")
        return lobby

    def kept(self, strict: bool = False) -> None:
        """Write the lobby file (nothing for a server of one table): its token and every table's
        save, the broken ones too (their games are not lost)."""
        if self.path is None:
            return
        folder = self.path.parent
        saves = [str(t.save_path) for t in self.tables] + [b["save"] for b in self.broken]
        text = json.dumps({"format": FORMAT, "token": self.token,
                           "tables": [os.path.relpath(s, folder) for s in saves]}, indent=1)
        try:
            outputs.write(self.path, text)
        except outputs.OutputError as err:
            if strict:
                raise verbs.Usage(f"--lobby {self.path}: {err.why}") from None
            self.say(f"the lobby file is not written ({err}): a restart would not list every table")

    # ------------------------------------------------------------------ the lobby page
    def shelf(self) -> list:
        """The rulesets the lobby may start: name, title, players, variants (loaded once)."""
        if self._shelf is None:
            found = []
            for name in shipped_rulesets():
                try:
                    rs = load_ruleset(name)
                except RailrulesError:
                    continue
                found.append({"name": name, "title": rs.title, "players": [rs.players_min, rs.players_max],
                              "variants": rs.variants()})
            self._shelf = found
        return self._shelf

    def state(self) -> dict:
        return {"tables": [listed(t) for t in list(self.tables)], "broken": list(self.broken),
                "rulesets": self.shelf(), "bots": list(BOTS)}

    def start(self, form: dict) -> dict:
        """A new table from the lobby's form ``{ruleset, variant, players, people: [seat
        numbers] (default [1]), bots, seed}`` (seed: drawn when none); Refused (422) for anything the lobby
        may not start, before anything is written."""
        name, variant, n, seats, bots, seed = (form.get(k) for k in ("ruleset", "variant", "players", "people",
                                                                     "bots", "seed"))
        shelf = {r["name"]: r for r in self.shelf()}
        if not isinstance(name, str) or name not in shelf:
            raise Refused(422, f"no ruleset {_shown(name)} here: choose one of {', '.join(shelf)}")
        entry = shelf[name]
        variant = variant or None
        if variant is not None and (not isinstance(variant, str) or variant not in entry["variants"]):
            raise Refused(422, f"{name} has no variant {_shown(variant)}: its variants are "
                          f"{', '.join(entry['variants']) or 'none'}")
        low, high = entry["players"]
        if not (_whole(n) and low <= n <= high):
            raise Refused(422, f"{entry['title']} is for {low} to {high} players, not {_shown(n)}")
        seats = [1] if seats is None else seats      # as the command's --seats
        if not (isinstance(seats, list) and all(_whole(k) and 1 <= k <= n for k in seats)):
            raise Refused(422, f"people: give seat numbers from 1 to {n}, not {_shown(seats)}")
        bots = bots or "random"
        if not isinstance(bots, str) or any(spec.split(":")[0] not in BOTS for spec in bots.split(",")):
            raise Refused(422, f"bots: the lobby seats {', '.join(BOTS)} (with their settings), not "
                          f"{_shown(bots)}; your own bot: start its table with railrules serve --bots")
        try:
            check_specs(bots)
        except BotSpecError as err:
            raise Refused(422, f"bots: {err}") from None
        if bots.count(",") not in (0, n - 1):
            raise Refused(422, f"bots: give one for every seat, or one per seat ({n})")
        if seed is None or seed == "":
            seed = random.SystemRandom().randrange(1, 1_000_000)
        if not (_whole(seed) and 0 <= seed < 2**63):
            raise Refused(422, f"seed: give a whole number from 0, not {_shown(seed)}")
        try:
            game = load_ruleset(name, variant).new_game(n, seed)
        except RailrulesError as err:
            raise Refused(422, f"cannot start {name}: {err.diagnostics[0].message}") from None
        folder = self.path.parent if self.path is not None else Path(".")
        try:
            save = reserve_save(game, folder / f"{name}{'-' + variant if variant else ''}-seed{seed}.save.json",
                                numbered=True)
        except outputs.OutputError as err:
            raise Refused(500, f"cannot start the table: {err}") from None
        table = self.seat(game, [f"p{k}" for k in sorted(set(seats))], bots, save)
        self.add(table)
        return {"started": listed(table)}


def listed(table: Table) -> dict:
    """A table as the lobby lists it."""
    with table.lock:
        game = table.game
        return {"title": game.ruleset.title, "ruleset": game.ruleset.name, "variant": game.ruleset.variant,
                "players": len(game.players), "seed": game.state["seed"], "decisions": game.decisions,
                "over": game.is_over, "turn": [table.name(p) for p in game.deciding],
                "winners": [table.name(p) for p in game.result["winners"]] if game.is_over else [],
                "save": str(table.save_path), "table": f"/play/{table.host}",
                "seats": [{"name": table.name(p), "plays": table.plays(p),
                           "link": f"/play/{table.tokens[p]}" if p in table.humans else None}
                          for p in game.players]}


def _whole(x) -> TypeGuard[int]:
    return isinstance(x, int) and not isinstance(x, bool)


def _shown(value) -> str:
    """A value of a form, quoted and cut short for a message."""
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 40 else text[:37] + "..."


__all__ = ["FORMAT", "Lobby", "listed"]
