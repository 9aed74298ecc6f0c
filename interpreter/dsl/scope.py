"""What a name in the rules means: the order of LANGUAGE.md §7, written once.

A name read in an expression is the first of: a local, a global variable, a constant, an
entity id or alias, ``players``, a kind, a ``def`` (a function value), a ``procedure`` (its
name, a value), an end condition (whether the game ended for it). A call ``f(...)`` is a def,
a builtin, or a local holding a function (a procedure there is an error). ``call f(...)`` runs
a procedure, or the one a local names.

The resolver (undefined names), the code generator (Python source) and the type checker all
ask :func:`resolve`, :func:`resolve_call` or :func:`resolve_procedure` and only decide what to
do with each :class:`Kind`; an undefined name's "did you mean" hint picks from
:func:`candidates`. ``locals_`` is whatever answers ``name in locals_``: the compiler's set
of a unit's locals, the checker's scope of types.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import NamedTuple

from . import builtins


@dataclass
class Names:
    """Everything a rule may name besides its own locals."""
    constants: dict            # name -> value
    variables: set             # global mutable variables
    entities: dict             # id or alias -> id
    kinds: dict                # kind -> list of ids ("players" is filled per game)
    functions: dict = field(default_factory=dict)   # def name -> FuncDef
    procedures: dict = field(default_factory=dict)  # name -> ProcDef
    actions: dict = field(default_factory=dict)     # name -> ActionDef
    events: dict = field(default_factory=dict)      # event -> [HandlerDef]
    ends: set = field(default_factory=set)          # the end conditions' names
    broken: set = field(default_factory=set)        # names whose definition did not parse
    proven: dict = field(default_factory=dict)      # the proven types (compile/proven.py)
    secrecy: dict = field(default_factory=dict)     # what the engine hides (checks/check_secrets.py)
    # the entity fields something may write (compile/statements.py fields_written); None: any.
    # A derived value notes no read of another field: none can change under it.
    written: frozenset | None = None


class Kind(Enum):
    """What a name is; the value :func:`resolve` gives with it, if any, in brackets."""
    LOCAL = "local"
    VARIABLE = "variable"
    CONSTANT = "constant"      # (its value)
    ENTITY = "entity"          # (the entity's id: an alias is resolved)
    PLAYERS = "players"
    KIND = "kind"              # (the ids of its entities)
    FUNCTION = "function"      # a def (its FuncDef)
    PROCEDURE = "procedure"    # (its ProcDef)
    END = "end condition"      # whether the game ended for it
    BUILTIN = "builtin"        # calls only (its builtins.Builtin entry)
    UNDEFINED = "undefined"


class Resolved(NamedTuple):
    kind: Kind
    value: object = None


def resolve(names: Names, name: str, locals_) -> Resolved:
    """What ``name`` means where it is read as a value."""
    if name in locals_:
        return Resolved(Kind.LOCAL)
    if name in names.variables:
        return Resolved(Kind.VARIABLE)
    if name in names.constants:
        return Resolved(Kind.CONSTANT, names.constants[name])
    if name in names.entities:
        return Resolved(Kind.ENTITY, names.entities[name])
    if name == "players":
        return Resolved(Kind.PLAYERS)
    if name in names.kinds:
        return Resolved(Kind.KIND, names.kinds[name])
    if name in names.functions:
        return Resolved(Kind.FUNCTION, names.functions[name])
    if name in names.procedures:
        return Resolved(Kind.PROCEDURE, names.procedures[name])
    if name in names.ends:
        return Resolved(Kind.END)
    return Resolved(Kind.UNDEFINED)


def resolve_call(names: Names, name: str, locals_) -> Resolved:
    """What ``name(...)`` calls: FUNCTION, BUILTIN or LOCAL; PROCEDURE (an error: it is run
    with ``call``) or UNDEFINED otherwise."""
    if name in names.functions:
        return Resolved(Kind.FUNCTION, names.functions[name])
    entry = builtins.ALL.get(name)
    if entry is not None:
        return Resolved(Kind.BUILTIN, entry)
    if name in locals_:
        return Resolved(Kind.LOCAL)
    if name in names.procedures:
        return Resolved(Kind.PROCEDURE, names.procedures[name])
    return Resolved(Kind.UNDEFINED)


def resolve_procedure(names: Names, name: str, locals_) -> Resolved:
    """What ``call name(...)`` runs: PROCEDURE, or a LOCAL holding a procedure's name."""
    if name in names.procedures:
        return Resolved(Kind.PROCEDURE, names.procedures[name])
    if name in locals_:
        return Resolved(Kind.LOCAL)
    return Resolved(Kind.UNDEFINED)


def candidates(names: Names, locals_=(), kind: Kind | None = None) -> set:
    """The names an undefined ``name`` may have meant: any value :func:`resolve` knows (but
    ``players``), or only the variables (with ``locals_``), the functions or the procedures
    when ``kind`` is VARIABLE, FUNCTION (defs and builtins: a call) or PROCEDURE."""
    if kind is Kind.VARIABLE:
        return {*locals_, *names.variables}
    if kind is Kind.FUNCTION:
        return {*builtins.ALL, *names.functions}
    if kind is Kind.PROCEDURE:
        return set(names.procedures)
    return {*locals_, *names.variables, *names.constants, *names.entities, *names.kinds,
            *names.functions, *names.procedures, *names.ends}
