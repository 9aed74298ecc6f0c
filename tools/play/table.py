"""The play table: one game, who sits where (people and bots), and what a seat may do and see —
a person's decision, a bot's move (within a time limit), why an action is or is not allowed,
undo, save and load. Its front ends are the terminal (:mod:`.terminal`, one person against
bots) and the browser (:mod:`.serve`, any mix); it knows nothing of either.

The browser's pages: the table's page (the host's, hotseat: it acts for whichever person is to
move and shows that seat's view while it is their turn, the public view otherwise) and one page
per person's seat, which shows only that seat's view and acts only for it. In a game with
secrets (secret fields, or an open round of secret choices) the table's page is sent the public
view, behind a curtain, until the person to move lifts it (:meth:`Table.lift`): what a seat may
not show to the others never reaches the device before its person holds it. Every change bumps
``version``; a request that acts says which version it saw, so a stale click or two pages
stepping the same bot change nothing. A bot thinks on a copy of the game, outside the table's
lock, so that the pages are answered meanwhile.

The files a session writes its game to are written here (whole or not at all,
:mod:`..common.outputs`); their text and how a game is read back are
:mod:`railrules.interpreter.saves`'.
"""
from __future__ import annotations

import argparse
import os
import secrets
import tempfile
import threading
from pathlib import Path

from railrules.interpreter import IllegalAction
from railrules.interpreter.engine import secrecy
from railrules.interpreter.errors import RailrulesError
from railrules.interpreter.paths import in_ruleset
from railrules.interpreter.saves import game_of_save, read_save, replays, save_text

from railrules.tools.bots.players import seat_bots
from railrules.tools.common import outputs, words
from railrules.tools.common.outputs import OutputError
from railrules.tools.pictures.board_model import in_progress

LOG_LINES = 300     # the last lines of the log a page gets
FALLBACK = "the first of its legal actions"   # what a bot whose time is spent plays


NO_PAGE = "no game page at this address: use a link printed by railrules serve"


def new_token() -> str:
    """A page's secret token: 144 random bits, as URL-safe text."""
    return secrets.token_urlsafe(18)


class Refused(Exception):
    """A request the table refuses: an HTTP status and a message for the person, with extra
    fields (``why``: why the action is not allowed)."""

    def __init__(self, status: int, message: str, **extra):
        super().__init__(message)
        self.status, self.message, self.extra = status, message, extra


class Table:
    """``humans``: the seats people play; ``bots``: the bots' spec (one, or one per seat);
    ``save_path``: where the page's save (and ``autosave``) writes (None: a table that saves
    nothing, an all-bot game's); ``bot_seconds``: how long a bot may think (None: as long as it
    takes), after which its move is :data:`FALLBACK`; ``autosave``: write ``save_path`` after
    every decision (the browser's
    table: a killed server loses nothing); ``say``: where a note for the host goes (a bot out of
    time); ``tokens``: the pages' secret tokens kept from an earlier run of the same table
    (``{"host": TOKEN, "seats": {seat: TOKEN}}``, :mod:`.links`), so that its links stay the
    same (new ones for what it lacks)."""

    def __init__(self, game, humans: list[str], bots: str, seed: int, save_path: Path | None = None,
                 delay: float = 0.6, bot_seconds: float | None = None, autosave: bool = False,
                 say=None, tokens: dict | None = None):
        self.game, self.humans, self.specs, self.save_path = game, list(humans), bots, save_path
        self.bots = seat_bots(bots, game.players, seed, game.ruleset)
        self.delay, self.bot_seconds, self.autosave = delay, bot_seconds, autosave
        self.say = say or (lambda text: None)
        self.lock = threading.RLock()
        self.version = 0
        self.mine: list[int] = []   # how many actions could be undone before each person's decision
        self.last: dict | None = None
        self.thinking = False       # a bot is choosing (outside the lock)
        self.lifted: str | None = None   # the person whose view the table's page shows (their curtain lifted)
        self.unsaved = ""           # why the last save after a decision failed
        self._strays: dict = {}     # id(bot) -> the thread of a bot that ran out of time, still running
        self._board: tuple | None = None   # (version, owners, svg)
        self.replayable = replays(game)    # (and so it stays, as actions are applied and undone)
        kept = tokens or {"seats": {}}
        self.host = kept.get("host") or new_token()
        self.tokens = {seat: kept["seats"].get(seat) or new_token() for seat in game.players
                       if seat in self.humans or seat in kept["seats"]}   # a seat's, also once a bot's
        self.seat_tokens = {self.tokens[seat]: seat for seat in self.humans}

    # ------------------------------------------------------------------ seats
    def name(self, seat) -> str:
        return str(self.game.state["entities"].get(seat, {}).get("name", seat))

    def page(self, token: str):
        """The seat a token opens (None: the table's page); Refused if it opens none."""
        found, seat = self.opens(token)
        if not found:
            raise Refused(404, NO_PAGE)
        return seat

    def opens(self, token: str) -> tuple[bool, str | None]:
        """(whether ``token`` opens a page of this table, the seat it opens or None: the table's)."""
        given = token.encode("utf-8", "surrogatepass")   # (compare_digest takes ASCII text only)
        if secrets.compare_digest(given, self.host.encode()):
            return True, None
        for known, seat in self.seat_tokens.items():
            if secrets.compare_digest(given, known.encode()):
                return True, seat
        return False, None

    def links(self) -> dict:
        """Page name -> its path: the table's, then each person's seat."""
        return {"table": f"/play/{self.host}",
                **{self.name(s): f"/play/{t}" for t, s in self.seat_tokens.items()}}

    def _shown(self, seat):
        """Whose view a page shows: its seat; the table's page, the person to move."""
        if seat is not None:
            return seat
        current = self.game.current_player
        return current if current in self.humans else None

    def curtain(self, seat) -> str | None:
        """On the table's page of a game with secrets (secret fields, or an open round of secret
        choices): the person to move, while their view is hidden because they have not lifted
        the curtain (:meth:`lift`); None when the page may show what it shows."""
        shown = self._shown(None) if seat is None else None   # (a seat's own page has none)
        if shown is None or shown == self.lifted:
            return None
        return shown if self.game.ruleset.meta.get("secret") or self.game.committing else None

    def lift(self, seat, who) -> dict:
        """The person ``who`` (the seat the curtain names) lifts it: the table's page shows their
        view until another person's turn."""
        with self.lock:
            if seat is not None:
                raise Refused(403, "only the table's page has a curtain")
            hidden = self.curtain(seat)
            if hidden is None or who != hidden:
                raise Refused(409, "the turn moved on since this page looked: look again", version=self.version)
            self.lifted = who
            return {"shown": who, "version": self.version}

    def _closed(self, seat) -> None:
        """Refuse a request of the table's page made behind the curtain."""
        hidden = self.curtain(seat)
        if hidden is not None:
            raise Refused(403, f"{self.name(hidden)}'s view is hidden: {self.name(hidden)} shows it first "
                          "(this game has secrets)")

    def _acting(self, seat) -> str:
        current = self.game.current_player
        if self.game.is_over:
            raise Refused(409, "the game is over")
        self._closed(seat)
        if self.game.committing and seat in self.humans:   # a commitment, from its own page
            if seat in self.game.deciding:
                return seat
            raise Refused(409, f"{self.name(seat)} has already committed in this round of secret "
                          f"choices: waiting for {', '.join(map(self.name, self.game.deciding))}")
        if current not in self.humans:
            raise Refused(409, "a bot is to move, not a person")
        if seat is not None and seat != current:
            raise Refused(403, f"it is {self.name(current)}'s turn, not yours")
        return current

    def _check_version(self, version) -> None:
        if version != self.version:
            raise Refused(409, "the game moved on since this page looked: look again", version=self.version)

    # ------------------------------------------------------------------ what a page sees
    def state(self, seat, have: int | None = None) -> dict:
        from railrules.tools.play.summary import standings, summary
        with self.lock:
            game = self.game
            hidden = self.curtain(seat)
            shown = None if hidden else self._shown(seat)
            current = game.current_player
            yours = not hidden and (not game.is_over and current in self.humans and seat in (None, current)
                                    or (seat in self.humans and seat in game.deciding))
            owners, svg = self._drawn()
            colours = {m: c for m, (_, c) in owners.items()}
            out = {
                "version": self.version, "title": game.ruleset.meta.get("title", game.ruleset.name),
                "page": "table" if seat is None else self.name(seat), "seat": seat,
                "shown": shown, "decisions": game.decisions, "delay": self.delay,
                "secret": bool(game.ruleset.meta.get("secret")), "curtain": hidden,
                "seats": [{"id": p, "name": self.name(p), "colour": colours.get(p),
                           "plays": self.plays(p),
                           "current": p == current} for p in game.players],
                "current": current, "over": game.is_over,
                "summary": summary(game, shown),
                "paused": paused_in(game) if yours else "",
                "options": self._options(current if seat is None else seat) if yours else [],
                "example": words.example(game, "pass") if yours else "",   # for 'why…, e.g. LABEL'
                "can_undo": not hidden and self._may_undo(seat) and bool(self.mine),
                "last": self.last_for(shown),
            }
            log = game.messages_for(shown)
            out["log"], out["log_total"] = log[-LOG_LINES:], len(log)
            if game.is_over:
                result = game.result
                out["standings"] = standings(game, game.view(shown))
                out["scores"] = {p: result["scores"][p] for p in game.players}
                out["winners"] = list(result["winners"])
            if have != self.version:
                out["board"] = svg
            if seat is None:
                out["links"] = self.links()
                out["save_path"] = str(self.save_path)
                if self.unsaved:
                    out["unsaved"] = self.unsaved
            return out

    def plays(self, seat) -> str:
        """Who plays ``seat``: 'person', or its bot's spec."""
        return "person" if seat in self.humans else self._spec(seat)

    def _spec(self, seat) -> str:
        parts = self.specs.split(",")
        return parts[self.game.players.index(seat)] if len(parts) > 1 else parts[0]

    def _drawn(self) -> tuple[dict, str]:
        """The board's owners (entity -> (name, colour)) and picture, drawn once per version."""
        from railrules.tools.pictures.board_model import board_model
        from railrules.tools.pictures.svg_board import to_svg
        if self._board is None or self._board[0] != self.version:
            model = board_model(self.game)
            self._board = (self.version, model.owners, to_svg(model, ids=False, marks=True, panels=True))
        return self._board[1], self._board[2]

    def _options(self, seat) -> list:
        game = self.game
        return [{"label": a.label, "name": a.name, "args": [str(x) for x in a.args],
                 "names": option_names(game, a).strip(), "cost": option_cost(game, a).strip(),
                 "about": words.described(game, a), "hexes": self._hexes_of(a)}
                for a in game.legal_actions(seat)]

    def _hexes_of(self, action) -> list:
        """The values of an action that are hexes of the board (a click on one of them takes it)."""
        board = self.game.ruleset.board
        return [x for x in action.args if isinstance(x, str) and board is not None and x in board.adj]

    def last_for(self, seat) -> dict | None:
        """The last move as ``seat`` may read it (None: as everyone may): a commitment in a round
        of secret choices reads "commits" (revealed with the others' in the log), an option's
        secret parameters hidden (:meth:`Game.label_for`)."""
        if self.last is None:
            return None
        last = {k: v for k, v in self.last.items() if k not in ("mover", "action")}
        if last["label"] == self.last["action"].label:
            last["label"] = self.game.label_for(self.last["action"], self.last["mover"], seat)
        return last

    # ------------------------------------------------------------------ moves
    def decide(self, mover, choice):
        """``mover`` (a person) takes ``choice`` (an action, or its label as typed); returns the
        action; IllegalAction (nothing changed) when it is not allowed."""
        game = self.game
        before = game.undoable
        action = game.to_action(choice, mover)
        committing = game.committing
        game.apply(action, player=mover)
        self.mine.append(before)
        self._moved(mover, action, committing)
        return action

    def bot_move(self, version: int | None = None) -> dict:
        """The bot to move chooses, on a copy of the game and outside the lock (the table answers
        meanwhile), within :attr:`bot_seconds`; its move is made and returned as everyone may
        read it (:attr:`last`). Refused if the game is not at ``version`` (when given), is over or
        waits for a person, if another bot is thinking, or if the game moved on (an undo, a
        load) while it thought."""
        with self.lock:
            if version is not None:
                self._check_version(version)
            if self.game.is_over:
                raise Refused(409, "the game is over")
            if self.game.current_player in self.humans:
                raise Refused(409, f"{self.name(self.game.current_player)} is a person: a bot moves only in its turn")
            if self.thinking:
                raise Refused(409, "a bot is thinking already: look again in a moment", version=self.version)
            mover, version, copy = self.game.current_player, self.version, self.game.clone()
            self.thinking = True
        try:
            action, note = self._think(mover, copy)
            with self.lock:
                if self.version != version:
                    raise Refused(409, "the game moved on while the bot thought: look again", version=self.version)
                if action is None:
                    action = self.game.legal_actions()[0]
                    self.say(note)
                committing = self.game.committing
                self.game.apply(action)
                self._moved(mover, action, committing, note)
                return self.last   # type: ignore[return-value]
        finally:
            self.thinking = False

    def _think(self, mover, game) -> tuple:
        """(the bot's action, '') or, when its time is spent, (None, a note saying so)."""
        bot = self.bots[mover]
        if self.bot_seconds is None:
            return bot.choose(game), ""
        late = f"{self.name(mover)}'s bot ({self._spec(mover)}) "
        stray = self._strays.get(id(bot))
        if stray is not None and stray.is_alive():
            return None, late + f"is still thinking about an earlier move: it plays {FALLBACK}"
        box: dict = {}

        def think():
            try:
                box["action"] = bot.choose(game)
            except BaseException as err:   # raised again in the table's thread
                box["error"] = err
        worker = threading.Thread(target=think, name=f"bot of {mover}", daemon=True)
        worker.start()
        worker.join(self.bot_seconds)
        if worker.is_alive():
            self._strays[id(bot)] = worker
            return None, late + f"spent its {self.bot_seconds:g} s (--bot-seconds): it plays {FALLBACK}"
        if "error" in box:
            raise box["error"]
        return box["action"], ""

    def _moved(self, mover, action, committing: bool, note: str = "") -> None:
        self.version += 1
        shown = "commits" if committing else action.label
        self.last = {"by": self.name(mover), "label": shown,
                     "hexes": self._hexes_of(action) if shown == action.label else [],
                     "mover": mover, "action": action, **({"note": note} if note else {})}
        self._kept()

    def act(self, seat, label, version) -> dict:
        """The page's person to move takes the action ``label`` (as the page lists it)."""
        if not isinstance(label, str) or not label.strip():
            raise Refused(400, "give the action's label as the page lists it: {\"label\": LABEL, \"version\": 3}")
        with self.lock:
            self._check_version(version)
            mover = self._acting(seat)
            try:
                action = self.decide(mover, label)
            except IllegalAction as err:
                raise Refused(409, f"not allowed: {err.diagnostics[0].message}",
                              why=explain(self.game, label)) from None
            return {"done": action.label, "version": self.version}

    def step(self, version) -> dict:
        """The bot to move makes its move (a page asks, at the speed its person chose)."""
        last = self.bot_move(version)
        return {"done": last["label"], "version": self.version, **({"note": last["note"]} if "note" in last else {})}

    # ------------------------------------------------------------------ why
    def why(self, seat, label=None, hex_id=None) -> dict:
        """Why an action (or a click on a hex) is refused or allowed, with the rule that says so."""
        with self.lock:
            self._asks_in_turn(seat)
            if hex_id is not None:
                return {"why": self._why_hex(hex_id)}
            if not isinstance(label, str):
                raise Refused(400, "give the action's label as the page lists it: {\"label\": LABEL} (or a hex: {\"hex\": HEX})")
            return {"why": explain(self.game, label.strip())}

    def _asks_in_turn(self, seat) -> None:
        """In a game with secret fields, a page asks why only in a turn it plays: in another
        seat's, the answer could tell what that seat may do, and so what it holds."""
        self._closed(seat)
        current = self.game.current_player
        if not self.game.ruleset.meta.get("secret") or current is None:
            return
        if current not in self.humans or (seat is not None and seat != current):
            raise Refused(403, f"it is {self.name(current)}'s turn, and this game has secrets: "
                          "ask why in a turn you play")

    def _why_hex(self, hex_id) -> str:
        """Why a click on the hex takes no option: what each option that names a hex says when
        it names this one instead (in place of the last hex it names)."""
        game = self.game
        board = game.ruleset.board
        if not isinstance(hex_id, str) or board is None or hex_id not in board.adj:
            return f"there is no hex {hex_id} on this board"
        if game.is_over:
            return "the game is over"
        legal = game.legal_actions()
        if any(hex_id in a.args for a in legal):
            return ", ".join(f"'{a.label}'" for a in legal if hex_id in a.args) + " allowed now"
        tried: list[str] = []
        for a in legal:
            places = [k for k, x in enumerate(a.args) if isinstance(x, str) and x in board.adj]
            if places:
                args = list(a.args)
                args[places[-1]] = hex_id
                label = type(a)(a.name, tuple(args)).label
                if label not in tried:
                    tried.append(label)
        if not tried:
            return f"no option names a hex now: choose among {', '.join(sorted({a.name for a in legal}))}"
        return "; ".join(explain(game, label) for label in tried[:3])

    # ------------------------------------------------------------------ undo, save, load
    def _may_undo(self, seat) -> bool:
        return len(self.humans) == 1 and seat in (None, self.humans[0])

    def take_back(self) -> str:
        """Undo the person's last decision and everything after it: the bots' moves (the other
        seats are all bots, so nobody else's decision is taken back)."""
        back = self.game.undoable - self.mine.pop()
        self.game.undo(back)
        self.version += 1
        self.last = None
        self._kept()
        return f"took back {back} decision(s): your turn again"

    def undo(self, seat) -> dict:
        """:meth:`take_back` for a page: only when the other seats are all bots."""
        with self.lock:
            if len(self.humans) != 1:
                raise Refused(409, "undo is for a game of one person against bots: here "
                              f"{len(self.humans)} people play, and undo would take back another's move")
            if not self._may_undo(seat):
                raise Refused(403, "only the person playing may undo")
            if not self.mine:
                raise Refused(409, "nothing to undo: no decision of yours since the game was started or loaded")
            return {"done": self.take_back(), "version": self.version}

    def _kept(self) -> None:
        """After a decision, with ``autosave``: the save file written again (whole or not at all)."""
        if not self.autosave or self.save_path is None:
            return
        try:
            save(self.game, self.save_path, replayable=self.replayable)
            self.unsaved = ""
        except OutputError as err:
            if not self.unsaved:
                self.say(f"the game is not saved after its last decision: {err}")
            self.unsaved = f"not saved: {err}"

    def save(self, seat) -> dict:
        """Write the save file (the format of ``railrules play``) and return its text: the
        table's page only (a save holds every secret). Text, never parsed on the way: a page's
        JavaScript reads numbers as doubles, which change a whole number above 2^53 (the
        generator's state)."""
        if seat is not None:
            raise Refused(403, "only the table's page saves: a save holds every player's secrets")
        if self.save_path is None:
            raise Refused(409, "this table keeps no save file")
        with self.lock:
            try:
                text = save(self.game, self.save_path, replayable=self.replayable)
            except OSError as err:
                raise Refused(500, f"not saved: cannot write {self.save_path}: {err.strerror or err}") from None
            except OutputError as err:
                raise Refused(500, f"not saved: {err}") from None
            return {"saved": str(self.save_path), "text": text}

    def load(self, seat, text: str) -> dict:
        """Continue the game of a save (the text of a save file) with this table's ruleset, seats
        and bots. Nothing the save names is read: a save of another ruleset or variant is
        refused."""
        if seat is not None:
            raise Refused(403, "only the table's page loads a game")
        with self.lock:
            ruleset = self.game.ruleset
            where = "the uploaded save"
            try:
                saved = read_save(text, where)
                if (saved.ruleset, saved.variant) != (ruleset.name, ruleset.variant):
                    raise Refused(422, f"cannot load: the save is a game of {_called(saved.ruleset, saved.variant)}; "
                                  f"this table plays {_called(ruleset.name, ruleset.variant)}")
                told: list[str] = []
                game = game_of_save(saved, ruleset, where, tell=told.append)
            except RailrulesError as err:
                raise Refused(422, f"cannot load: {err.diagnostics[0].message}") from None
            if game.players != self.game.players:
                raise Refused(422, f"cannot load: the save is a game of {game.ruleset.name} for "
                              f"{len(game.players)} players; this table plays {ruleset.name} for "
                              f"{len(self.game.players)}")
            self.game, self.replayable = game, saved.replayable
            self.bots = seat_bots(self.specs, game.players, game.state["seed"], game.ruleset)
            self.mine, self.last = [], None
            self.version += 1
            self._kept()
            return {"done": "; ".join([f"loaded a game at decision {game.decisions}", *told]),
                    "version": self.version}


def _called(name: str, variant) -> str:
    return f"{name} (variant {variant})" if variant else name


def add_bot_seconds(parser, default: float | None) -> None:
    """The option --bot-seconds of the verbs that seat bots at a table (play, serve)."""
    def seconds(text: str) -> float | None:
        try:
            value = float(text)
        except ValueError:
            value = -1.0
        if not 0 <= value < float("inf"):
            raise argparse.ArgumentTypeError(f"'{text}': give a number of seconds, 0 or more (0: no limit)")
        return value or None
    parser.add_argument("--bot-seconds", type=seconds, default=default, metavar="N",
                        help="how long a bot may think about one move; when the time is spent, it "
                        f"plays {FALLBACK} and a line says so ("
                        + (f"default: {default}; 0: no limit)" if default else "default: no limit)"))


# ------------------------------------------------------------------ what an option says
def paused_in(game) -> str:
    """The rule waiting for this choice and its values (an auction's current bid and who is still
    in...), from the innermost paused frame; nothing for a ruleset with secret fields, whose
    rules' values may hold a secret."""
    lines, _ = in_progress(game)
    return f"{lines[0]}: " + "; ".join(lines[1:]) if len(lines) > 1 else ""


def option_cost(game, action) -> str:
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


def option_names(game, action) -> str:
    """The display names of the entities an action names by id, when they differ: '  (Red Line)'."""
    entities = game.state["entities"]
    names = [str(entities[x]["name"]) for x in action.args
             if isinstance(x, str) and x in entities and entities[x].get("name") not in (None, x)]
    return f"  ({', '.join(names)})" if names else ""


def as_listed(game, text: str) -> str:
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


def explain(game, label: str) -> str:
    """Why the action ``label`` is or is not allowed now, with the place of the rule that decides;
    a name that is nothing in the game (a hex not on the board) is said to be so."""
    if not label:
        return f"why what? type: why LABEL (an action as the list shows it, e.g. why {words.example(game)})"
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


def _unknown_name(game, label: str) -> str:
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


# ------------------------------------------------------------------ the session's save file
def save(game, path: Path, new: bool = False, replayable: bool | None = None) -> str:
    """Write a save whole or not at all (:mod:`..common.outputs`), so that a failed save never
    destroys an older one; ``new``: only if no file is at ``path`` yet; ``replayable`` as
    :func:`~railrules.interpreter.saves.save_text`. Returns the text written; raises
    OutputError."""
    text = save_text(game, replayable)
    (outputs.create if new else outputs.write)(path, text)
    return text


def save_on_leaving(game, path: Path, out, again=None) -> int:
    """Save before leaving; when ``path`` cannot be written, save to a new file in the working
    folder or the temporary folder instead, so that the game is never lost. ``again(path)``: the
    command that continues the game saved there (default: `railrules play --resume PATH`; '': said
    by the caller)."""
    import random
    import shlex
    tries = [path] + [Path(folder) / f"railrules-{game.ruleset.name}-{random.randrange(10**6):06d}.save.json"
                      for folder in (".", tempfile.gettempdir())]
    for target in tries:
        try:
            save(game, target, new=target is not path)
        except OutputError as err:
            print(f"cannot save to {target}: {err.why}", file=out)
            continue
        command = again(target) if again else f"railrules play --resume {shlex.quote(str(target))}"
        print(f"saved to {target}" + (f"; continue with: {command}" if command else ""), file=out)
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


def take_save(game, save: Path | None, resume: Path | None, there: bool) -> Path:
    """The file a session saves its game to, taken now: created holding the game as it starts,
    exclusively, so that a second game given the same path is refused before it starts (when no
    --save is given, the first free RULESET-seedN.save.json, RULESET-seedN-2...). Not taken: the
    resumed file, the game's own, or a file that was ``there`` at the check (--force replaces
    it)."""
    from railrules.tools.common import verbs
    path = save or resume
    if path is not None and (path == resume or there):
        return path
    try:
        default = Path(f"{game.ruleset.name}-seed{game.state['seed']}.save.json")
        return reserve_save(game, path or default, numbered=path is None)
    except OutputError as err:
        raise verbs.Usage(f"--save {err.path}: {err.why}") from None


def reserve_save(game, path: Path, numbered: bool = False) -> Path:
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


__all__ = ["Refused", "Table", "FALLBACK", "NO_PAGE", "new_token", "add_bot_seconds", "paused_in", "option_cost", "option_names", "as_listed",
           "explain", "save", "save_on_leaving", "free_save_path", "take_save", "reserve_save"]
