"""The ``Run`` protocol: everything compiled rule code may touch of the game that runs it.

Generated code (expressions, defs, code units) and the helpers it calls (:mod:`.helpers`,
:mod:`.values`, the builtins, ``dsl/functions.py``, the instructions) receive one object, ``run``,
and touch only the members listed here. The engine's ``Machine`` is a :class:`Run`; while a
ruleset loads, its constants are computed with a ``ConstantRun``, which is only an
:class:`ExpressionRun` (an expression reads and counts; it changes nothing). mypy checks both
(engine/machine.py), and tests/test_run_protocol.py checks that the generated code of every
shipped ruleset uses no other member.

Members that generated code only reads are read-only properties here; ``steps`` and ``depth``
are counters it changes.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from typing import Any, Protocol


class ExpressionRun(Protocol):
    """What an expression's code may touch: a constant's too (reads, counting, calls of defs)."""

    steps: int      # the work done so far, in steps (generated code adds to it; see budget)
    depth: int      # how deep defs call each other now (at most 200)

    @property
    def budget(self) -> int:
        """The steps allowed before the rules are stopped (a ruleset's ``limits: steps``)."""

    @property
    def state(self) -> dict:
        """The game's state as plain data: ``kinds`` (``players``), ``stack``, ``turn``, ``rng``..."""

    @property
    def ent(self) -> dict:
        """Entity id -> its record (read; :meth:`Run.record` to change one)."""

    @property
    def glob(self) -> dict:
        """The global variables (read; :meth:`Run.globals_w` to change them)."""

    @property
    def board(self) -> Any:
        """The static board (``board.graph.Board``): hexes, adjacency, kept frontiers."""

    @property
    def program_functions(self) -> Mapping[str, Callable[..., Any]]:
        """``def`` name -> its compiled body (a constant's run refuses every call, saying why)."""

    def tick(self, n: int) -> None:
        """Count ``n`` steps of work against the budget (raises when it is spent)."""

    def derived(self, key: str, args: tuple, typed: Callable[..., Any] | None = None) -> Any:
        """The value of ``derived key(args)``, kept while nothing it read has changed (``typed``:
        the def's function for the arguments' proven types, to work it out where nothing is
        noted)."""

    def show(self, value: Any) -> str:
        """How a value reads in a message (an entity by its name, a list joined...)."""


class Run(ExpressionRun, Protocol):
    """What the code of statements, procedures, triggers and the game may touch as well."""

    @property
    def program(self) -> Any:
        """The compiled program (``compile.statements.Program``): code units, resets, end conditions."""

    @property
    def tracked_functions(self) -> Mapping[str, Callable[..., Any]]:
        """``def`` name -> its body that notes what it reads (inside a derived value)."""

    @property
    def counts(self) -> Counter | None:
        """Code unit key -> times entered, while rules coverage is counted (else None)."""

    @property
    def deps(self) -> list | None:
        """While a derived value is computed: the (entity, field, value) it read (else None)."""

    @property
    def gdeps(self) -> list | None:
        """While a derived value is computed: the (variable, value) it read (else None)."""

    def record(self, eid: Any) -> dict:
        """The record of entity ``eid``, ready to be changed in this transaction."""

    def globals_w(self) -> dict:
        """The global variables, ready to be changed in this transaction."""

    def push(self, key: str, args: list, dest: str | None) -> None:
        """Call code unit ``key`` with ``args``: a frame on the stack (``dest``: the local its
        result goes to)."""

    def say(self, text: Any, reveals: tuple | None = None) -> None:
        """Log a text (``reveals``: the secret field the entry gives away)."""

    def say_entry(self, parts: tuple, values: tuple, reveals: tuple | None = None) -> None:
        """Log a template with its values, written out only when read."""

    def secret(self, value: Any, owner: str | None) -> Any:
        """``value`` as a logged value only ``owner`` (None: no seat) may read: a value the
        rules print from a secret without saying the line ``reveals`` it (a ``Secret``)."""

    def random_below(self, n: int) -> int:
        """A number in [0, n) from the game's own generator (or from the caller's chance)."""

    def end_game(self, reasons: list) -> None:
        """End the game now for ``reasons``: scores, tiebreaks and winners into the result."""

    def check_end(self) -> bool:
        """End the game if an end condition holds; True if it did."""


MEMBERS = frozenset(name for proto in (ExpressionRun, Run) for name in vars(proto)
                    if not name.startswith("_")) | frozenset(ExpressionRun.__annotations__)
