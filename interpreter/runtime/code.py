"""Code units as the machine reads them: the compiled rules' data that a paused game points into.

A code unit is a flat list of instructions with jumps, so that where the rules are paused is
just ``(code unit, pc, locals)``: plain data (DESIGN invariant 3). The engine reads a unit's
instructions only where it pauses, at a choice (:class:`Choice` and its options), and runs each
unit as the one Python function the compiler wrote for it, which returns :data:`PAUSE` when the
machine stops. The compiler (:mod:`interpreter.compile`) makes all of these and writes the
functions; the engine reaches the writer only through the program (:func:`function_of`).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from ..errors import Pos
from .values import Action


class Signal:
    """What a unit's function returns when it leaves the rules under way (anything else it
    returns is the value of its ``return``): :data:`PAUSE`, the machine stops (a choice, the
    end); :data:`GO_ON`, the machine runs the top frame next (a frame pushed for a call or an
    event, or the unit goes on in another call of itself). Either way the frames of the calls
    left under way that are not on the stack yet are in the machine's ``chain``."""
    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return self.name


PAUSE, GO_ON = Signal("PAUSE"), Signal("GO_ON")
SECRET_SLOT = "$secret"  # the hidden local of a secret choice's round: "$secret3@12"


@dataclass
class Code:
    key: str
    params: list
    pos: Pos
    instrs: list = field(default_factory=list)
    space: dict | None = None   # the namespace its unit function is written into
    guarded: bool = False       # its first instruction is a `when` guard (a trigger's)
    shows: list = field(default_factory=list)   # its `show` lines, fn(run, L): what it shows while it waits


class Instr:
    """One step of a code unit, at the source position of the statement it came from. The
    compiler's instructions also write themselves as Python lines of the unit's function;
    ``ends``: control leaves the straight line after it (a jump, a call, a return, a pause)."""
    __slots__ = ("pos",)
    pos: Pos
    ends = False


@dataclass
class OptionSpec:
    """One option of a choice: its parameters' domains and the requires that make it legal."""
    name: str
    domains: list          # of (var, fn)
    requires: list         # of (fn, reason_fn, pos)
    target: int | None     # pc of an inline body, or
    action: str | None     # the key of a used action's code unit
    player_var: str | None  # the action's `by p` name
    pos: Pos
    # generated code for the last parameter: the actions of its values that pass the requires
    # tested with it (tests_at[-1]; every value when there are none), or None (the machine
    # tests each value): choices(run, L, items, name, head values, made)
    choices: object = None
    levels: tuple = ()     # for each require, the index of the last parameter it reads (0: none)
    # the Actions this option has listed, kept to be listed again (see Machine._enumerate): values
    # before the last -> last value -> its Action. Actions never change, and an option lists the
    # same few values decision after decision.
    made: dict = field(default_factory=dict, repr=False, compare=False)
    # for each parameter, its description in the game's words (`x in D as "..."`), fn(run, L)
    # over the names its domain sees, or None
    about: tuple = ()
    # for each parameter, whether its domain is proven a list (compile/proven.py): its lister
    # (compile/legal.py) does not test it
    listed: tuple = ()

    @cached_property
    def tests(self) -> tuple:
        """The require conditions."""
        return tuple(cond for cond, _, _ in self.requires)

    @cached_property
    def tests_at(self) -> tuple:
        """For each parameter, the require conditions tested once it has its value: each as soon
        as every parameter it reads has one, so that a require of the first parameter alone is
        not tested again for every value of the second (without ``levels``: all with the last)."""
        last = max(len(self.domains) - 1, 0)
        levels = self.levels or (last,) * len(self.requires)
        return tuple(tuple(cond for (cond, _, _), level in zip(self.requires, levels) if level == i)
                     for i in range(last + 1))

    @cached_property
    def names(self) -> tuple:
        return tuple(var for var, _ in self.domains)

    @cached_property
    def bare(self) -> Action:
        """The action of this option when it has no parameters (made once: Actions never change)."""
        return Action(self.name, ())


class Choice(Instr):
    """A choice point: whose turn it is (``player``, an expression), its options, and the pc
    after them (``end``)."""
    __slots__ = ("player", "options", "end", "by_name", "lister")
    ends = True
    secret = False   # a SecretChoice: every seat of a list commits (Machine.decide)

    def __init__(self, pos, player, options, end=None):
        self.pos, self.player, self.options, self.end = pos, player, options, end
        self.by_name: dict | None = None   # option name -> its spec, made by the first option()
        # its legal actions listed by generated code (compile/legal.py), written the first time
        # they are asked for (``program.lister``); False: none, the machine lists them
        self.lister = None

    def option(self, name: str) -> OptionSpec:
        """The option called ``name`` (a legal action's)."""
        if self.by_name is None:
            self.by_name = {s.name: s for s in self.options}
        return self.by_name[name]


class SecretChoice(Choice):
    """``choose secretly by VAR in SEATS``: every seat of a list commits one option, in secret,
    in any order; then the commitments are revealed together. ``player`` is the list's
    expression; while the round is open its state is the frame's hidden local ``slot``
    (:mod:`interpreter.engine.commitments`) and ``var`` holds the seat asked now; the reveal
    goes on at ``reveal``, which runs each seat's option in the list's order."""
    __slots__ = ("var", "slot", "reveal")
    secret = True

    def __init__(self, pos, player, options, var, slot, end=None):
        super().__init__(pos, player, options, end)
        self.var, self.slot, self.reveal = var, slot, None


def function_of(code: Code, program):
    """The function of ``code``, one of ``program``'s units (``program.units`` writes it)."""
    return program.units[code.key]


def fault_site(err) -> tuple:
    """The key of the innermost unit whose line raised ``err``, and the ruleset position of that
    line's instruction ((None, None) if no unit's line is in its traceback). A unit's namespace
    knows its functions' code objects: ``__units__`` maps each to its Code and, for each line of
    its source, the index of the instruction that line belongs to."""
    tb, found = err.__traceback__, (None, None)
    while tb is not None:
        frame = tb.tb_frame
        where = frame.f_globals.get("__units__", {}).get(frame.f_code)
        if where is not None:
            code, owners = where
            found = code.key, code.instrs[owners[tb.tb_lineno - 1]].pos
        tb = tb.tb_next
    return found
