"""The public game API: start, list legal actions, apply, save, load, replay."""
from __future__ import annotations

import hashlib
import json
import warnings
from collections import Counter, deque

from ..errors import BadSave, Diagnostic, IllegalAction, Pos, RulesRuntimeError
from ..runtime.rationals import Fraction
from ..runtime.strict_json import read_json
from ..runtime.values import word
from . import commitments, secrecy
from .log import Messages
from .machine import Action, Machine

LOG_FORMAT = "railrules-log-1"
_UNSET = object()   # apply(safe=...) not given
_DIGITS = 30        # a typed number longer than this is no legal action (the rules store up to 10^18)
ENGINE = "railrules-engine-2"  # the engine a log or save was made by
# what a player's view holds of the state (Game.view)
_VISIBLE = ("format", "ruleset", "variant", "hash", "players", "kinds", "entities", "globals",
            "waiting", "turn", "result")
STATE_FORMAT = "railrules-state-1"   # the state in memory (and in digests: logs keep them)
# A save (Game.to_json) names a paused rule's parts in words; in memory they are short keys,
# read at every step. A save of format 1 (short keys) still loads.
SAVE_FORMAT = "railrules-state-2"
_FRAME_WORDS = {"c": "unit", "pc": "at", "L": "locals", "r": "result_to"}
_FRAME_KEYS = {word: key for key, word in _FRAME_WORDS.items()}


class Game:
    """One game of a ruleset. All of its state is ``self.state``: plain JSON data.

    Examples
    --------
    >>> from railrules.interpreter import load_ruleset
    >>> from railrules.interpreter.paths import shipped_rulesets
    >>> game = load_ruleset(shipped_rulesets()[0]).new_game(players=3, seed=1)
    >>> game.is_over, game.current_player in game.players
    (False, True)
    """

    def __init__(self, ruleset, state: dict, messages: list | None = None):
        self.ruleset = ruleset
        self.state = state
        self._log = messages if messages is not None else []
        self.machine = Machine(ruleset, state, self._log)
        self._legal: list[Action] | None = None
        self._undo: list | deque = []  # one entry per applied action, for undo()

    # ------------------------------------------------------------------ creation
    @classmethod
    def new(cls, ruleset, players: int, seed: int = 0, messages: list | None = None,
            count_rules: bool = False, chance=None, undo: bool = True) -> "Game":
        """A new game; with ``count_rules``, its :attr:`rule_counts` counts the rules that fire.
        ``chance``: a function ``n -> a number in [0, n)`` that decides every draw instead of
        the seeded generator (for agent libraries with chance nodes; such a game's log does not
        replay from its seed). It stays with this game object (``game.machine.chance``), not
        with clones. ``undo=False``: a game played to the end that is never taken back (a
        playout): it keeps nothing to undo, so what each decision replaced is freed at once;
        :meth:`undo` then refuses. Its states, logs and results are the same."""
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise IllegalAction(Diagnostic("RR301", f"a game's seed is a whole number, not {seed!r:.40}",
                                           Pos("seed", 0, 0)))
        if not isinstance(players, int) or not ruleset.players_min <= players <= ruleset.players_max:
            raise IllegalAction(Diagnostic(
                "RR301", f"{ruleset.name} is for {ruleset.players_min} to {ruleset.players_max} "
                f"players, not {players}", Pos("players", 0, 0)))
        ids = [f"p{i}" for i in range(1, players + 1)]
        start = ruleset.start
        entities = dict(start["entities"])  # records are shared: a write copies (Machine.record)
        for i, p in enumerate(ids, 1):
            entities[p] = {**start["player"], "id": p, "kind": "players", "name": f"Player {i}",
                           "seat": i}
        state = {
            "format": STATE_FORMAT, "ruleset": ruleset.name, "variant": ruleset.variant,
            "hash": ruleset.hash, "players": players, "seed": seed,
            "rng": seed & ((1 << 64) - 1),
            "kinds": {"players": ids}, "entities": entities,
            "globals": start["globals"],
            "stack": [{"c": "game", "pc": 0, "L": {}, "r": None}],
            "waiting": False, "turn": None, "result": None, "history": [],
        }
        game = cls(ruleset, state, messages)
        if not undo:
            game._undo = deque(maxlen=0)  # each decision's undo (None) goes nowhere, at C speed
            game.machine.undoing = False
        if count_rules:
            game.machine.counts = Counter()
        game.machine.chance = chance
        game.machine.run()
        game.machine.commit()
        return game

    # ------------------------------------------------------------------ queries
    @property
    def is_over(self) -> bool:
        return self.state["result"] is not None

    @property
    def result(self) -> dict | None:
        """``{"reasons": [...], "scores": {player: n}, "winners": [...]}`` once over."""
        return self.state["result"]

    @property
    def current_player(self) -> str | None:
        """The seat asked now: in a round of secret choices, the first that has not committed
        (every seat of :attr:`deciding` may commit, in any order)."""
        return self.state["turn"]

    @property
    def committing(self) -> bool:
        """Whether the choice now is a round of secret choices: an action applied now is a
        commitment, to be shown to the other seats as "Player 2 commits" only."""
        return commitments.open_round(self.ruleset.program, self.state) is not None

    @property
    def undoable(self) -> int:
        """How many applied actions :meth:`undo` can take back (a commitment is one)."""
        return len(self._undo)

    @property
    def deciding(self) -> list[str]:
        """Every seat that may act now: the seats of an open round of secret choices that have
        not committed yet, else the current player (none once the game is over)."""
        found = commitments.open_round(self.ruleset.program, self.state)
        if found is not None:
            return commitments.pending(found[1])
        return [self.state["turn"]] if self.state["waiting"] else []

    @property
    def players(self) -> list[str]:
        return list(self.state["kinds"]["players"])

    @property
    def decisions(self) -> int:
        return len(self.state["history"])

    def hidden(self, entity: str, field: str, player: str | None) -> bool:
        """Whether ``player`` (None: an onlooker) may not see ``entity.field``: a field the
        ruleset declares ``secret`` for the entity's kind, unless it is the player's own."""
        return secrecy.hidden(self.state, self.ruleset.meta.get("secret", {}), entity, field, player)

    def view(self, player: str | None) -> dict:
        """The state as ``player`` may see it: fields the ruleset declares ``secret`` are hidden
        (``"hidden"``) — another player's, or any entity's for kinds other than players — and
        so is what the rules set from a secret (:mod:`.secrecy`).
        ``player=None`` is an onlooker who sees no secret at all. Nothing that could give a secret
        away is in a view: no seed or generator state (the future of chance), no list of past
        actions (with the seed, it would replay the game), no paused rules' locals; only how many
        decisions were made."""
        st = self.state
        view = json.loads(json.dumps({k: st[k] for k in _VISIBLE}))
        view["decisions"] = len(st["history"])
        secrecy.hide_in_view(view, self.ruleset.meta.get("secret", {}), self.ruleset.secrecy, player, st)
        found = commitments.open_round(self.ruleset.program, st)
        if found is not None:  # who is deciding, who has committed (not what)
            commitments.redact(view, found[1], player)
        return view

    def sees(self, player: str | None, line: str) -> bool:
        """Whether ``player`` may read a line of the log: not one that gives away a field
        hidden from them (``log ... reveals p.cash``)."""
        reveals = getattr(line, "reveals", None)
        return reveals is None or not self.hidden(reveals[0], reveals[1], player)

    @property
    def messages(self) -> Messages:
        """The whole log as text lines, written out as they are read (:mod:`.log`);
        ``messages.entries`` are the structured records."""
        return Messages(self._log)

    def messages_for(self, player: str | None, since: int = 0) -> list[str]:
        """The log as ``player`` may read it, from its line ``since`` (``messages`` is the
        whole log): no line that reveals what they may not see, ``hidden`` for a value that
        another seat's secret gave (:mod:`.secrecy`)."""
        secret = self.ruleset.meta.get("secret", {})
        lines = (secrecy.line_for(item, player, self.state, secret) for item in self._log[since:])
        return [line for line in lines if line is not None]

    def label_for(self, action, actor: str | None, player: str | None) -> str:
        """The label of ``action``, taken by ``actor``, as ``player`` may read it (:mod:`.secrecy`)."""
        return secrecy.label_for(action, actor, player, self.ruleset.secrecy)

    def legal_actions(self, player: str | None = None) -> list[Action]:
        """The legal actions now (of ``player``, by default the current player: in a round of
        secret choices, any seat of :attr:`deciding`; none for a seat that is not deciding); a
        pending choice with none is a ruleset bug (RR307)."""
        if player is not None and player != self.state["turn"]:
            return self.machine.legal_for(player)
        legal = self._legal
        if legal is None:
            legal = self._legal = self.machine.legal()
            if not legal and self.state["waiting"]:
                instr, _ = self.machine._choice()
                raise RulesRuntimeError(Diagnostic(
                    "RR307", f"{self.current_player} must choose here, but no option is legal",
                    instr.pos, hint="give the choice an option that is always legal (pass, stop...)"))
        return list(legal)

    # ------------------------------------------------------------------ acting
    def option_scope(self, action) -> dict:
        """The names a pending option's body would see for ``action`` (the paused rule's locals,
        or the acting player, and the option's parameters): for a display that evaluates an
        expression about the option, such as its cost. Empty when it is no option now."""
        return self.machine.scope_of(self.to_action(action))

    def described(self, action) -> list:
        """What each value of ``action`` is, in the game's words: its parameter's ``as`` text
        (None where the rules give none), for a display or an agent that names the values."""
        return self.machine.about_of(self.to_action(action))

    def to_action(self, action, player: str | None = None) -> Action:
        """Accept an :class:`Action`, its JSON list, or its label as typed by a person (a label
        is looked for among the legal actions of ``player``, by default the current player)."""
        if isinstance(action, Action):
            return action
        if isinstance(action, list):
            try:
                return Action.from_json(action)
            except ValueError as err:
                raise IllegalAction(Diagnostic("RR301", str(err))) from None
        if isinstance(action, str):
            text = " ".join(action.split())
            legal = self.legal_actions(player)
            for a in legal:
                if a.label == text:
                    return a
            parts = text.split(" ")
            for x in parts[1:]:
                if len(x) > _DIGITS and x.lstrip("-").isdigit():   # no legal action holds it
                    raise IllegalAction(Diagnostic("RR301", f"not an action: '{parts[0]}' with a number "
                                                   f"of {len(x)} digits (the rules store at most 18)"))
            names = self.ruleset.names.entities  # a typed alias (hex Home) means its id
            words = {"true": True, "false": False, "none": None}
            args = tuple(int(x) if x.lstrip("-").isdigit() else words[x] if x in words
                         else names.get(x, x) for x in parts[1:])
            action = Action(parts[0], args)
            return next((a for a in legal if a == action), action)
        raise IllegalAction(Diagnostic("RR301", f"not an action: {action!r}"))

    def apply(self, action, safe: object = _UNSET, player: str | None = None) -> None:
        """Apply one action; an illegal one raises :class:`IllegalAction` and changes nothing,
        and so does a rule that fails while it runs (the state is put back from the undo log).
        ``player``: in a round of secret choices, the seat that commits (any seat of
        :attr:`deciding`; by default the current player); a seat that has already committed is
        refused (RR315).

        ``safe`` is deprecated and ignored: every apply is safe, at no measurable cost. Passing
        it warns (DeprecationWarning); it will be removed.
        """
        if safe is not _UNSET:
            warnings.warn("Game.apply(safe=...) is deprecated and ignored: every apply is safe; "
                          "call apply(action)", DeprecationWarning, stacklevel=2)
        legal = self._legal
        if legal is None or player is not None or action.__class__ is not Action or action not in legal:
            action = self._checked(action, player)
            if action is None:  # a commitment, applied
                return
        self._undo.append(self.machine.decide(action))  # a failing rule, or Ctrl-C: nothing changed
        self._legal = None

    def _checked(self, action, player: str | None) -> Action | None:
        """:meth:`apply`'s checks, where the action is not one of the legal actions listed
        already: the action, legal now (None: a commitment of ``player``, applied); a game
        that is over, or an illegal action, raises :class:`IllegalAction`."""
        state = self.state
        if state["result"] is not None:
            raise IllegalAction(Diagnostic("RR301", "the game is over"))
        if player is not None and player != state["turn"]:
            self._commit(player, action)
            return None
        if action.__class__ is not Action:
            action = self.to_action(action)
        if action not in self.legal_actions():
            reason, pos = self.machine.why_illegal(action)
            who = state["entities"].get(self.current_player, {}).get("name") or self.current_player
            raise IllegalAction(Diagnostic("RR301", f"{who} cannot '{action.label}': {reason}",
                                           pos or Pos("<action>", 0, 0)))
        return action

    def imagine_commitments(self, seat: str | None, pick) -> None:
        """In an open round of secret choices, replace each commitment ``seat`` cannot see (every
        other seat's) by ``pick(the legal actions of that seat)``: for a copy a bot imagines
        (search.imagine), so that it decides on what its seat knows. Who has committed stays."""
        found = commitments.open_round(self.ruleset.program, self.state)
        if found is None:
            return
        instr, rnd = found
        drawn = {}
        for other, action in rnd["commits"].items():
            if other != seat:
                with self.machine._asking(instr, other):
                    action = pick(self.machine.legal()).to_json()
            drawn[other] = action
        stack = self.state["stack"]
        stack[-1] = {**stack[-1], "L": {**stack[-1]["L"], instr.slot: {**rnd, "commits": drawn}}}
        self.machine.begin()
        self._legal = None

    def _commit(self, player: str, action) -> None:
        """``apply(action, player=...)`` for a seat that is not the current player: one seat's
        commitment in an open round of secret choices."""
        state = self.state
        who = state["entities"].get(player, {}).get("name") if isinstance(player, str) else None
        if who is None:
            raise IllegalAction(Diagnostic("RR301", f"{player!r} is not a player of this game"))
        found = commitments.open_round(self.ruleset.program, state)
        if found is None:
            raise IllegalAction(Diagnostic("RR301", f"it is not {who}'s choice now; it is "
                                           f"{state['entities'][state['turn']]['name']}'s"))
        instr, rnd = found
        if player in rnd["commits"]:
            raise IllegalAction(Diagnostic(
                "RR315", f"{who} has already committed in this round of secret choices", instr.pos,
                hint="a commitment is final until the reveal; undo takes it back"))
        if player not in rnd["seats"]:
            raise IllegalAction(Diagnostic("RR301", f"{who} does not choose in this round of secret "
                                           "choices", instr.pos))
        action = self.to_action(action, player)
        if action not in self.machine.legal_for(player):
            reason, pos = self.machine.why_illegal_for(player, action)
            raise IllegalAction(Diagnostic("RR301", f"{who} cannot '{action.label}': {reason}",
                                           pos or Pos("<action>", 0, 0)))
        self._undo.append(self.machine.decide(action, player))
        self._legal = None

    def undo(self, steps: int = 1) -> None:
        """Take back the last ``steps`` actions: the state is exactly as it was before them.
        Undo reaches back to where this game object was started, loaded or cloned."""
        if not isinstance(steps, int) or not 0 <= steps <= len(self._undo):
            kept = "" if self._undo.__class__ is list else " (a game made with undo=False keeps none)"
            raise IllegalAction(Diagnostic(
                "RR301", f"cannot undo {steps} action(s): {len(self._undo)} can be undone{kept}"))
        for _ in range(steps):
            self.machine.restore(self._undo.pop())
        self.machine.begin()
        self._legal = None

    @property
    def rule_counts(self) -> Counter | None:
        """How often each rule fired in a game made with ``count_rules`` (never in its clones;
        None otherwise): a code unit's key (``proc:NAME``, ``action:NAME``, ``on:EVENT:I`` for
        the I-th trigger of EVENT, counted when its ``when`` held, ``game``) -> its count."""
        return self.machine.counts

    def check_derived(self) -> None:
        """Recompute every kept ``derived`` value from scratch; raise RR310 if one differs from
        what the engine kept (the debug check of DESIGN invariant 7)."""
        wrong = self.machine.stale_derived()
        if wrong:
            raise RulesRuntimeError(Diagnostic("RR310", "; ".join(wrong[:3])
                                               + (f" (and {len(wrong) - 3} more)" if len(wrong) > 3 else "")))

    def watch_derived(self) -> list[str]:
        """From now on, check each kept ``derived`` value as the engine gives it out: computed
        from scratch there and then, a difference is noted in the list returned (worded as
        :meth:`check_derived` words it). A value read while a rule runs is checked at that
        moment, not only between actions, at the cost of one computation a use instead of one
        for every kept value. Clones are not watched."""
        watched = self.machine.watched = []
        return watched

    # ------------------------------------------------------------------ rules snippets
    def _names(self):
        """The ruleset's names plus this game's players (p1, p2, ...)."""
        import dataclasses
        names = self.ruleset.names
        return dataclasses.replace(names, entities={**names.entities, **{p: p for p in self.players}})

    def compile_expression(self, text: str, params: tuple = (), where: Pos | None = None):
        """Compile a rules-language expression once (by the loader: ``Ruleset.snippet``);
        returns ``fn(**values of params)``."""
        where = where or Pos("<expression>", 1, 1)
        fn = self.ruleset.snippet(self._names(), text, params, where)

        def run(**values):
            self.machine.steps = 0  # each evaluation has the whole step budget
            try:
                return fn(self.machine, values)
            except Exception as err:  # rules faults become diagnostics
                raise RulesRuntimeError(Diagnostic("RR302", f"'{text}': {err}", where)) from None
        return run

    def estimate(self, player: str):
        """How well ``player`` stands, by the ruleset's ``estimate p = ...`` (a number, higher
        is better; None when the ruleset has none). On a finished game, the player's score."""
        return self.estimates([player])[player]

    def estimates(self, players: list | None = None) -> dict:
        """Player -> :meth:`estimate`, for ``players`` (default: all), in one pass: a ``derived``
        value their estimates read is worked out once for all of them (the rules cannot change
        the state while they are evaluated), and kept only until the pass ends."""
        program = self.ruleset.program
        return self._per_player(program.estimate, players, "estimate", program.estimate_pos)

    def scores(self, players: list | None = None) -> dict:
        """Player -> their score by the ruleset's ``score p = ...`` as the game stands now (once
        it is over, the final scores), for ``players`` (default: all), in one pass as
        :meth:`estimates`: what a bot holds for sure, beside what the estimate promises."""
        program = self.ruleset.program
        return self._per_player(program.score, players, "score", program.score_pos)

    def _per_player(self, fn, players: list | None, what: str, pos) -> dict:
        """Player -> ``fn(machine, player)`` (None for all without ``fn``; the final scores once
        the game is over), in one pass with one memo of derived values."""
        if players is None:
            players = self.players
        else:   # (the code takes its player for a player)
            for p in players:
                if p not in self.state["kinds"]["players"]:
                    raise RulesRuntimeError(Diagnostic("RR302", f"in {what}: {word(p)} is not a player", pos))
        if self.state["result"] is not None:
            scores = self.state["result"]["scores"]
            return {p: scores[p] for p in players}
        if fn is None:
            return dict.fromkeys(players)
        machine = self.machine
        machine.memo = {}
        out = {}
        try:
            for p in players:
                machine.steps = 0
                out[p] = fn(machine, p)
        except Exception as err:  # rules faults become diagnostics
            raise RulesRuntimeError(Diagnostic("RR302", f"in {what}: {err}", pos)) from None
        finally:
            machine.memo = None
        return out

    def metrics(self) -> dict:
        """The ruleset's figures (``metric NAME = expr``) of the game as it stands: name -> a
        number or true/false."""
        out = {}
        machine = self.machine
        for name, fn, pos in self.ruleset.program.metrics:
            machine.steps = 0
            try:
                value = fn(machine, {})
            except Exception as err:  # rules faults become diagnostics
                raise RulesRuntimeError(Diagnostic("RR302", f"in metric {name}: {err}", pos)) from None
            if not isinstance(value, (int, Fraction)):
                raise RulesRuntimeError(Diagnostic(
                    "RR302", f"metric {name} must be a number or true/false, got {value!r}", pos))
            out[name] = value
        return out

    def evaluate(self, text: str, where: Pos | None = None):
        """Evaluate a rules-language expression on the current state (scenarios, REPL)."""
        return self.compile_expression(text, (), where)()

    def execute(self, text: str, where: Pos | None = None) -> None:
        """Run simple statements (set, pay, add, remove) on the state to set up a position
        (compiled by the loader: ``Ruleset.setup_statements``)."""
        from ..runtime.code import function_of as write
        where = where or Pos("<statement>", 1, 1)
        code, program = self.ruleset.setup_statements(self._names(), text, where)
        frame = {"c": code.key, "pc": 0, "L": {}, "r": None}   # (never on the stack: it cannot pause)
        self.machine.begin()
        self.machine.steps = 0
        try:
            write(code, program)(self.machine, frame)
            misfit = self.ruleset.misfit(self.state)   # types the fast code trusts: checked here
        except Exception as err:
            self.machine.rollback()
            raise RulesRuntimeError(Diagnostic("RR302", f"'{text}': {err}", where)) from None
        if misfit:
            self.machine.rollback()
            raise RulesRuntimeError(Diagnostic("RR314", f"'{text}': {misfit}", where,
                                               hint="set it to a value of the type the rules store there (or none)"))
        self.machine.commit()
        self.machine.cache.clear()   # a derived value notes no read of a field no rule writes
        self._legal = None

    # ------------------------------------------------------------------ saving
    def to_json(self) -> str:
        """The whole state as a save: plain JSON, each paused rule's frame in words (``unit``,
        ``at``: the instruction, ``locals``, ``result_to``: the caller's local for its result)."""
        saved = {**self.state, "format": SAVE_FORMAT,
                 "stack": [{_FRAME_WORDS[k]: v for k, v in frame.items()} for frame in self.state["stack"]]}
        return json.dumps(saved, sort_keys=True, separators=(",", ":"))

    def digest(self) -> str:
        """A hash of the state as it is in memory (unchanged since format 1, so that old logs
        still check their final state)."""
        return hashlib.sha256(json.dumps(self.state, sort_keys=True, separators=(",", ":")).encode()).hexdigest()

    def clone(self) -> "Game":
        """An independent copy, in microseconds: records are shared until one of the two games
        changes one (copy on write); the clone starts with an empty log and nothing to undo."""
        state = dict(self.state)
        state["entities"] = dict(state["entities"])
        state["stack"] = list(state["stack"])  # frames are copied before they change (Machine.own_top)
        state["history"] = list(state["history"])
        game = Game(self.ruleset, state, [])
        game.machine.cache = dict(self.machine.cache)
        game._legal = self._legal
        return game

    def __deepcopy__(self, memo) -> "Game":
        """``copy.deepcopy(game)`` is :meth:`clone` (libraries that copy states by deepcopy)."""
        return self.clone()

    def __reduce__(self):
        # pickled as its ruleset (by folder and content hash) and its plain-data state; the
        # unpickled game has an empty message log and nothing to undo, like a clone
        return Game, (self.ruleset, self.state)

    @classmethod
    def from_json(cls, ruleset, text: str) -> "Game":
        """Resume a saved state; a truncated, foreign or tampered file raises :class:`BadSave`."""
        state = read_json(text)   # strict: no NaN, no key twice, not too deep (RR304)
        if isinstance(state, dict) and state.get("format") == SAVE_FORMAT:
            state = _from_save(state)
        _check_state(ruleset, state)
        return cls(ruleset, state)

    def log(self) -> dict:
        """What replays this game: the ruleset (its name, folder, variant, content hash and the
        fingerprint of each definition, to say what changed if it has), the engine, seed, players
        and actions (and the commitments of an open round of secret choices)."""
        return {"format": LOG_FORMAT, "engine": ENGINE, "ruleset": self.ruleset.name,
                "path": str(self.ruleset.root), "variant": self.ruleset.variant,
                "hash": self.ruleset.hash, "players": self.state["players"],
                "seed": self.state["seed"], "actions": list(self.state["history"]),
                "final_state_sha256": self.digest(), "fingerprints": self.ruleset.fingerprints,
                **self._committed()}

    def _committed(self) -> dict:
        """For a log taken in an open round of secret choices: ``committed``, the commitments
        made so far by seat (the history gets them only at the reveal); a replay commits them
        after the actions."""
        found = commitments.open_round(self.ruleset.program, self.state)
        return {"committed": dict(found[1]["commits"])} if found is not None and found[1]["commits"] else {}


def _from_save(saved: dict) -> dict:
    """A save of the current format as the state in memory (frames with short keys)."""
    stack = saved.get("stack")
    frames = [{_FRAME_KEYS.get(k, k): v for k, v in f.items()} if isinstance(f, dict) else f
              for f in stack] if isinstance(stack, list) else stack
    return {**saved, "format": STATE_FORMAT, "stack": frames}


def _check_state(ruleset, state) -> None:
    def bad(msg):
        raise BadSave(Diagnostic("RR304", msg))
    if not isinstance(state, dict) or state.get("format") != STATE_FORMAT:
        bad("this is not a railrules saved game")
    if isinstance(state.get("stack"), list):
        commitments.check_saved(ruleset, state, bad)
    if state.get("ruleset") != ruleset.name or state.get("variant") != ruleset.variant:
        bad(f"the save is of {state.get('ruleset')} (variant {state.get('variant')}), "
            f"not {ruleset.name} (variant {ruleset.variant})")
    if state.get("hash") != ruleset.hash:
        bad(f"the save was made with other rules (hash {state.get('hash')}, now {ruleset.hash}); "
            "replay its log to see where they differ")
    need = {"kinds": dict, "entities": dict, "globals": dict, "stack": list, "history": list,
            "rng": int, "players": int, "seed": int}
    for key, kind in need.items():
        if not isinstance(state.get(key), kind):
            bad(f"the save's '{key}' is missing or damaged")
    _check_contents(ruleset, state, bad)
    codes = ruleset.program.codes
    for frame in state["stack"]:
        if not isinstance(frame, dict) or set(frame) != {"c", "pc", "L", "r"} \
                or frame["c"] not in codes or not isinstance(frame["pc"], int) \
                or not 0 <= frame["pc"] < len(codes[frame["c"]].instrs) \
                or not isinstance(frame["L"], dict) or not (frame["r"] is None or isinstance(frame["r"], str)):
            bad("the save's rule stack is damaged")
    from ..runtime.code import Choice as Choose
    if state.get("result") is None:
        # a running game is always saved paused at a choice, inside the game block
        stack = state["stack"]
        if not stack or stack[0]["c"] != "game" or state.get("waiting") is not True:
            bad("the save is neither paused at a choice nor over")
        top = stack[-1]
        instr = codes[top["c"]].instrs[top["pc"]]
        if not isinstance(instr, Choose):
            bad("the save is paused where no choice is")
        if instr.secret:
            commitments.check_round(state, instr, bad)
    elif state["stack"] or not isinstance(state["result"], dict):
        bad("the save is over but still has rules to run")
    if state["result"] is None and state.get("turn") not in state["kinds"]["players"]:
        bad(f"the save says it is the turn of {state.get('turn')!r}, who is not a player of this game")


def _check_contents(ruleset, state, bad) -> None:
    """What the rules will read must be what the ruleset declares: the players, every entity
    with its fields, every variable, the history as actions; values as plain JSON data."""
    n = state["players"]
    if not ruleset.players_min <= n <= ruleset.players_max:
        bad(f"the save has {n} players; {ruleset.name} is for {ruleset.players_min} to {ruleset.players_max}")
    ids = [f"p{i}" for i in range(1, n + 1)]
    if state["kinds"] != {"players": ids}:
        bad(f"the save's players are damaged: expected {', '.join(ids)}")
    start = ruleset.start
    want = {**{e: set(rec) for e, rec in start["entities"].items()},
            **{p: set(start["player"]) | {"id", "kind", "name", "seat"} for p in ids}}
    have = state["entities"]
    missing, extra = sorted(set(want) - set(have)), sorted(set(have) - set(want))
    if missing or extra:
        bad("the save's entities do not match the ruleset: "
            + "; ".join(x for x in (missing and f"missing {', '.join(missing[:5])}",
                                    extra and f"unknown {', '.join(extra[:5])}") if x))
    for e, fields in want.items():
        rec = have[e]
        if not isinstance(rec, dict) or set(rec) != fields:
            bad(f"the save's entity {e} is damaged: its fields are not the ruleset's")
    if set(state["globals"]) != set(start["globals"]):
        bad("the save's variables do not match the ruleset's")
    ruleset.check_save(state)   # the ruleset's schema: each field and variable of its type, storable
    if not 0 <= state["rng"] < 1 << 64:
        bad("the save's random generator state is damaged")

