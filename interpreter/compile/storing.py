"""What a store site checks: the governor's check of a value a rule stores (``let``, ``set``,
``add``; :func:`interpreter.runtime.governor.check_storable`), left out or narrowed where the
proven types (:mod:`.proven`) and the expression's own shape settle it.

A value is stored as it is when it is none, a truth, an entity, a text written in the rules, a
whole number written in the rules within the bounds, a list or map of none, truths, texts and
entities (every list a rule builds holds fewer than ``MAX_NODES`` values: what makes one is
bounded by ``MAX_LIST`` items, or by a YAML document's ``MAX_NODES`` values), or a local that
only stored values were given (``let``, ``set``, ``let ... = call``: each checked where it was
stored), an item of one, or the list ``let (a, b) = ...`` takes apart. A whole number is
tested against the bounds where it is stored. Anything else of a proven shape (a list of lists,
a list literal, a comprehension, a def's result: :func:`interpreter.runtime.governor.shaped`)
is checked for what the proof leaves open; the rest is checked as any value is.
"""
from __future__ import annotations

from ..dsl import nodes as n
from ..dsl.resolver import assigned
from ..dsl.scope import Kind, resolve_call
from ..runtime.governor import MAX_TEXT, shaped
from ..runtime.values import MAX_STORED
from .proven import ANY, Types, list_item, plain

AS_IT_IS, WHOLE, CHECKED = "as it is", "whole", "checked"   # the plans other than a shaped check
SURE = "sure"   # a whole number that is never none (proven.Types.whole): tested against the bounds only
_DEEPEST = 6   # how many defs, list literals and comprehensions inside one another a shape follows


def checked_locals(params, body: list) -> frozenset:
    """The locals of a unit (parameters ``params``, statements ``body``) that only ``let``,
    ``set`` and ``let ... = call`` bind: every value they hold was checked where it was stored
    (not a parameter, a loop's or a choice's variable, a drawn item)."""
    other = set(params)
    for x in n.walk(body):
        c = x.__class__
        if c is n.For or c is n.Turns:
            other.add(x.var)
        elif c is n.Draw:
            other.add(x.name)
        elif c is n.Option:
            other.update(d.var for d in x.domains)
        elif c is n.Choose and x.secret is not None:
            other.add(x.secret)
    return frozenset(assigned(body) - other)


def plan(types: Types, e, locals_: dict, kept: frozenset):
    """How a unit stores the value of expression ``e`` (its locals' proven types ``locals_``,
    its locals that hold checked values ``kept``): :data:`AS_IT_IS`, :data:`WHOLE` (a whole
    number or none, tested against the bounds), :data:`SURE` (an int itself, never none: not tested
    an int), :data:`CHECKED` (the governor's whole check), or a
    shaped check (a function of the value)."""
    if _kept(e, kept) or e.__class__ is n.Str and len(e.parts) == 1 and isinstance(e.parts[0], str) \
            and len(e.parts[0]) <= MAX_TEXT:
        return AS_IT_IS
    shape = _Shapes(types, locals_).of(e, {}, 0)
    if shape in ("safe", "flat"):
        return AS_IT_IS
    if shape == "int":
        return SURE if types.whole(e, locals_) else WHOLE
    if shape == ANY or shape == "text":   # (a text is measured where it is stored)
        return CHECKED
    return shaped(shape)


def _kept(e, kept: frozenset) -> bool:
    """Whether ``e`` is a checked local, an item of one, or one taken apart."""
    c = e.__class__
    if c is n.Var:
        return e.name in kept
    if c is n.Index or c is n.Unpack:
        return _kept(e.obj if c is n.Index else e.expr, kept)
    return False


def of_type(t: str):
    """The shape (:func:`interpreter.runtime.governor.shaped`) of a value of proven type ``t``
    (``safe``: stored as it is; ``text``: stored as it is inside a list or map, measured
    where it is stored itself)."""
    if t in ("none", "bool") or t.startswith("entity:"):
        return "safe"
    if t == "int" or t == "str":
        return "int" if t == "int" else "text"
    head, _, item = plain(t).partition(":")   # (a row: as a list of its items' join)
    if head in ("list", "map") and item:
        inner = _in_list(of_type(item))
        if inner in ("safe", "int"):
            return "flat" if inner == "safe" else "ints"
        if head == "list" and inner != ANY:
            return ("list", inner)
    return ANY


def _in_list(shape):
    """``shape`` as the shape of an item of a list: a text is stored as it is there."""
    return "safe" if shape == "text" else shape


def _listed(item):
    """The shape of a list of items of shape ``item``."""
    item = _in_list(item)
    if item == "safe" or item == "int":
        return "flat" if item == "safe" else "ints"
    return ANY if item == ANY else ("list", item)


class _Shapes:
    """The shape of an expression's value: of its proven type, or where the type is not
    proven, of the list literal, comprehension, def call, ``let ... in`` or unpacking it is."""

    def __init__(self, types: Types, locals_: dict | tuple):
        self.types, self.locals = types, locals_

    def of(self, e, env: dict, deep: int):
        c = e.__class__
        if c is n.Int:
            return "safe" if -MAX_STORED <= e.value <= MAX_STORED else "int"
        shape = of_type(self.types.of(e, env, self.locals))
        if shape != ANY or deep > _DEEPEST:
            return shape
        if c is n.ListLit:
            items = tuple(_in_list(self.of(x, env, deep + 1)) for x in e.items)
            return "flat" if all(s == "safe" for s in items) else ("items", items)
        if c is n.Comprehension:
            source = self.types.of(e.source, env, self.locals)
            inner = {**env, e.var: list_item(source)}
            return _listed(self.of(e.expr, inner, deep + 1))
        if c is n.LetIn:
            return self.of(e.body, {**env, e.var: self.types.of(e.value, env, self.locals)}, deep)
        if c is n.Unpack:
            return self.of(e.expr, env, deep)
        if c is n.Conditional:
            a, b = self.of(e.then, env, deep), self.of(e.otherwise, env, deep)
            return a if a == b else ANY
        if c is n.Call:
            kind, d = resolve_call(self.types.names, e.name, set(env) | set(self.locals))
            if kind is Kind.FUNCTION and isinstance(d, n.FuncDef) and len(d.params) == len(e.args):
                args = {p: self.types.of(a, env, self.locals) for p, a in zip(d.params, e.args)}
                return _Shapes(self.types, ()).of(d.expr, args, deep + 1)
        return ANY
