"""The machine: runs compiled rules on a game state until the next choice or the end.

Where the rules are paused lives in the state (``state["stack"]``: frames of code key, pc
and locals), never in Python: the machine can be rebuilt on any state at any time.
"""
from __future__ import annotations

from collections import Counter
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Callable

from ..errors import Diagnostic, Pos, RulesRuntimeError
from ..runtime.rationals import Fraction
from ..runtime.code import GO_ON, PAUSE, Choice as Choose, fault_site
from ..runtime.governor import MAX_DEPTH, MAX_TEXT, OverLimit, check_text, text_size
from ..runtime.values import Action, BuiltinError, OverBudget, RuleFault, Secret, run_body, word
from . import commitments
from .log import LogLine, show
from ..runtime.memo import keep

_MASK = (1 << 64) - 1
_new = tuple.__new__  # _new(Action, (name, args)): an Action without a Python call
_MEASURED = frozenset((list, dict))  # the values a log line is charged for (by their text's size)
_FAULTS = (RuleFault, BuiltinError, KeyError, TypeError, IndexError, ValueError,
           ZeroDivisionError, RecursionError, AttributeError)


def _described(run, spec, i: int, loc: dict) -> str | None:
    """Parameter ``i``'s ``as`` text over the names ``loc`` holds; None when it has none or it
    cannot be said now."""
    fn = spec.about[i] if i < len(spec.about) else None
    if fn is None:
        return None
    try:
        return run.show(fn(run, loc))
    except _FAULTS:
        return None


def _about(run, spec, i: int, loc: dict) -> str:
    """'one of the choices for X': X the parameter's ``as`` text, or its name quoted."""
    said = _described(run, spec, i, loc)
    return f"one of the choices for {said}" if said is not None else f"one of the choices for '{spec.domains[i][0]}'"


def _span(items: list) -> str:
    """Describe a domain briefly: 'from 7 to 40', 'none', or its first few values."""
    if not items:
        return "there are none now"
    if all(isinstance(x, int) and not isinstance(x, bool) for x in items) \
            and items == list(range(items[0], items[0] + len(items))):
        return f"from {items[0]} to {items[-1]}" if len(items) > 1 else f"only {items[0]}"
    shown = ", ".join(map(str, items[:8]))
    return f"one of {shown}{', ...' if len(items) > 8 else ''}"


def _kept(spec, head: tuple) -> dict:
    """The Actions ``spec`` has listed after the values ``head``, by last value (OptionSpec.made);
    a throwaway dict when ``head`` holds a list (no key)."""
    made = spec.made
    try:
        kept = made.get(head)
    except TypeError:
        return {}
    if kept is None:
        kept = keep(made, head, {}, 4096)
    return kept


def copy_frame(frame: dict) -> dict:
    """A frame that shares nothing changeable with ``frame``: a frame and its locals are changed
    in place (pc, let); the values in the locals never are."""
    copy = frame.copy()
    copy["L"] = copy["L"].copy()
    return copy


class _Records(dict):
    """Entity id -> its record as this transaction changes it (``Machine.record`` is its lookup):
    the first lookup of an entity copies its record into the game's entities, and keeps the
    record it replaced in ``old`` (entity id -> record) for the undo."""
    __slots__ = ("ent", "old")
    ent: dict
    old: dict

    def __missing__(self, eid) -> dict:
        ent = self.ent
        try:
            old = ent[eid]
        except KeyError:
            raise RuleFault(f"{word(eid)} is not an entity") from None
        self.old[eid] = old
        rec = self[eid] = ent[eid] = old.copy()
        return rec


class _NoFunctions(dict):
    def __missing__(self, name):
        raise RuleFault(f"a constant cannot call the function '{name}': constants are computed "
                        "first; write the expression out, or use a def")


class _Shows:
    """How a value reads in a message: an entity by its name, a list joined, yes/no, none."""
    __slots__ = ("ent", "steps")
    ent: dict
    steps: int

    def show(self, value) -> str:
        c = value.__class__
        if c is int:   # (the commonest, at once)
            return str(value)
        if c is list or c is dict:  # charged by the values shown; refused past the governor's limits
            self.steps += text_size(self.ent, value)
        elif c is str and len(value) > MAX_TEXT:  # a text inside a list is not measured when stored
            check_text(value)
        return show(self.ent, value)


class ConstantRun(_Shows):
    """What a constant sees while the ruleset loads: the starting entities and the board, no
    players and no game yet."""
    __slots__ = ("state", "glob", "board", "depth", "budget", "program_functions")

    def __init__(self, entities: dict, board, budget: int):
        self.state = {"kinds": {"players": []}, "entities": entities, "globals": {}}
        self.ent = entities
        self.glob: dict = {}
        self.board = board
        self.depth = 0
        self.steps = 0
        self.budget = budget
        self.program_functions = _NoFunctions()

    def derived(self, key, args, typed=None):
        self.program_functions[key]  # refused, with its reason

    def tick(self, n: int) -> None:
        self.steps += n
        if self.steps > self.budget:
            raise RuleFault(f"a constant takes more than {self.budget} steps to compute")


def unit_title(key: str) -> str:
    """A unit of the compiled rules as the rules call it: ``procedure turn``, ``action sell``,
    ``on built``, ``after turn`` (an overlay's block), ``game``."""
    kind, _, name = key.partition(":")
    if kind == "proc":
        return name if name.startswith(("before ", "after ")) else f"procedure {name}"
    if kind == "action":
        return f"action {name}"
    if kind == "on":
        return f"on {name.rsplit(':', 1)[0]}"
    return key


class Machine(_Shows):
    """Runs one game's rules. Compiled closures receive the machine as ``run``."""
    # (slots: compiled code reads and writes ``run.steps``, ``run.ent``... at every step; an
    # instance dict would also stop sharing its keys past 30 attributes, slowing every access)
    __slots__ = ("ruleset", "program", "program_functions", "tracked_functions", "board", "cache",
                 "deps", "gdeps", "from_scratch", "memo", "messages", "_say", "depth",
                 "budget", "decisions_max", "_counts", "_units", "chance", "undoing", "_records",
                 "record", "state", "_stack", "glob", "_old_glob", "_shared", "_control", "watched")

    def __init__(self, ruleset, state: dict, messages: list | None = None):
        self.ruleset = ruleset
        self.program = ruleset.program
        self.program_functions = ruleset.functions
        self.tracked_functions = ruleset.tracked
        self.board = ruleset.board
        # derived values: (name, args) -> (value, entity fields read, variables read); an entry
        # holds while every field and variable it read still holds the very same object
        self.cache: dict = {}
        self.deps: list | None = None    # while a derived value is computed: what it reads
        self.gdeps: list | None = None
        self.from_scratch = False       # True: derived values are recomputed, never cached
        self.memo: dict | None = None   # while Game.estimates runs: (name, args) -> value
        self.watched: list | None = None  # a list: each kept value given out is checked (watch_derived)
        self.messages: list = messages if messages is not None else []
        self._say = self.messages.append
        self.depth = 0
        self.steps = 0
        self.budget = ruleset.step_budget
        self.decisions_max = ruleset.decision_budget
        self.counts = None
        self.chance: Callable[[int], int] | None = None  # draws decided outside (Game.new's chance)
        self.undoing = True   # False: decide keeps no undo (a playout's); a failing rule still rolls back
        self._records = _Records()
        self.record = self._records.__getitem__
        self.bind(state)

    @property
    def counts(self) -> Counter | None:
        """A Counter: how often each code unit fired (coverage; units.py); None: not counted."""
        return self._counts

    @counts.setter
    def counts(self, counts: Counter | None) -> None:
        self._counts = counts
        self._units = self.program.units if counts is None else self.program.counted_units

    def bind(self, state: dict) -> None:
        self.state = state
        self._stack = state["stack"]    # the state's stack list (restore puts another in both)
        self.ent = self._records.ent = state["entities"]
        self.glob = state["globals"]
        self.begin()

    # ------------------------------------------------------------ transactions
    # Stored values are never changed in place: a record (an entity's fields, or the globals)
    # is copied the first time a transaction writes it, and the record it replaces is kept for
    # the undo. So records are shared freely between games, clones and the ruleset's starting
    # entities, and rolling back or undoing puts the old records back (DESIGN invariant 3).
    #
    # ``record(eid)``, the record of entity ``eid`` ready to be changed in this transaction, is
    # the lookup of :class:`_Records` (at C speed once the transaction has copied it); ``_Records``
    # keeps the records it replaced, for the undo.
    #
    # Records stay dicts, reached by id: an object with slots reached the same way costs what a
    # dict does, and records reached directly would have to change in place, so that a clone
    # would copy every record (tens of µs, where sharing them costs a few) for at most 2.4 % of a
    # random decision (measured: BENCHMARKS-HISTORY.md, "engine v4 closed").
    record: Callable[[Any], dict]

    def begin(self) -> None:
        """Start a transaction: remember what is needed to put the state back as it is now."""
        st = self.state
        self._records.clear()
        self._records.old = {}          # entity id -> its record before this transaction
        self._old_glob = None
        # Frames are shared too (with the transaction's snapshot, and with clones): the bottom
        # ``_shared`` frames of the stack are copied before they change (own_top); the frames
        # this transaction pushes are its own.
        self._shared = len(st["stack"])
        self._control = (list(st["stack"]), st["rng"], st["waiting"],
                         st["turn"], st["result"], len(st["history"]), len(self.messages))

    def commit(self) -> tuple:
        """End the transaction; returns what :meth:`restore` needs to undo it: one flat tuple
        (every game keeps one per decision for its undo, and each object kept is one more for
        the garbage collector to walk)."""
        records = self._records
        undo = (records.old, self._old_glob, *self._control)
        records.clear()
        records.old, self._old_glob = {}, None
        return undo

    def rollback(self) -> None:
        self.restore(self.commit())
        self.begin()

    def restore(self, undo: tuple) -> None:
        """Put back the state as it was when the transaction of ``undo`` began."""
        old, old_glob, stack, rng, waiting, turn, result, history, messages = undo
        st = self.state
        self.ent.update(old)
        if old_glob is not None:
            self.glob = st["globals"] = old_glob
        st["stack"] = self._stack = stack
        st["rng"], st["waiting"], st["turn"], st["result"] = rng, waiting, turn, result
        del st["history"][history:]
        del self.messages[messages:]

    def globals_w(self) -> dict:
        """The global variables, ready to be changed in this transaction."""
        if self._old_glob is None:
            self._old_glob = self.glob
            self.glob = self.state["globals"] = dict(self.glob)
        return self.glob

    # ------------------------------------------------------------ used by instructions
    def push(self, key: str, args: list, dest: str | None) -> None:
        """Call unit ``key``: a frame for it on the stack, its scoped variables afresh."""
        code = self.program.codes[key]
        if key in self.program.resets:
            self.globals_w().update(self.program.resets[key])
        self._stack.append({"c": key, "pc": 0, "L": dict(zip(code.params, args)), "r": dest})

    def own_top(self) -> dict:
        """The top frame, ready to be changed in this transaction (see :meth:`begin`)."""
        stack = self._stack
        if len(stack) <= self._shared:
            stack[-1] = copy_frame(stack[-1])
            self._shared = len(stack) - 1
        return stack[-1]

    def pop(self, value) -> None:
        stack = self._stack
        dest = stack.pop()["r"]
        if len(stack) > self._shared:   # a return to a frame this transaction pushed (its own)
            if dest is not None:   # (measured by the rule's return)
                stack[-1]["L"][dest] = value
            return
        if stack:  # own_top, written out: a return to a frame the transaction shares
            caller = stack[-1] = stack[-1].copy()
            L = caller["L"] = caller["L"].copy()
            self._shared -= 1   # (the top frame is always the transaction's: len(stack) was _shared)
            if dest is not None:   # (measured by the rule's return)
                L[dest] = value

    def _whole_numbers(self, fn, players: list, what: str) -> dict:
        out = {}
        for p in players:
            s = fn(self, p)
            if isinstance(s, Fraction) or not isinstance(s, int) or isinstance(s, bool):
                raise RuleFault(f"a {what} must be a whole number, got {s!r}")
            out[p] = s
        return out

    def end_game(self, reasons: list) -> None:
        """The game is over for ``reasons``: the rules of ``on game_end`` run (each to its end:
        they never pause), then the scores are counted."""
        players = self.state["kinds"]["players"]
        # an end condition's name reads it; a reason built from a secret (engine/secrecy.py) is
        # kept in words for the record, and no seat reads it
        result: dict = {"reasons": [self._reason(r.value if r.__class__ is Secret else r) for r in reasons]}
        secret = [i for i, r in enumerate(reasons) if r.__class__ is Secret]
        if secret:
            result["hidden"] = secret
        self.state["result"] = result
        self.state["stack"].clear()     # (the undo keeps its own copy of the list)
        self.state["waiting"] = False
        self.state["turn"] = None
        if secret:
            parts = ("game over (", *[x for k in range(len(reasons)) for x in ((None,) if k == 0 else ("; ", None))], ")")
            self.say_entry(parts, tuple(reasons))
        else:
            self.say(f"game over ({'; '.join(map(str, reasons))})")
        if self.program.at_end:
            units = self.program.direct_units if self.counts is None else self.program.counted_direct
            for key in self.program.at_end:
                units[key](self)
        scores = self._whole_numbers(self.program.score, players, "score")
        best = max(scores.values())
        result["scores"], result["winners"] = scores, [p for p in players if scores[p] == best]
        if self.program.tiebreak is not None:  # among the best scores, the highest tiebreak wins
            result["tiebreaks"] = ties = self._whole_numbers(self.program.tiebreak, players, "tiebreak")
            top = max(ties[w] for w in result["winners"])
            result["winners"] = [p for p in result["winners"] if ties[p] == top]

    def _reason(self, reason) -> str:
        """An end's reason as the result keeps it, held to the governor's text limit (RR312)."""
        if reason.__class__ is list or reason.__class__ is dict:
            self.steps += text_size(self.ent, reason)   # refused past the limits before it is shown
        return check_text(str(reason))

    def check_end(self) -> bool:
        """``check_end``: end the game if an end condition holds (True if it did)."""
        reasons = [name for name, cond in self.program.end_conditions if cond(self, {})]
        if reasons:
            self.end_game(reasons)
        return bool(reasons)

    def tick(self, n: int) -> None:
        """Count work done by expressions (comprehensions, function calls) against the budget."""
        self.steps += n
        if self.steps > self.budget:
            raise OverBudget()

    def random_below(self, n: int) -> int:
        """A number in [0, n) from the state's own generator (splitmix64), or from
        :attr:`chance` when something outside decides the draws."""
        if self.chance is not None:
            return self.chance(n)
        x = (self.state["rng"] + 0x9E3779B97F4A7C15) & _MASK
        self.state["rng"] = x
        z = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return (z ^ (z >> 31)) % n

    def say(self, text, reveals: tuple | None = None) -> None:
        """Log a text (a ``log`` whose expression is not a template)."""
        if text.__class__ is list or text.__class__ is dict:  # measured before Python writes it
            self.steps += text_size(self.ent, text)
        self._say(LogLine(text, reveals) if reveals else str(text))

    def say_entry(self, parts: tuple, values: tuple, reveals: tuple | None = None) -> None:
        """Log a template with its values, written out only when read (:mod:`.log`); measured
        now, whether or not the log is kept."""
        for v in values:
            if v.__class__ in _MEASURED:
                self.steps += text_size(self.ent, v)
        self._say((parts, values, reveals, self.ent))   # an Entry's fields (log.entry_of)

    @staticmethod
    def secret(value, owner: str | None) -> Secret:
        """A logged value only ``owner`` may read (:mod:`.secrecy`)."""
        return Secret(value, owner)

    # ------------------------------------------------------------ derived values
    def derived(self, key: str, args: tuple, typed=None):
        """The value of ``derived key(args)``: from the cache while nothing it read has changed
        (stored values are never changed in place, so "the same object" means "unchanged"),
        else computed again, noting every entity field and variable it reads. ``typed``: the
        def's function for the arguments' proven types, if the caller has one: where nothing is
        noted (a pass over the seats' estimates, or from scratch), it works the value out."""
        if self.from_scratch:
            return self._untracked(key, args, typed)
        memo = self.memo
        if memo is not None:   # one pass over the seats' estimates: the state stays as it is
            try:
                return memo[key, args]
            except KeyError:
                memo[key, args] = value = self._untracked(key, args, typed)
                return value
            except TypeError:  # a list among the arguments: not kept
                pass
        ck: tuple | None = (key, args)
        try:
            entry = self.cache.get(ck)
        except TypeError:  # a list among the arguments: not cached
            entry, ck = None, None
        if ck is not None and entry is None and any(callable(a) for a in args):
            ck = None  # a function (x => ...) is new at every call: keeping it would only grow
        if entry is not None and self._holds(entry):
            if self.watched is not None:    # (a debug check: watch_derived)
                self.watched += self.stale_derived([(ck, entry)])
            if self.deps is not None:  # inside another derived value: it read these too
                self.deps += entry[1]
                self.gdeps += entry[2]
            return entry[0]
        params = dict(zip(self.ruleset.names.functions[key].params, args))
        outer = self.deps, self.gdeps
        self.deps, self.gdeps = [], []
        try:
            value = run_body(self, self.tracked_functions[key], key, params)
            deps = tuple({(e, f): v for e, f, v in self.deps}.items())
            gdeps = tuple(dict(self.gdeps).items())
        finally:
            self.deps, self.gdeps = outer
        if outer[0] is not None and outer[1] is not None:
            outer[0].extend((e, f, v) for (e, f), v in deps)
            outer[1].extend(gdeps)
        if ck is not None:
            self.cache[ck] = (value, tuple((e, f, v) for (e, f), v in deps), gdeps)
        return value

    def _untracked(self, key: str, args: tuple, typed=None):
        """``derived key(args)`` computed afresh, noting nothing and keeping nothing: by
        ``typed`` if given (it counts its call and its depth as a def's function does)."""
        if typed is not None:
            return typed(self, *args)
        return run_body(self, self.program_functions[key], key, dict(zip(self.ruleset.names.functions[key].params, args)))

    def _holds(self, entry) -> bool:
        ent, glob = self.ent, self.glob
        for e, f, v in entry[1]:
            if ent[e][f] is not v:
                return False
        for f, v in entry[2]:
            if glob[f] is not v:
                return False
        return True

    def stale_derived(self, entries=None) -> list[str]:
        """Every cached derived value (of ``entries``, (key, args) -> entry pairs; default: the
        whole cache) that still holds but differs from a computation from scratch (the debug
        check of DESIGN invariant 7); [] when all is well."""
        wrong = []
        self.from_scratch = True
        try:
            for (key, args), entry in list(self.cache.items()) if entries is None else entries:
                if not self._holds(entry):
                    continue
                fresh = self.derived(key, args)
                if fresh != entry[0]:
                    wrong.append(f"{key}({', '.join(map(word, args))}) is cached as "
                                 f"{entry[0]!r} but is now {fresh!r}")
        finally:
            self.from_scratch = False
        return wrong

    # ------------------------------------------------------------ running
    def run(self) -> None:
        """Execute until a choice is pending or the game is over: the top frame's unit runs
        until it calls, returns or pauses (:mod:`interpreter.compile.units`)."""
        stack = self._stack
        if stack and len(stack) <= self._shared:
            self.own_top()
        self._resume(stack)

    def _resume(self, stack: list) -> None:
        """:meth:`run`, the top frame owned by the transaction already."""
        units = self._units
        self.steps = 0
        try:
            while stack:
                frame = stack[-1]
                r = units[frame["c"]](self, frame)
                if r is PAUSE:
                    return
                if r is not GO_ON:   # a return: the frame popped, the value to its caller
                    self.pop(r)
        except Exception as err:
            failure = self._failure(err)
            if failure is err:
                raise
            raise failure from None
        self._ended()

    def _ended(self) -> None:
        """The rules have run to the bottom of the stack: the game must be over (RR302)."""
        if self.state["result"] is None:
            raise RulesRuntimeError(Diagnostic("RR302", "the game block finished without end_game",
                                               self.program.codes["game"].pos))

    def _failure(self, err: Exception) -> Exception:
        """What a rule's ``err`` is raised as: RR303 for the budget spent, RR302 (or RR312) for
        a fault, worded at the line of the rules that raised it; any other error as it is."""
        if isinstance(err, OverBudget):
            return self._over_budget(fault_site(err)[1])
        if isinstance(err, _FAULTS):
            where, pos = fault_site(err)
            return self._fault(err, pos, where)
        return err

    def _over_budget(self, pos) -> RulesRuntimeError:
        return RulesRuntimeError(Diagnostic(
            "RR303", f"more than {self.budget} steps without a decision (a loop that never ends?)",
            pos, hint="raise limits.steps in ruleset.yaml if the rules are right"))

    def _fault(self, err, pos, where: str | None = None) -> RulesRuntimeError:
        """RR302 for ``err``, raised at ``pos`` in unit ``where`` (by default the top frame's)."""
        where = where or (self.state["stack"][-1]["c"] if self.state["stack"] else "game")
        msg = str(err) if isinstance(err, (RuleFault, BuiltinError)) else f"{type(err).__name__}: {err}"
        if isinstance(err, RecursionError):  # Python's own limit, reached by a value built deeper
            msg = (f"values or calls nested too deeply to work with (keep lists within {MAX_DEPTH} "
                   "levels; a function that calls itself stops)")
        code = "RR312" if isinstance(err, OverLimit) else "RR302"
        return RulesRuntimeError(Diagnostic(code, f"in {unit_title(where)}: {msg}", pos))

    # ------------------------------------------------------------ choices
    def _choice(self) -> tuple[Choose, dict]:
        frame = self.state["stack"][-1]
        return self.program.codes[frame["c"]].instrs[frame["pc"]], frame

    def question(self):
        """The ``choose`` the game waits on (its ``pos`` and ``options``, each with a ``name``
        and ``pos``)."""
        return self._choice()[0]

    def _bases(self):
        instr, frame = self._choice()
        player = self.state["turn"]
        for spec in instr.options:
            yield spec, ({spec.player_var: player} if spec.action else frame["L"])

    def legal(self) -> list[Action]:
        """The legal actions of the choice the game waits on: by its generated lister, and
        when that raises (or there is none), one option at a time, each fault worded."""
        st = self.state
        if not st["waiting"]:
            return []
        frame = self._stack[-1]
        instr = self.program.codes[frame["c"]].instrs[frame["pc"]]
        lister = instr.lister
        self.steps = 0
        if lister:
            try:
                return lister(self, frame["L"], st["turn"])
            except Exception:  # listed again below, to say what is wrong
                self.steps = 0
        elif lister is None:   # (the first time this choice is asked: its lister is written)
            instr.lister = self.program.lister(instr)
            return self.legal()
        return self._listed(instr, frame)

    def _listed(self, instr, frame) -> list[Action]:
        out: list[Action] = []
        spec: Any = None  # the option being listed, for the error
        player = self.state["turn"]
        try:
            for spec in instr.options:
                loc = {spec.player_var: player} if spec.action else frame["L"]
                if spec.domains:
                    self._enumerate(spec, 0, loc, (), out)
                    continue
                for cond in spec.tests:
                    if not cond(self, loc):
                        break
                else:
                    out.append(spec.bare)
        except OverBudget:
            raise RulesRuntimeError(Diagnostic(
                "RR303", f"listing the legal actions of option '{spec.name}' takes more than "
                f"{self.budget} steps (every combination of its parameters' values counts one)",
                spec.pos, hint="narrow the option's domains, or raise limits.steps in ruleset.yaml")) from None
        except _FAULTS as err:
            raise self._fault(err, spec.pos if spec else None) from None
        return out

    def _enumerate(self, spec, i, loc, head, out) -> None:
        """Add the legal actions of ``spec`` whose first ``i`` values are ``head`` (set in ``loc``:
        the option's base locals, read only, or their copy once a value is set in it)."""
        var, source = spec.domains[i]
        items = source(self, loc)
        if items.__class__ is not list and not isinstance(items, list):
            raise RuleFault(f"the choices for '{var}' must be a list")
        self.steps += len(items)  # every combination tried counts: a huge product stops (RR303)
        if self.steps > self.budget:
            raise OverBudget()
        name = spec.name
        if i + 1 == len(spec.domains):  # the last parameter: test each value here, no recursion
            if spec.choices is not None:   # generated: every value when no require tests it
                try:
                    made = spec.made.get(head)
                except TypeError:  # a list among the values before: no key (_kept)
                    made = {}
                if made is None:
                    made = _kept(spec, head)
                try:
                    out += spec.choices(self, loc, items, name, head, made)
                    return
                except OverBudget:
                    raise
                except Exception:  # listed again one by one, to say what is wrong
                    pass
            tests = spec.tests_at[i]
            loc = dict(loc)
            for v in items:
                loc[var] = v
                for cond in tests:
                    if not cond(self, loc):
                        break
                else:
                    out.append(_new(Action, (name, head + (v,))))
            return
        loc = dict(loc)
        tests = spec.tests_at[i]  # the requires that read no later parameter
        for v in items:
            loc[var] = v
            for cond in tests:
                if not cond(self, loc):
                    break
            else:
                self._enumerate(spec, i + 1, loc, head + (v,), out)

    def scope_of(self, action: Action) -> dict:
        """The names an option's body sees for ``action``: the paused rule's locals (for an
        inline option) or the acting player (for an action), and the option's parameters."""
        spec, base = next(((s, b) for s, b in self._bases() if s.name == action.name), (None, {}))
        if spec is None:
            return {}
        scope = {k: v for k, v in base.items() if k and k.isidentifier()}
        scope.update(zip(spec.names, action.args))
        return scope

    def about_of(self, action: Action) -> list:
        """What each value of ``action`` is, in the game's words: its parameter's ``as`` text
        (None where it has none), over the names the parameter's domain sees."""
        spec, base = next(((s, b) for s, b in self._bases() if s.name == action.name), (None, {}))
        if spec is None:
            return [None] * len(action.args)
        loc, out = dict(base), []
        for i, ((var, _), value) in enumerate(zip(spec.domains, action.args)):
            out.append(_described(self, spec, i, loc))
            loc[var] = value
        return out

    def why_illegal(self, action: Action) -> tuple[str, Pos | None]:
        """The reason an action is refused, and the position of the rule that refuses it."""
        if self.state["result"] is not None:   # (no choice is pending to ask)
            return "the game is over", None
        specs = [(s, b) for s, b in self._bases() if s.name == action.name]
        if not specs:
            names = sorted({s.name for s, _ in self._bases()})
            return f"'{action.name}' is not a choice now; the choices are: {', '.join(names)}", None
        spec, base = specs[0]
        if len(action.args) != len(spec.domains):
            return (f"'{action.name}' takes {len(spec.domains)} value(s), "
                    f"{len(action.args)} given"), spec.pos
        loc = dict(base)
        try:
            for i, ((var, source), value) in enumerate(zip(spec.domains, action.args)):
                items = source(self, loc)
                if value not in items:
                    return f"{value} is not {_about(self, spec, i, loc)} ({_span(items)})", spec.pos
                loc[var] = value
            for cond, reason, pos in spec.requires:
                if not cond(self, loc):
                    return reason(self, loc), pos
        except _FAULTS as err:
            raise self._fault(err, spec.pos) from None
        return "not legal now", spec.pos

    def legal_for(self, seat: str) -> list[Action]:
        """The legal actions of ``seat`` in an open round of secret choices (none if it has
        committed or is not in the round); elsewhere, the legal actions if it is ``seat``'s turn."""
        st = self.state
        found = commitments.open_round(self.program, st)
        if found is None:
            return self.legal() if st["waiting"] and st["turn"] == seat else []
        if seat not in commitments.pending(found[1]):
            return []
        with self._asking(found[0], seat):
            return self.legal()

    def why_illegal_for(self, seat: str, action: Action) -> tuple[str, Pos | None]:
        """:meth:`why_illegal` for a seat of an open round of secret choices."""
        found = commitments.open_round(self.program, self.state)
        if found is None:
            return self.why_illegal(action)
        with self._asking(found[0], seat):
            return self.why_illegal(action)

    @contextmanager
    def _asking(self, instr, seat: str):
        """The paused round as it is when ``seat`` is asked (its frame put back after)."""
        stack = self.state["stack"]
        frame = stack[-1]
        stack[-1] = {**frame, "L": {**frame["L"], instr.var: seat}}
        try:
            yield
        finally:
            stack[-1] = frame

    def _commit(self, instr, frame: dict, seat: str, action: Action) -> None:
        """``seat`` commits ``action`` in the open round of ``instr``; the last commitment
        reveals them all: the history gets them in the round's order (so the state is the
        same whichever order the seats committed in, and a replay commits in that order) and
        the rules go on at the reveal."""
        st = self.state
        L = frame["L"]
        rnd = L[instr.slot]
        commits = {**rnd["commits"], seat: [action[0], *action[1]]}
        L[instr.slot] = {**rnd, "commits": commits}
        self._say(commitments.committed_line(self.ent, seat, action))
        left = commitments.pending(L[instr.slot])
        if left:
            st["turn"] = L[instr.var] = left[0]
            return
        seats = rnd["seats"]
        st["history"] += [commits[s] for s in seats]
        self.messages += [commitments.revealed_line(self.ent, s, commits[s]) for s in seats]
        st["waiting"] = False
        st["turn"] = None
        frame["pc"] = instr.reveal
        self.run()

    def decide(self, action: Action, seat: str | None = None) -> tuple | None:
        """One decision as one transaction: apply the legal ``action`` (the caller has checked
        it), run on to the next choice or the end, and return the undo of it (:meth:`restore`).
        A failing rule, or Ctrl-C, puts the state back as it was and raises; so does a game
        that has used up its decisions (RR303), before anything changes. :meth:`begin`, the
        resumption of the paused choice, :meth:`run` and :meth:`commit`, written out: this runs
        at every decision (a choice is pending: the game waits, and has no result), and what
        the undo keeps is in locals until the end; None when no undo is kept (:attr:`undoing`).
        In a round of secret choices, ``seat`` (by default the one asked) commits."""
        st = self.state
        history = st["history"]
        made = len(history)
        if made >= self.decisions_max:
            raise self._endless()
        stack = self._stack
        saved = stack[:]    # the undo's stack: it holds the frames as they are now
        turn = st["turn"]
        rng = st["rng"]
        said = len(self.messages)
        top = stack[-1]     # so the top frame is copied before it changes (copy_frame, written out)
        frame = stack[-1] = top.copy()
        L = frame["L"] = top["L"].copy()
        self._shared = len(saved) - 1
        try:
            instr = self.program.codes[top["c"]].instrs[top["pc"]]
            if instr.secret:
                self._commit(instr, frame, seat or turn, action)
            else:
                name, args = action
                history.append([name, *args])  # Action.to_json, written out
                try:
                    spec = instr.by_name[name]
                except TypeError:   # (no option asked for yet)
                    spec = instr.option(name)
                # (no "waiting" or "turn" set here: nothing reads them while the rules run, and
                # the choice they pause at, or end_game, sets both)
                if spec.action:
                    frame["pc"] = instr.end
                    self.push(spec.action, [turn, *args], None)
                    frame = stack[-1]
                else:
                    if len(args) == 1:
                        L[spec.names[0]] = args[0]
                    elif args:
                        L.update(zip(spec.names, args))
                    frame["pc"] = spec.target
                units = self._units
                self.steps = 0
                try:    # :meth:`run`, written out: the top frame's unit runs until it pauses
                    while (r := units[frame["c"]](self, frame)) is not PAUSE:
                        if r is not GO_ON:   # a return: the frame popped, the value to its caller
                            self.pop(r)
                        if not stack:
                            self._ended()
                            break
                        frame = stack[-1]
                except Exception as err:
                    failure = self._failure(err)
                    if failure is err:
                        raise
                    raise failure from None
        except BaseException:
            self._control = (saved, rng, True, turn, None, made, said)
            self.rollback()
            raise
        records = self._records
        records.clear()
        self._old_glob, old_glob = None, self._old_glob
        if self.undoing:
            undo = (records.old, old_glob, saved, rng, True, turn, None, made, said)
            records.old = {}
            return undo
        records.old.clear()     # (what the decision replaced is freed at once)
        return None

    def _endless(self) -> RulesRuntimeError:
        """RR303 for a game that has used up its decisions: at the game block, with what to look
        for (one-line reports, such as simulate's, show no hint: the message says it)."""
        game = self.program.codes.get("game")
        return RulesRuntimeError(Diagnostic(
            "RR303", f"the game did not end within {self.decisions_max} decisions: does every "
            "way through the rules reach an end_game, or a check_end whose end conditions can come true?",
            game.pos if game is not None else Pos("<game>", 0, 0),
            hint="a game that is right but long: raise limits.decisions in ruleset.yaml"))


if TYPE_CHECKING:   # mypy holds both to the protocols compiled rule code is written against
    from ..runtime.run import ExpressionRun, Run
    _RUNS: tuple[type[Run], type[ExpressionRun]] = (Machine, ConstantRun)
