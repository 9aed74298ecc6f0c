"""Syntax tree of the rules language: one dataclass per grammar rule.

Every node carries ``pos``: a :class:`~interpreter.errors.Pos` (file, line, column)
so that later stages can point at the author's text.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

from ..errors import Pos
from ..runtime.memo import of_object


@dataclass
class Node:
    pos: Pos


# ------------------------------------------------------------------ expressions
@dataclass
class Int(Node):
    value: int


@dataclass
class Str(Node):
    """A string; ``parts`` alternates text and interpolated expressions ``{expr}``."""
    parts: list


@dataclass
class Const(Node):
    value: object  # True, False or None


@dataclass
class Var(Node):
    name: str


@dataclass
class Attr(Node):
    obj: Node
    name: str


@dataclass
class Index(Node):
    obj: Node
    key: Node


@dataclass
class Call(Node):
    name: str
    args: list


@dataclass
class ListLit(Node):
    items: list


@dataclass
class Comprehension(Node):
    expr: Node
    var: str
    source: Node
    where: Node | None


@dataclass
class MapOf(Node):
    """A map literal ``{k: v, ...}`` or ``{k: v for x in xs}``: the map of a list of [key, value]
    pairs (a later pair with the same key wins)."""
    pairs: Node


@dataclass
class Unpack(Node):
    """The list ``expr`` gives, checked to hold ``count`` items (``let (a, b) = expr``)."""
    expr: Node
    count: int


@dataclass
class Exists(Node):
    """``exists var in source where cond``: true when some item makes ``cond`` true."""
    var: str
    source: Node
    cond: Node


@dataclass
class Lambda(Node):
    var: str
    body: Node


@dataclass
class LetIn(Node):
    """A local of a ``def`` written as a block (``let x = value`` lines, then ``return body``):
    ``body`` sees ``var``; a def with several lets nests them."""
    var: str
    value: Node
    body: Node


@dataclass
class BinOp(Node):
    op: str
    left: Node
    right: Node


@dataclass
class Compare(Node):
    op: str  # == != < <= > >= in "not in"
    left: Node
    right: Node


@dataclass
class BoolOp(Node):
    op: str  # and / or
    items: list


@dataclass
class Not(Node):
    expr: Node


@dataclass
class Neg(Node):
    expr: Node


@dataclass
class Conditional(Node):
    then: Node
    cond: Node
    otherwise: Node


# ------------------------------------------------------------------ statements
@dataclass
class Target(Node):
    """``name``, ``name.field``, ``name.field[key]``: where an assignment writes."""
    name: str
    path: list  # of ("attr", str) or ("index", Node)

    def read(self, steps: int | None = None) -> Node:
        """The expression that reads this target, or what its first ``steps`` steps reach."""
        node: Node = Var(self.pos, self.name)
        for kind, x in self.path[:steps]:
            node = Attr(self.pos, node, x) if kind == "attr" else Index(self.pos, node, x)
        return node


@dataclass
class Let(Node):
    name: str
    expr: Node


@dataclass
class LetCall(Node):
    name: str
    proc: str
    args: list


@dataclass
class Set(Node):
    target: Target
    op: str  # = += -=
    expr: Node


@dataclass
class Pay(Node):
    amount: Node
    payer: Node
    payee: Node


@dataclass
class CallStmt(Node):
    proc: str
    args: list


@dataclass
class Return(Node):
    expr: Node | None


@dataclass
class Break(Node):
    pass


@dataclass
class Continue(Node):
    pass


@dataclass
class Pass(Node):
    pass


@dataclass
class Require(Node):
    cond: Node
    reason: Str


@dataclass
class Emit(Node):
    event: str
    args: list


@dataclass
class Draw(Node):
    name: str
    source: Node


@dataclass
class Add(Node):
    item: Node
    target: Target


@dataclass
class Remove(Node):
    item: Node
    target: Target


@dataclass
class EndGame(Node):
    reason: Node


@dataclass
class CheckEnd(Node):
    pass


@dataclass
class Log(Node):
    expr: Node
    reveals: Node | None = None   # a Target naming the (secret) field the entry gives away


@dataclass
class Cite(Node):
    text: str


@dataclass
class Show(Node):
    """``show expr``: a line the unit shows, in the game's words, while it waits for a choice
    (its value; none or an empty text shows nothing). It does nothing when the rules run."""
    expr: Node


@dataclass
class If(Node):
    branches: list  # of (cond, body)
    otherwise: list | None


@dataclass
class For(Node):
    var: str
    source: Node
    body: list


@dataclass
class While(Node):
    cond: Node
    body: list


@dataclass
class Repeat(Node):
    count: Node
    body: list


@dataclass
class Turns(Node):
    """``each var in turn [of source] [from first] [until ...]: body``: the players of ``source``
    (the players in seat order when None) take turns, from ``first`` (the list's first when
    None). ``end``: None (round and round), "all" (until all pass), "others" (until all
    others pass) or "once" (once around)."""
    var: str
    source: Node | None
    first: Node | None
    end: str | None
    body: list


@dataclass
class PassTurn(Node):
    """``pass turn``: the turn of the innermost ``each ... in turn`` loop counts as a pass."""


@dataclass
class DropOut(Node):
    """``drop out``: the player whose turn it is leaves the innermost ``each ... in turn`` loop."""


@dataclass
class Domain(Node):
    """``var in source [as "about"]``: an option's parameter, its values, and what it is in the
    game's words (a refusal, a page and an agent say it instead of the name)."""
    var: str
    source: Node
    about: Node | None = None   # a Str


@dataclass
class Option(Node):
    """``option name(x in D): body`` — the leading ``require`` lines decide legality."""
    name: str
    domains: list
    body: list


@dataclass
class UseOption(Node):
    action: str


@dataclass
class Choose(Node):
    """``choose by player:``, or with ``secret`` (its name) ``choose secretly by secret in
    player:``, where ``player`` is the list of those who commit at once."""
    player: Node
    options: list
    secret: str | None = None


# ------------------------------------------------------------------ definitions
@dataclass
class ConstDef(Node):
    name: str
    expr: Node


@dataclass
class FuncDef(Node):
    name: str
    params: list
    expr: Node
    derived: bool = False   # `derived`: cached by the engine, kept up to date


@dataclass
class ProcDef(Node):
    name: str
    params: list
    body: list


@dataclass
class ActionDef(Node):
    name: str
    domains: list
    player: str
    body: list


# The event the engine emits once when the game has ended, before the scores: its handlers
# (``on game_end:``) reveal what was secret and pay final bonuses.
GAME_END = "game_end"


@dataclass
class HandlerDef(Node):
    event: str
    params: list
    when: Node | None
    body: list


@dataclass
class EndDef(Node):
    """``end_condition name [as "about"]: expr``; ``about`` says in the game's words what
    happened when the condition ends the game."""
    name: str
    expr: Node
    about: Node | None = None   # a Str


@dataclass
class ScoreDef(Node):
    player: str
    expr: Node


@dataclass
class MetricDef(Node):
    """A figure of a game, reported per game by simulations and comparisons."""
    name: str
    expr: Node


@dataclass
class EstimateDef(ScoreDef):
    """How well player ``player`` stands in a game not yet over (bots search with it)."""


@dataclass
class TiebreakDef(ScoreDef):
    """Among the players with the best score, those with the highest value of this win."""


@dataclass
class GameDef(Node):
    body: list


@dataclass
class Needs(Node):
    """``needs def NAME(a, b)`` / ``needs procedure NAME(a)`` in a library file: a definition
    the game that uses the file must give (a hook)."""
    kind: str      # "def" or "procedure"
    name: str
    params: list


# ------------------------------------------------------------------ overlays
# What a variant or an extending ruleset adds to a definition of its base. The loader lays
# them over the base's definitions (:mod:`..data.overlay`) before anything else sees them.
@dataclass
class Hook(Node):
    """``before P(a, b): body`` / ``after P(a, b): body``: rules run around procedure P."""
    side: str          # "before" or "after"
    target: str
    params: list
    body: list


@dataclass
class AddedOption(Node):
    """``option NAME(x in D) after OTHER in P: body``: an option added to the ``choose`` of P
    that offers OTHER, listed before or after it."""
    option: Option
    side: str
    anchor: str
    target: str


@dataclass
class EndClause(Node):
    """``end_condition NAME or: expr`` (or ``and:``): a clause joined to an end condition."""
    name: str
    join: str
    expr: Node


OVERLAY_DEFINITIONS = (Hook, AddedOption, EndClause)


@dataclass
class Module(Node):
    definitions: list = field(default_factory=list)
    broken: set = field(default_factory=set)  # names of definitions that failed to parse
    needs: list = field(default_factory=list)  # Needs: the file's contract with the game


class DefinitionKind(NamedTuple):
    """A kind of top-level definition, as every part of railrules names it."""
    node: type          # its syntax-tree class
    keyword: str        # as the rules write it; also its kind in the symbol table and fingerprints
    noun: str           # as a message calls one
    heading: str        # its section in `railrules doc`
    named: bool         # it defines a name of the rules (the others: `on EVENT`, score..., game)
    rule: str | None    # what coverage counts it as a rule of (None: not a rule games count)


# The definition kinds: the one list (the grammar, rules.lark, spells them too). In the order of
# `railrules doc`'s sections.
DEFINITIONS = (
    DefinitionKind(GameDef, "game", "game", "Game", False, None),
    DefinitionKind(ProcDef, "procedure", "procedure", "Procedures", True, "procedure"),
    DefinitionKind(ActionDef, "action", "action", "Actions", True, "action"),
    DefinitionKind(HandlerDef, "on", "trigger", "Triggers", False, "trigger"),
    DefinitionKind(FuncDef, "def", "function", "Functions", True, None),
    DefinitionKind(ConstDef, "const", "constant", "Constants", True, None),
    DefinitionKind(EndDef, "end_condition", "end condition", "End conditions", True, "end"),
    DefinitionKind(ScoreDef, "score", "score", "Score and estimate", False, None),
    DefinitionKind(EstimateDef, "estimate", "estimate", "Score and estimate", False, None),
    DefinitionKind(TiebreakDef, "tiebreak", "tiebreak", "Score and estimate", False, None),
    DefinitionKind(MetricDef, "metric", "metric", "Metrics", True, None),
)
KIND_OF = {k.node: k for k in DEFINITIONS}                  # syntax-tree class -> its kind
DEFINITION_KINDS = {k.node: k.keyword for k in DEFINITIONS}  # syntax-tree class -> its keyword


def walk(x):
    """Yield every node in ``x`` (a node, a list, or a tuple), depth first, in source order:
    the one traversal every check and the compiler use. A definition's nodes are listed once
    and kept (parsed modules are shared and never change): lint walks the same definitions in
    the ruleset and in each of its variants."""
    stack = [x]
    while stack:
        item = stack.pop()
        if type(item) in DEFINITION_KINDS:
            yield from _definition_nodes(item)
        elif isinstance(item, Node):
            yield item
            stack.extend(reversed(vars(item).values()))
        elif isinstance(item, (list, tuple)):
            stack.extend(reversed(item))


_NODES: dict = {}  # id(definition) -> (the definition, kept alive so its id stays its own; its nodes)


def _definition_nodes(d) -> tuple:
    return of_object(_NODES, d, _nodes_of, 4096)   # (an editor parses file after file, edit after edit)


def _nodes_of(d) -> tuple:
    return d, *walk(list(vars(d).values()))


# The node kinds, each listed once: every pass over expressions (the resolver, the generated
# code, the type checker) and over statements (the compiler) handles all of its kind
# (tests/test_language.py checks it), through a table :func:`handlers` builds.
EXPRESSIONS = (Int, Str, Const, Var, Attr, Index, Call, ListLit, Comprehension, MapOf, Unpack, Exists,
               Lambda, LetIn, BinOp, Compare, BoolOp, Not, Neg, Conditional)
STATEMENTS = (Let, LetCall, Set, Pay, CallStmt, Return, Break, Continue, Pass, Require, Emit, Draw,
              Add, Remove, EndGame, CheckEnd, Log, Cite, Show, If, For, While, Repeat, Choose, Turns, PassTurn,
              DropOut)


def handlers(cls: type, prefix: str, kinds: tuple) -> dict:
    """Node class -> the method of ``cls`` named ``prefix`` + the class's name, for each of
    ``kinds`` that has one (a pass names its methods after the nodes it handles)."""
    return {kind: getattr(cls, prefix + kind.__name__) for kind in kinds if hasattr(cls, prefix + kind.__name__)}
