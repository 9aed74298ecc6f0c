"""One game served to browsers: who sits where (people and bots), each page's secret token,
what each page may see, and the requests a page makes (act, let a bot move, why, undo, save,
load). Knows nothing of HTTP: :mod:`.app` turns its answers and :class:`Refused` into JSON.

Pages: the table's page (the host's, hotseat: it acts for whichever person is to move and shows
that seat's view while it is their turn, the public view otherwise) and one page per person's
seat, which shows only that seat's view and acts only for it. Every change bumps ``version``; a
request that acts says which version it saw, so a stale click or two pages stepping the same bot
change nothing.
"""
from __future__ import annotations

import secrets
import threading
from pathlib import Path

from railrules.interpreter import IllegalAction
from railrules.interpreter.errors import RailrulesError

from railrules.tools.pictures.board_model import board_model
from railrules.tools.bots.players import seat_bots
from railrules.tools.play.terminal import option_cost, option_names, explain, load_save_text, paused_in, said, save, take_back
from railrules.tools.play.summary import standings, summary
from railrules.tools.pictures.svg_board import to_svg

LOG_LINES = 300     # the last lines of the log a page gets


class Refused(Exception):
    """A request the table refuses: an HTTP status and a message for the person, with extra
    fields (``why``: why the action is not allowed)."""

    def __init__(self, status: int, message: str, **extra):
        super().__init__(message)
        self.status, self.message, self.extra = status, message, extra


class Table:
    def __init__(self, game, humans: list[str], bots: str, seed: int, save_path: Path,
                 delay: float = 0.6):
        self.game, self.humans, self.specs, self.save_path = game, list(humans), bots, save_path
        self.bots = seat_bots(bots, game.players, seed)
        self.delay = delay
        self.lock = threading.RLock()
        self.version = 0
        self.mine: list[int] = []   # how many actions could be undone before each person's decision
        self.last: dict | None = None
        self._board: tuple | None = None   # (version, owners, svg)
        self.host = secrets.token_urlsafe(18)
        self.seat_tokens = {secrets.token_urlsafe(18): seat for seat in self.humans}

    # ------------------------------------------------------------------ pages
    def page(self, token: str):
        """The seat a token opens (None: the table's page); Refused if it opens none."""
        given = token.encode("utf-8", "surrogatepass")   # (compare_digest takes ASCII text only)
        if secrets.compare_digest(given, self.host.encode()):
            return None
        for known, seat in self.seat_tokens.items():
            if secrets.compare_digest(given, known.encode()):
                return seat
        raise Refused(404, "no game page at this address: use a link printed by railrules serve")

    def links(self) -> dict:
        """Page name -> its path: the table's, then each person's seat."""
        names = self.game.state["entities"]
        return {"table": f"/play/{self.host}",
                **{str(names[s]["name"]): f"/play/{t}" for t, s in self.seat_tokens.items()}}

    def _shown(self, seat):
        """Whose view a page shows: its seat; the table's page, the person to move."""
        if seat is not None:
            return seat
        current = self.game.current_player
        return current if current in self.humans else None

    def _acting(self, seat) -> str:
        current = self.game.current_player
        if self.game.is_over:
            raise Refused(409, "the game is over")
        if self.game.committing and seat in self.humans:   # a commitment, from its own page
            if seat in self.game.deciding:
                return seat
            raise Refused(409, f"{self._name(seat)} has already committed in this round of secret "
                          f"choices: waiting for {', '.join(map(self._name, self.game.deciding))}")
        if current not in self.humans:
            raise Refused(409, "a bot is to move, not a person")
        if seat is not None and seat != current:
            raise Refused(403, f"it is {self._name(current)}'s turn, not yours")
        return current

    def _name(self, seat) -> str:
        return str(self.game.state["entities"].get(seat, {}).get("name", seat))

    def _check_version(self, version) -> None:
        if version != self.version:
            raise Refused(409, "the game moved on since this page looked: look again", version=self.version)

    # ------------------------------------------------------------------ what a page sees
    def state(self, seat, have: int | None = None) -> dict:
        with self.lock:
            game = self.game
            shown = self._shown(seat)
            current = game.current_player
            yours = not game.is_over and current in self.humans and seat in (None, current) \
                or (seat in self.humans and seat in game.deciding)
            owners, svg = self._drawn()
            colours = {m: c for m, (_, c) in owners.items()}
            out = {
                "version": self.version, "title": game.ruleset.meta.get("title", game.ruleset.name),
                "page": "table" if seat is None else self._name(seat), "seat": seat,
                "shown": shown, "decisions": game.decisions, "delay": self.delay,
                "secret": bool(game.ruleset.meta.get("secret")),
                "seats": [{"id": p, "name": self._name(p), "colour": colours.get(p),
                           "plays": "person" if p in self.humans else self._spec(p),
                           "current": p == current} for p in game.players],
                "current": current, "over": game.is_over,
                "summary": summary(game, shown),
                "paused": paused_in(game) if yours else "",
                "options": self._options(current if seat is None else seat) if yours else [],
                "can_undo": self._may_undo(seat) and bool(self.mine),
                "last": self._last_for(shown),
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
            return out

    def _spec(self, seat) -> str:
        parts = self.specs.split(",")
        return parts[self.game.players.index(seat)] if len(parts) > 1 else parts[0]

    def _drawn(self) -> tuple[dict, str]:
        """The board's owners (entity -> (name, colour)) and picture, drawn once per version."""
        if self._board is None or self._board[0] != self.version:
            model = board_model(self.game)
            self._board = (self.version, model.owners, to_svg(model, ids=False, marks=True, panels=True))
        return self._board[1], self._board[2]

    def _options(self, seat) -> list:
        game = self.game
        return [{"label": a.label, "name": a.name, "args": [str(x) for x in a.args],
                 "names": option_names(game, a).strip(), "cost": option_cost(game, a).strip(),
                 "hexes": self._hexes_of(a)}
                for a in game.legal_actions(seat)]

    def _hexes_of(self, action) -> list:
        """The values of an action that are hexes of the board (a click on one of them takes it)."""
        board = self.game.ruleset.board
        return [x for x in action.args if isinstance(x, str) and board is not None and x in board.adj]

    # ------------------------------------------------------------------ acting
    def act(self, seat, label, version) -> dict:
        """The person to move takes the action ``label`` (as the page lists it)."""
        if not isinstance(label, str) or not label.strip():
            raise Refused(400, "give the action's label, e.g. {\"label\": \"bid 8\", \"version\": 3}")
        with self.lock:
            self._check_version(version)
            mover = self._acting(seat)
            before = self.game.undoable
            try:
                action = self.game.to_action(label, mover)
                shown = said(self.game, action)
                self.game.apply(action, player=mover)
            except IllegalAction as err:
                raise Refused(409, f"not allowed: {err.diagnostics[0].message}",
                              why=explain(self.game, label)) from None
            self.mine.append(before)
            self._moved(mover, action, shown)
            return {"done": action.label, "version": self.version}

    def step(self, version) -> dict:
        """The bot to move makes its move (a page asks, at the speed its person chose)."""
        with self.lock:
            self._check_version(version)
            game = self.game
            if game.is_over:
                raise Refused(409, "the game is over")
            mover = game.current_player
            if mover in self.humans:
                raise Refused(409, f"{self._name(mover)} is a person: a bot moves only in its turn")
            action = self.bots[mover].choose(game)
            shown = said(game, action)
            game.apply(action)
            self._moved(mover, action, shown)
            return {"done": shown, "version": self.version}

    def _moved(self, mover, action, shown: str) -> None:
        """``shown``: the action as every page may read it (a commitment: "commits")."""
        self.version += 1
        self.last = {"by": self._name(mover), "label": shown,
                     "hexes": self._hexes_of(action) if shown == action.label else [],
                     "mover": mover, "action": action}

    def _last_for(self, seat) -> dict | None:
        """The last move as ``seat`` may read it (a commitment: "commits"; an option's secret
        parameters hidden)."""
        if self.last is None:
            return None
        last = {k: v for k, v in self.last.items() if k not in ("mover", "action")}
        if last["label"] == self.last["action"].label:
            last["label"] = self.game.label_for(self.last["action"], self.last["mover"], seat)
        return last

    def why(self, seat, label=None, hex_id=None) -> dict:
        """Why an action (or a click on a hex) is refused or allowed, with the rule that says so."""
        with self.lock:
            self._asks_in_turn(seat)
            if hex_id is not None:
                return {"why": self._why_hex(hex_id)}
            if not isinstance(label, str):
                raise Refused(400, "give the action's label: {\"label\": \"bid 8\"} (or a hex: {\"hex\": \"H5\"})")
            return {"why": explain(self.game, label.strip())}

    def _asks_in_turn(self, seat) -> None:
        """In a game with secret fields, a page asks why only in a turn it plays: in another
        seat's, the answer could tell what that seat may do, and so what it holds."""
        current = self.game.current_player
        if not self.game.ruleset.meta.get("secret") or current is None:
            return
        if current not in self.humans or (seat is not None and seat != current):
            raise Refused(403, f"it is {self._name(current)}'s turn, and this game has secrets: "
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

    def undo(self, seat) -> dict:
        """Take back the person's last decision and the bots' moves after it: only when the
        other seats are all bots (nobody else's decision is taken back)."""
        with self.lock:
            if len(self.humans) != 1:
                raise Refused(409, "undo is for a game of one person against bots: here "
                              f"{len(self.humans)} people play, and undo would take back another's move")
            if not self._may_undo(seat):
                raise Refused(403, "only the person playing may undo")
            if not self.mine:
                raise Refused(409, "nothing to undo: no decision of yours since the game was started or loaded")
            text = take_back(self.game, self.mine, [0])
            self.version += 1
            self.last = None
            return {"done": text, "version": self.version}

    def save(self, seat) -> dict:
        """Write the save file (the format of ``railrules play``) and return its text: the
        table's page only (a save holds every secret). Text, never parsed on the way: a page's
        JavaScript reads numbers as doubles, which change a whole number above 2^53 (the
        generator's state)."""
        if seat is not None:
            raise Refused(403, "only the table's page saves: a save holds every player's secrets")
        with self.lock:
            try:
                text = save(self.game, self.save_path)
            except OSError as err:
                raise Refused(500, f"not saved: cannot write {self.save_path}: {err.strerror or err}") from None
            return {"saved": str(self.save_path), "text": text}

    def load(self, seat, text: str) -> dict:
        """Continue the game of a save (the text of a save file) with this table's ruleset
        folder, seats and bots."""
        if seat is not None:
            raise Refused(403, "only the table's page loads a game")
        with self.lock:
            ruleset = self.game.ruleset
            try:
                game = load_save_text(text, "the uploaded save", str(ruleset.root))
            except RailrulesError as err:
                raise Refused(422, f"cannot load: {err.diagnostics[0].message}") from None
            if game.ruleset.name != ruleset.name or game.players != self.game.players:
                raise Refused(422, f"cannot load: the save is a game of {game.ruleset.name} for "
                              f"{len(game.players)} players; this table plays {ruleset.name} for "
                              f"{len(self.game.players)}")
            self.game = game
            self.bots = seat_bots(self.specs, game.players, game.state["seed"])
            self.mine, self.last = [], None
            self.version += 1
            return {"done": f"loaded a game at decision {game.decisions}", "version": self.version}
