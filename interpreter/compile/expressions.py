"""Expressions compiled to Python code objects: the one generator, fast and checked.

Each expression a statement, a require, a domain or a ``def`` evaluates is turned into the
source of one Python function ``f(run, L)`` and compiled with :func:`compile`. The source never
holds a name a ruleset wrote: rule variables become ``v_NAME`` (comprehension and lambda
variables, and the locals of a code unit, which are its function's Python locals: ``bound``)
or ``L['NAME']`` (locals read from a frame's dict), fields and keys are string literals, and
everything else is a helper (:mod:`interpreter.runtime.helpers`) or a value in the function's namespace. So nothing in a ruleset can
reach a Python name.

The fast code takes the common path without checks (an entity's field, whole numbers). When
anything goes wrong inside it, it runs the same expression again as the same generator's
checked mode wrote it (:class:`Checked`, written the first time it is needed), which raises the
fault with its exact words: an expression changes nothing, so running it again is safe, and the
error keeps the ruleset's file, line and column from the statement that runs it. Names are
checked before any of this (:mod:`interpreter.dsl.resolver`).
"""
from __future__ import annotations

import re
from contextlib import ExitStack

from ..dsl import builtins, nodes as n
from ..dsl.functions import call_value, def_value
from ..dsl.scope import Kind, resolve, resolve_call
from ..runtime.helpers import HELPERS, ended
from .proven import ANY, is_proven, is_row, list_item, row_items, types_for
from .hoist import hoist
from .sources import add, define, where
from .writer import Writer


class _Unsupported(Exception):
    """An expression the fast mode leaves to the checked mode (a name the resolver reported)."""


_BASE = {**HELPERS, **{f"_b_{name}": entry[0] for name, entry in builtins.ALL.items()}}


def namespace() -> dict:
    """A ruleset's namespace: every function generated for it runs here (see :func:`add`)."""
    return dict(_BASE)


_ORDER = {"<": "_o_0", "<=": "_o_1", ">": "_o_2", ">=": "_o_3"}
_CHECKED_ORDER = {"<": "_cmp_0", "<=": "_cmp_1", ">": "_cmp_2", ">=": "_cmp_3"}
_FAST_ARITH = {"+": "_add", "-": "_sub", "*": "_mul"}
_CHECKED_ARITH = {"/": "_div", "//": "_floordiv", "%": "_mod"}
_WHOLE_DIVISION = {"/": "_Fraction({x}, {y})", "//": "{x} // {y}", "%": "{x} % {y}"}
_COUNTED = {">": "{}", "!=": "{}", "==": "not {}"}   # a count's test against 0, as its truth
_CHARGING = {"_add", *_ORDER.values(), *_CHECKED_ORDER.values()}   # the helpers that take the run
_SCALAR = re.compile(r"int|bool|str|entity:.*")   # proven types that compare at once
_TEXT = re.compile(r"str|entity:.*")               # proven types whose values are texts
_INT = re.compile(r"\d+")                          # a whole number as generated (g_Int)
_PLAIN = re.compile(r"[A-Za-z_]\w*|'[^'\\]*'")    # a Python name, or a string without escapes
_LOCAL = re.compile(r"L\['\w+'\]")                # a rule local as generated (g_Var)
_NAME = re.compile(r"\b(?:_t\d+|v_\w+)\b")        # a temporary or a bound variable (or a unit's local)
_READS_E = re.compile(r"\b_E\b")                  # generated code that reads the entities
_BINDS = (n.Comprehension, n.Exists, n.LetIn, n.Lambda)   # the expressions that bind a variable
_KEYED = ("sort", "max_by", "min_by")   # builtins that call a key with each item of their list
INLINE_NODES = 40   # a def of at most this many nodes is written into its callers' code...
INLINE_DEPTH = 5    # ...up to this many defs deep
INLINE_LOOP_NODES = 120   # (into the body of a loop over items: one of at most this many)


def inlinable(functions: dict) -> dict:
    """The defs whose bodies generated code writes where they are called instead of calling
    them (a Python call with its budget and depth checks costs more than a small body): small
    ones that neither are kept (``derived``) nor call themselves, directly or through others;
    in the body of a loop over items, which calls once an item, larger ones too. Each with the
    Python names of the variables its body binds and its size (:meth:`Codegen.inline`)."""
    calls = {name: {x.name for x in n.walk(d.expr) if isinstance(x, n.Call) and x.name in functions}
             for name, d in functions.items()}

    def recursive(start: str) -> bool:
        seen, todo = set(), list(calls[start])
        while todo:
            name = todo.pop()
            if name == start:
                return True
            if name not in seen:
                seen.add(name)
                todo.extend(calls[name])
        return False
    sizes = {name: sum(1 for _ in n.walk(d.expr)) for name, d in functions.items()}
    return {name: ({f"v_{x.var}" for x in n.walk(d.expr) if isinstance(x, _BINDS)}, sizes[name])
            for name, d in functions.items() if not d.derived and not recursive(name)
            and sizes[name] <= INLINE_LOOP_NODES}


class Codegen:
    """Writes the Python source of one expression, then compiles it with its fallback.

    ``checked``: the checked mode, for the same syntax tree. Every step goes through a helper
    that words what is wrong (a local not set yet, a field read, an index, arithmetic, an
    order, a def's call counted one step), nothing is inlined and nothing is assumed, so the
    code raises the fault the rules made in their own words. It is what the fast code runs
    again when anything goes wrong in it (:class:`Checked`), and what lint runs."""

    def __init__(self, names, tracking: bool, space: dict, checked: bool = False):
        self.names = names
        self.tracking = tracking
        self.space = space  # the ruleset's namespace, shared by all its generated code
        self.checked = checked
        self.inlining = 0   # how many defs deep the code being written is inlined
        self.looping = 0    # how many loops over items deep it is (their bodies')
        self.wrote = False  # whether a def was written in place as asked (g_Call's ``write``)
        # the proven types (compile/proven.py), none in checked mode, which assumes nothing;
        # ``known``: a comprehension variable's or a temporary's type, by its Python name
        self.types = None if checked else types_for(names)
        self.known: dict = {}
        self.memos: dict = {}   # id(bound) -> (bound, {id(node): its type}) (see proven)
        # Whether the source written may raise what its checked code would word (a missing key,
        # an index out of range, a value the proof could not rule out: none in arithmetic...);
        # if not, nothing but a fault already worded can escape it, and it is written with no
        # fallback. ``needs``: the unit's locals it reads, which must be set (``unit``: the
        # Python name of each of the unit's locals -> the local).
        self.partial = False
        self.needs: set = set()
        self.unit: dict = {}

    def total(self) -> frozenset | None:
        """After :meth:`source`: None if the source may raise what its checked code words, else
        the unit's locals that must be set for it to raise nothing the checked code would not."""
        return None if self.partial else frozenset(self.needs)

    def source(self, e, locals_: set | dict, bound: dict | None = None, unit: bool = False,
               known: dict | None = None, truth: bool = False):
        """The source of expression ``e`` (its rule locals ``locals_``, its values ``L[...]``) as
        one Python expression of ``run``, ``L`` and ``_E`` (= ``run.ent``); None when the
        generator leaves it to the checked code. ``unit``: ``bound`` names the locals of a
        code unit, which may not be set (see :meth:`total`). ``truth``: a condition that is
        only tested, its truth (:meth:`truth`)."""
        self.locals = locals_
        self.temps = 0
        self.memos = {}
        self.partial, self.needs = False, set()
        self.unit = {py: x for x, py in bound.items()} if unit and bound else {}
        # a unit's locals with their proven types (statements._typed), where ``bound`` gives
        # them Python names: the names carry the types
        types: dict = locals_ if isinstance(locals_, dict) else {}
        self.known = {py: types[x] for x, py in (bound or {}).items() if x in types}
        if known and bound and self.types is not None:   # (and those of ``bound`` whose types are given)
            self.known.update((bound[x], t) for x, t in known.items())
        try:
            if truth:
                return self.truth(e, bound or {}, not self.checked)
            return self.gen(e, bound or {}, walrus=not self.checked)  # checked: no temporaries
        except _Unsupported:
            return None

    def checked_function(self, e, locals_: set, around: str | None = None):
        """``f(run, L)``, expression ``e`` in checked mode (``self.checked``): no fallback, its
        faults are the rules' own. ``around``: a helper its value goes through."""
        body = self.source(e, locals_)
        w = Writer()
        w.line("def checked(run, L):")
        with w.indent():
            w.line(f"return {around}({body})" if around else f"return {body}")
        return self._define(w, "checked", e.pos)

    def define(self, d, slow, types: dict | None = None, name: str | None = None) -> None:
        """Put ``_def_NAME(run, v_PARAM...)``, def ``d`` as a Python function, into the namespace:
        generated code calls it directly (``slow``: its body's checked code, the fallback).
        A call counts one step; defs call each other at most 200 deep. ``types``: the proven
        types of its parameters, for the function ``name`` that calls with them call."""
        bound = {p: f"v_{p}" for p in d.params}
        body = self.source(d.expr, set(), bound, known=types)
        if body is None:
            return  # its callers' generated code fails to find it and runs their checked code
        name = name or f"_def_{d.name}"
        params = "".join(f", v_{p}" for p in d.params)
        loc = ", ".join(f"{p!r}: v_{p}" for p in d.params)
        w = Writer()
        w.line(f"def {name}(run{params}):")
        with w.indent():
            w.line("run.steps = _s = run.steps + 1")
            w.line("if _s > run.budget:")
            with w.indent():
                w.line("raise _OverBudget()")
            w.line("if run.depth >= 200:")
            with w.indent():
                w.line(f"_too_deep({d.name!r})")
            w.lines(["run.depth += 1", "_E = run.ent", "L = None"])  # no rule locals (see _loop)
            if self.total() is not None:   # nothing to fall back on
                w.line("try:")
                with w.indent():
                    w.line(f"return {body}")
                w.line("finally:")
                with w.indent():
                    w.line("run.depth -= 1")
            else:
                w.attempt(f"return {body}", f"return {add(self.space, '_x', slow, f'{name} {body}')}(run, {{{loc}}})",
                          last="run.depth -= 1")
        self._define(w, name, d.pos, keep=True)

    def function(self, e, locals_: set, slow):
        """``f(run, L)`` for expression ``e`` whose rule locals are ``locals_``; ``slow`` is its
        checked code. None when the generator leaves it to the checked code."""
        body = self.source(e, locals_)
        if body is None:
            return None
        # A fault the helpers raise already has its words (and a def's fault must not be tried
        # again at every level of a deep call); any other error is the unchecked path's.
        w = Writer()
        w.line("def fast(run, L):")
        with w.indent():
            if _READS_E.search(body):
                w.line("_E = run.ent")
            if self.total() is not None:   # nothing to fall back on
                w.line(f"return {body}")
            else:
                w.attempt(f"return {body}", f"return {add(self.space, '_x', slow, f'{where(e.pos)} {body}')}(run, L)")
        fn = self._define(w, "fast", e.pos)
        fn.inline = body   # for code that may write it in place, with no fallback (compile/legal.py)
        return fn

    def choices(self, var: str, conds: list, locals_: set, pos, source=None):
        """``f(run, L, items, name, head, made)``: the legal actions (``name``, ``head`` + a value) of the
        values ``items`` of an option's last parameter ``var``: those that pass every require
        condition ``conds`` (all of them when there is none: the one listing of values, in any
        mode). It has no fallback of its own: the machine lists the values one by one, checked,
        when it raises. ``source``: the parameter's domain, whose value ``items`` is (the
        items' proven type)."""
        self.locals = locals_
        self.temps = 0
        self.known, self.memos = {}, {}
        bound = {var: f"v_{var}"}
        if source is not None:
            self.known[bound[var]] = self._item(source, {})
        try:
            tests = self._looping(lambda: [t for c in conds for t in self.tests(c, bound)])
        except _Unsupported:
            return None
        # a loop, not a comprehension: the tests' temporaries stay plain locals (see _loop)
        # an Action once made is kept in ``made`` and listed again while its value is the very
        # same object (1 and true are equal keys, and so are 2 and 4/2); a list value has no key
        v = f"v_{var}"
        item = self.known.get(v, ANY)
        w = Writer()
        w.line("def choices(run, L, items, name, head, made):")
        with w.indent():
            if any(_READS_E.search(test) for test in tests):
                w.line("_E = run.ent")
            w.lines(["out = []", "add = out.append", "get = made.get"])
            w.line(f"for {v} in items:")
            with w.indent():   # one ``if`` a test: the first's block reads what the rest share
                _when(w, tests, _keep(v, _TEXT.fullmatch(item) is not None))
            w.line("return out")
        hoist(w, v, item.startswith("entity:"), set())
        return self._define(w, "choices", pos)

    def tests(self, e, bound: dict) -> list:
        """Condition ``e`` as Python tests that all hold when it does, each for an ``if`` (its
        truth, not a bool made of it): an ``and`` gives one for each of its parts."""
        if e.__class__ is n.BoolOp:
            if e.op == "and":
                return [t for x in e.items for t in self.tests(x, bound)]
            return [self.truth(e, bound, True)]
        if e.__class__ is n.Compare and e.op in _COUNTED and e.right.__class__ is n.Int and e.right.value == 0 and \
                e.left.__class__ is n.Call and e.left.name in ("count", "len") and \
                e.left.name not in bound and e.left.name not in self.locals and \
                resolve_call(self.names, e.left.name, ())[0] is Kind.BUILTIN:
            # a count compared with 0: the count itself (never below 0) as the truth
            return [_COUNTED[e.op].format(self.gen(e.left, bound, True))]
        return [self.gen(e, bound, True)]

    def _define(self, w: Writer, name: str, pos, keep: bool = False):
        """Run the source written in ``w`` in the namespace, under the name of the rule at
        ``pos``; the function ``name`` it defines (taken out of the namespace unless ``keep``)."""
        define(self.space, w.source()[0], f"<rules {pos.file}:{pos.line}>")
        return self.space[name] if keep else self.space.pop(name)

    # ------------------------------------------------------------------ pieces
    def const(self, value, about: str) -> str:
        """The name of ``value`` in the namespace, ``about`` what it is (:func:`.sources.add`)."""
        return add(self.space, "_k", value, about)

    def temp(self) -> str:
        self.temps += 1
        return f"_t{self.temps}"

    def proven(self, e, bound: dict) -> str:
        """The type of expression ``e`` where the generated code computes it, as proven
        (:mod:`.proven`): its tests of the value's type may be left out. Any in checked mode.
        A rule local's type is known where ``self.locals`` is a dict of their types."""
        if self.types is None:
            return ANY
        if e.__class__ is n.Var:   # the commonest: a name (a rule local is never proven)
            if e.name in bound:
                return self.known.get(bound[e.name], ANY)
            if e.name in self.locals:   # a dict of their types in a unit (statements._typed)
                return self.locals.get(e.name, ANY) if self.locals.__class__ is dict else ANY
        # each node's type, kept while ``bound`` lives: a node is typed again by each node above it
        entry = self.memos.get(id(bound))
        if entry is None or entry[0] is not bound:
            entry = self.memos[id(bound)] = (bound, {})
        env = {name: self.known.get(py, ANY) for name, py in bound.items()} if bound else bound
        return self.types.of(e, env, self.locals, entry[1])

    def _knowing(self, name: str, t: str, write):
        """``write()`` while Python name ``name`` holds a value of type ``t`` (a comprehension's
        or lambda's variable, which an inner one of the same name hides)."""
        before = self.known.get(name, ANY)
        self.known[name] = t
        try:
            return write()
        finally:
            self.known[name] = before

    def _looping(self, write):
        """``write()`` in the body of a loop over items."""
        self.looping += 1
        try:
            return write()
        finally:
            self.looping -= 1

    def gen(self, e, bound: dict, walrus: bool) -> str:
        """``bound``: comprehension and lambda variables -> their Python names. ``walrus``:
        False inside a comprehension's iterable, where Python refuses ``:=``."""
        method = _GENERATE.get(type(e))
        if method is None:
            raise _Unsupported
        return method(self, e, bound, walrus)

    def g_Int(self, e, bound, walrus):
        return repr(e.value)

    def g_Const(self, e, bound, walrus):
        if e.value is None or isinstance(e.value, bool):
            return repr(e.value)
        return self.const(e.value, repr(e.value))

    def g_Str(self, e, bound, walrus):
        parts = [repr(p) if isinstance(p, str) else f"run.show({self.gen(p, bound, walrus)})"
                 for p in e.parts]
        return parts[0] if len(parts) == 1 and isinstance(e.parts[0], str) \
            else f"''.join([{', '.join(parts)}])"

    def g_Var(self, e, bound, walrus):
        name = e.name
        if name in bound:  # a local of a comprehension or lambda: a Python name
            if bound[name] in self.unit:   # (or a unit's local, or one of the same name)
                self.needs.add(self.unit[bound[name]])
            return bound[name]
        kind, v = resolve(self.names, name, self.locals)
        if kind is Kind.LOCAL:
            if self.checked:
                return f"_local(L, {name!r})"
            self.partial = True   # (not set yet: a KeyError)
            return f"L[{name!r}]"
        if kind is Kind.VARIABLE:
            return f"_tracked_variable(run, {name!r})" if self.tracking else f"run.glob[{name!r}]"
        if kind is Kind.CONSTANT:
            return self.const(v, f"constant {name}")
        if kind is Kind.ENTITY:
            return repr(v)
        if kind is Kind.PLAYERS:
            return "run.state['kinds']['players']"
        if kind is Kind.KIND:
            return self.const(v, f"kind {name}")  # a list, shared: values are never changed in place
        if kind is Kind.FUNCTION:   # a def as a value (interpreter.dsl.functions)
            return f"{self.const(def_value(v, self.tracking), f'def {name} {self.tracking}')}(run)"
        if kind is Kind.PROCEDURE:  # a procedure as a value: its name
            return repr(name)
        if kind is Kind.END:  # whether the game ended for this end condition
            return f"{self.const(ended, 'ended')}(run, {name!r})"
        return self.unsupported()  # undefined: reported by the resolver

    def g_Attr(self, e, bound, walrus):
        obj = self.gen(e.obj, bound, walrus)
        if self.tracking and (self.names.written is None or e.name in self.names.written):
            return f"_tracked_attr(run, {obj}, {e.name!r})"   # (a field nothing writes: not noted)
        if self.checked:
            return f"_get_attr(run, {obj}, {e.name!r})"
        t = self.proven(e.obj, bound)
        if not walrus and not (t == "str" or t.startswith("entity:") or _PLAIN.fullmatch(obj)):
            return f"_get_attr(run, {obj}, {e.name!r})"
        self.partial = True   # (a text that is no entity's id, a field it does not have)
        if t == "str" or t.startswith("entity:"):  # proven an entity's id (or none): no test
            return f"_E[{obj}][{e.name!r}]"
        if _PLAIN.fullmatch(obj):  # a name or a literal: read twice, no temporary
            return f"(_E[{obj}][{e.name!r}] if {obj}.__class__ is str else _get_attr(run, {obj}, {e.name!r}))"
        t = self.temp()
        return f"(_E[{t}][{e.name!r}] if ({t} := {obj}).__class__ is str else _get_attr(run, {t}, {e.name!r}))"

    def g_Index(self, e, bound, walrus):
        obj, key = self.gen(e.obj, bound, walrus), self.gen(e.key, bound, walrus)
        if not walrus:  # (and in checked mode)
            return f"_get_index({obj}, {key})"
        # a map by a text key, or a list by a whole number, read directly; a missing key or an
        # index out of range raises, and the checked code words the fault
        self.partial = True
        t = self.proven(e.obj, bound)
        of, by = "list" if is_row(t) else t.split(":", 1)[0], self.proven(e.key, bound)
        if of == "map" and (by == "str" or by.startswith("entity:")) or \
                of == "list" and (by == "int" or _INT.fullmatch(key)):   # proven: no test
            return f"{obj}[{key}]"
        if of == "map" and (by == "int" or _INT.fullmatch(key)):   # a map's keys are texts
            return f"{obj}[str({key})]" if not _INT.fullmatch(key) else f"{obj}[{str(key)!r}]"
        if _INT.fullmatch(key):   # a whole number written in the rules (a pair's item): a list's
            o = self.temp()
            return f"({o}[{key}] if ({o} := {obj}).__class__ is list else _get_index({o}, {key}))"
        o, k = self.temp(), self.temp()
        return (f"({o}[{k}] if ((({o} := {obj}).__class__ is dict) & (({k} := {key}).__class__ is str))"
                f" or ({o}.__class__ is list and {k}.__class__ is int) else _get_index({o}, {k}))")

    def g_ListLit(self, e, bound, walrus):
        return "[" + ", ".join(self.gen(x, bound, walrus) for x in e.items) + "]"

    def g_Comprehension(self, e, bound, walrus):
        if self.checked:  # a Python comprehension: no temporaries to pass
            var = f"v_{e.var}"
            inner = {**bound, e.var: var}
            where = f" if {self.gen(e.where, inner, False)}" if e.where is not None else ""
            return (f"[{self.gen(e.expr, inner, False)} for {var} in "
                    f"_items(run, {self.gen(e.source, bound, False)}, {e.var!r}){where}]")
        items = self.gen(e.source, bound, walrus=False)
        var, start = f"v_{e.var}", self.temps
        inner = {**bound, e.var: var}
        item, where = self._knowing(var, self._item(e.source, bound), lambda: self._looping(lambda: (
            f"add({self.gen(e.expr, inner, True)})",
            self.tests(e.where, inner) if e.where is not None else [])))

        def body(w):
            w.lines(["out = []", "add = out.append", f"for {var} in xs:"])
            with w.indent():
                _when(w, where, [item])
            w.line("return out")
        return self._loop(items, body, start, bound, e.pos, e.var, self._item(e.source, bound),
                          listed=self._loop_listed(e.source, bound))

    def g_MapOf(self, e, bound, walrus):
        c = e.pairs
        if self.checked or c.__class__ is not n.Comprehension or c.expr.__class__ is not n.ListLit:
            return f"_map_of({self.gen(c, bound, walrus)})"   # (a pair taken apart: its items' names)
        # {k: v for x in xs where cond}: the map filled in a loop, no [k, v] pair made an item
        items = self.gen(c.source, bound, walrus=False)
        var, start = f"v_{c.var}", self.temps
        inner = {**bound, c.var: var}
        key, value = c.expr.items
        k, v, where = self._knowing(var, self._item(c.source, bound), lambda: self._looping(lambda: (
            self.gen(key, inner, True), self.gen(value, inner, True),
            self.tests(c.where, inner) if c.where is not None else [])))
        texts = _TEXT.fullmatch(self._knowing(var, self._item(c.source, bound), lambda: self.proven(key, inner)))
        if texts:   # keys proven texts, or none: the checked code words a none key
            put = [f"out[{k}] = {v}"]
            self.partial = True
        else:
            put = [f"k = {k}", f"out[k if k.__class__ is str else _map_key(k)] = {v}"]

        def body(w):
            w.lines(["out = {}", f"for {var} in xs:"])
            with w.indent():
                _when(w, where, put)
            if texts:
                w.lines(["if None in out:", "    raise KeyError(None)"])
            w.line("return _sized_map(out)")
        return self._loop(items, body, start, bound, e.pos, c.var, self._item(c.source, bound),
                          listed=self._loop_listed(c.source, bound))

    def g_Unpack(self, e, bound, walrus):
        obj = self.gen(e.expr, bound, walrus)
        t = self.proven(e.expr, bound)
        if is_row(t) and len(row_items(t)) == e.count:   # proven a row that long: no test
            self.partial = True   # (or none: its items' reads raise, the checked code words it)
            return obj
        return f"_unpack({obj}, {e.count})"

    def g_Exists(self, e, bound, walrus):
        if self.checked:
            var = f"v_{e.var}"
            return (f"any({self.gen(e.cond, {**bound, e.var: var}, False)} for {var} in "
                    f"_items(run, {self.gen(e.source, bound, False)}, {e.var!r}, 'exists'))")
        items = self.gen(e.source, bound, walrus=False)
        var, start = f"v_{e.var}", self.temps
        cond = self._knowing(var, self._item(e.source, bound),
                             lambda: self._looping(lambda: self.tests(e.cond, {**bound, e.var: var})))

        def body(w):
            w.line(f"for {var} in xs:")
            with w.indent():
                _when(w, cond, ["return True"])
            w.line("return False")
        return self._loop(items, body, start, bound, e.pos, e.var, self._item(e.source, bound), "exists",
                          self._loop_listed(e.source, bound))

    def _listed(self, source, bound) -> bool:
        """Whether expression ``source`` is proven a list (or none)."""
        return self.proven(source, bound).startswith("list")

    def _loop_listed(self, source, bound) -> bool:
        """Whether the list of a loop over ``source`` needs no test (it is proven a list), and
        ``self.partial`` if it may be none (len raises, the checked code words it): not a kind's
        or the players' list, a list written out or a comprehension's."""
        if not self._listed(source, bound):
            return False
        made = source.__class__ in (n.ListLit, n.Comprehension) or source.__class__ is n.Var and \
            source.name not in bound and resolve(self.names, source.name, self.locals)[0] in (Kind.KIND, Kind.PLAYERS)
        if not made:
            self.partial = True
        return True

    def _item(self, source, bound) -> str:
        """The proven type of an item of list ``source``."""
        return list_item(self.proven(source, bound))

    def _loop(self, items: str, write, start: int, bound: dict, pos, var: str, item: str,
              word: str = "for", listed: bool = False) -> str:
        """A call of a new function of the namespace whose body (``write(w)`` writes it) loops
        over ``xs``, the list ``items`` (a comprehension or an ``exists`` over rule variable
        ``var``, written as a loop), which it charges a step an item first (``_items``, written
        out: a call saved a loop). Not a Python comprehension: a temporary set (``:=``) in one
        is a cell of the function around it, slower to make and to read. The caller's
        temporaries (those up to ``start``) and comprehension or lambda variables and unit
        locals (``bound``) that the body reads are passed in; not the loop's own variable
        ``v_VAR``, which hides one of the same name (``item``: the proven type of its values).
        ``listed``: ``items`` is proven a list. What the body reads again and again is read
        once (:mod:`.hoist`)."""
        body = Writer()
        write(body)
        own = f"v_{var}"
        outer = ({f"_t{i}" for i in range(1, start + 1)} | set(bound.values())) - {own}
        given = sorted(set(_NAME.findall(body.source()[0])) & outer)
        args = "".join(", " + x for x in given)
        hoist(body, own, item.startswith("entity:"), set(given))
        charge = _charged("len(xs)")
        w = Writer()
        w.line(f"def loop(run, L, xs{args}):")
        with w.indent():
            w.line("_E = run.ent")
            if listed:   # (see _loop_listed)
                w.lines(charge)
            else:
                w.line("if xs.__class__ is list:")
                with w.indent():
                    w.lines(charge)
                w.line("else:")
                with w.indent():
                    w.line(f"xs = _items(run, xs, {var!r}{'' if word == 'for' else f', {word!r}'})")
            w.insert(body)
        name = add(self.space, "_c", self._define(w, "loop", pos), f"{where(pos)} {w.source()[0]}")
        return f"{name}(run, L, {items}{args})"

    def g_LetIn(self, e, bound, walrus, write=None):
        """``write``: how its body is written (:meth:`none_test`), else as a value."""
        value, known = self.gen(e.value, bound, walrus), self.proven(e.value, bound)
        if walrus:  # the local in a temporary: no function call
            t = self.temp()
            body = self._knowing(t, known, lambda: (write or self.gen)(e.body, {**bound, e.var: t}, walrus))
            return _after([(t, value)], body)
        var = f"v_{e.var}"
        body = self._knowing(var, known, lambda: self.gen(e.body, {**bound, e.var: var}, walrus))
        return f"(lambda {var}: {body})({value})"

    def g_Lambda(self, e, bound, walrus, item: str = ANY):
        """``item``: the proven type of the values it is called with."""
        var = f"v_{e.var}"
        body = self._knowing(var, item, lambda: self.gen(e.body, {**bound, e.var: var}, walrus))
        return f"(lambda {var}: {body})"

    def g_BinOp(self, e, bound, walrus):
        a, b = self.gen(e.left, bound, walrus), self.gen(e.right, bound, walrus)
        if e.op == "+" and self._listed(e.left, bound) and self._listed(e.right, bound):
            return _helper("_add", a, b)   # two lists joined (no test for whole numbers)
        if e.op in _FAST_ARITH and walrus:
            return self._ints(a, b, e.op, _FAST_ARITH[e.op], whole=self._whole(e, bound), numbers=True)
        if e.op in _CHECKED_ARITH and walrus:  # two whole numbers, the second not 0: inline
            return self._ints(a, b, e.op, _CHECKED_ARITH[e.op], _WHOLE_DIVISION[e.op], self._whole(e, bound))
        if e.op in _FAST_ARITH:
            return _helper(_FAST_ARITH[e.op], a, b)
        return f"{_CHECKED_ARITH[e.op]}({a}, {b})"

    def g_Compare(self, e, bound, walrus):
        if e.op in ("==", "!=") and walrus and not self.checked and e.right.__class__ is n.Const and \
                e.right.value is None and e.left.__class__ in (n.Conditional, n.LetIn, n.Call):
            return self.none_test(e.left, e.op, bound, walrus)
        a, b = self.gen(e.left, bound, walrus), self.gen(e.right, bound, walrus)
        if e.op in ("in", "not in"):
            member = self._member(e, a, b, bound, walrus)
            return member if e.op == "in" else f"(not {member})"
        if e.op in ("==", "!="):
            return self._equality(e, a, b, bound, walrus)
        if self.checked:  # Python's refusal to order two values, worded
            return _helper(_CHECKED_ORDER[e.op], a, b)
        self.partial = True   # (the fast order leaves Python's refusal to the checked code)
        if walrus:
            return self._ints(a, b, e.op, _ORDER[e.op], whole=self._whole(e, bound), numbers=True)
        return _helper(_ORDER[e.op], a, b)

    def _member(self, e, a: str, b: str, bound, walrus) -> str:
        """``a in b``: inline for a short list and a value that is no list or map (a number or a
        text, written or proven, or tested a text): ``_member`` charges nothing for those, and
        keeps the set of a long list. Else, and where there are no temporaries, ``_member``."""
        if not walrus:
            return f"_member(run, {a}, {b})"
        scalar = _literal(a) or _SCALAR.fullmatch(self.proven(e.left, bound))
        listed = self._listed(e.right, bound)
        x = a if _literal(a) or _PLAIN.fullmatch(a) else self.temp()
        t = b if _PLAIN.fullmatch(b) else self.temp()
        got = b if t == b else f"({t} := {b})"
        tests = [] if x == a else [f"(({x} := {a}) is {x})"]   # (a, then b: the order they are read in)
        short = self._constant(e.right, bound)
        if short.__class__ is list and len(short) < 16:   # a short list written in the YAML
            pass
        elif listed:
            self.partial = True   # (a proven list may still be none: len raises)
            tests.append(f"len({got}) < 16")
        else:
            tests.append(f"{got}.__class__ is list and len({t}) < 16")
        if not scalar:
            tests.append(f"{x}.__class__ is str")
        if not tests:
            return f"({a} in {b})"
        return f"(({x} in {t}) if {' and '.join(tests)} else _member(run, {x}, {t}))"

    def _constant(self, e, bound):
        """The value of ``e`` when it is a constant of the ruleset or a kind's list (the same at
        every run), else None."""
        if e.__class__ is not n.Var or e.name in bound:
            return None
        kind, v = resolve(self.names, e.name, self.locals)
        return v if kind in (Kind.CONSTANT, Kind.KIND) else None

    def _equality(self, e, a: str, b: str, bound, walrus) -> str:
        """``a == b`` (or ``!=``): inline when a side is a number or a text, written or proven
        (they compare at once), or, in fast code, when the second is found to be neither a
        list nor a map; else through ``_equal``, which charges the walk of two lists or maps."""
        if any(_literal(s) or _SCALAR.fullmatch(self.proven(x, bound)) for s, x in ((a, e.left), (b, e.right))):
            return f"({a} {e.op} {b})"
        negate = "not " if e.op == "!=" else ""
        if not walrus:
            return f"({negate}_equal(run, {a}, {b}))"
        x, y = self.temp(), self.temp()
        return (f"(({x} {e.op} {y}) if (({x} := {a}) is {x}) and ({y} := {b}).__class__ is not list"
                f" and {y}.__class__ is not dict else ({negate}_equal(run, {x}, {y})))")

    def _whole(self, e, bound) -> tuple:
        """Whether each side of binary node ``e`` is proven a whole number (or none)."""
        return tuple(self.proven(x, bound) == "int" for x in (e.left, e.right))

    def _ints(self, a: str, b: str, op: str, checked: str, inline: str = "{x} {op} {y}",
              whole: tuple = (False, False), numbers: bool = False) -> str:
        """``a op b`` (or the ``inline`` form of x and y) when both are whole numbers (with
        ``numbers``, whole numbers or fractions: a sum, difference, product or order, which
        Python works out exactly for both), else through the ``checked`` helper; a number
        written in the rules, or a value proven a whole number (``whole``, for a and b), is not
        tested. A division (``op`` one of / // %, or ceil or floor of a /) is inline only when
        the second is not 0: the helper says what is wrong with a division by zero."""
        divides = op in ("/", "//", "%", "ceil", "floor")
        if divides and b == "0":
            return _helper(checked, a, b)
        nonzero = divides and not _INT.fullmatch(b)   # not a number written in the rules: not 0 either
        if not nonzero and all(w or _INT.fullmatch(s) for s, w in zip((a, b), whole)):
            if not (_INT.fullmatch(a) and _INT.fullmatch(b)):
                self.partial = True   # (a proven whole number may still be none)
            return f"({inline.format(x=a, y=b, op=op)})"
        x = a if _INT.fullmatch(a) else self.temp()
        y = b if _INT.fullmatch(b) else self.temp()
        test = " & ".join(_tested(t, s, w, numbers) for t, s, w in ((x, a, whole[0]), (y, b, whole[1])) if t != s)
        if nonzero:
            test = f"{test} and {y}"
        return f"({inline.format(x=x, y=y, op=op)} if {test} else {_helper(checked, x, y)})"

    def truth(self, e, bound, walrus) -> str:
        """Condition ``e`` as a Python expression whose truth is its truth (where only that is
        used: a test, an operand of ``and``, ``or`` or ``not``): an ``and`` or an ``or`` as
        Python's, not made a true or false first."""
        if e.__class__ is n.BoolOp:
            return "(" + f" {e.op} ".join(f"({self.truth(x, bound, walrus)})" for x in e.items) + ")"
        if e.__class__ is n.Not:
            return f"(not {self.truth(e.expr, bound, walrus)})"
        if e.__class__ is n.Call:   # (a def written in place: its body's truth)
            return self.g_Call(e, bound, walrus, self.truth)
        return self.gen(e, bound, walrus)

    def none_test(self, e, op: str, bound, walrus) -> str:
        """``e == none`` (``op`` ``==``) or ``e != none``, taken into ``e`` where it chooses (a
        conditional, a ``let ... in``, a def written in place), so that a text it would give
        and compare is not made when nothing in it can fault: ``"{n} ..." if c else none``
        compared with none is ``False if c else True``."""
        t = e.__class__
        if t is n.Conditional:
            return (f"({self.none_test(e.then, op, bound, walrus)} if {self.truth(e.cond, bound, walrus)} "
                    f"else {self.none_test(e.otherwise, op, bound, walrus)})")
        if t is n.LetIn and walrus:
            return self.g_LetIn(e, bound, walrus, lambda x, b, w: self.none_test(x, op, b, w))
        if t is n.Const and e.value is None or t is n.Str and all(self._shown(p, bound) for p in e.parts):
            return repr((t is n.Const) == (op == "=="))
        if t is n.Call:
            self.wrote = False
            source = self.g_Call(e, bound, walrus, lambda x, b, w: self.none_test(x, op, b, w))
            if self.wrote:
                return source
            return f"({source} {op} None)"
        return f"({self.gen(e, bound, walrus)} {op} None)"

    def _shown(self, part, bound) -> bool:
        """Whether a part of a text (its words, or a value shown in it) is shown without a
        fault or a charge: a whole number, a truth or an entity that a name always holds."""
        if part.__class__ is str or part.__class__ is n.Int:
            return True
        if part.__class__ is not n.Var or part.name in bound and bound[part.name] in self.unit:
            return False   # (a unit's local may not be set)
        if part.name not in bound and resolve(self.names, part.name, self.locals)[0] is Kind.LOCAL:
            return False
        t = self.proven(part, bound)
        return t in ("int", "bool") or t.startswith("entity:")

    def g_BoolOp(self, e, bound, walrus):
        return f"(True if {self.truth(e, bound, walrus)} else False)"

    def g_Not(self, e, bound, walrus):
        return f"(not {self.truth(e.expr, bound, walrus)})"

    def g_Neg(self, e, bound, walrus):
        return f"_neg({self.gen(e.expr, bound, walrus)})"

    def g_Conditional(self, e, bound, walrus):
        return (f"({self.gen(e.then, bound, walrus)} if {self.truth(e.cond, bound, walrus)} "
                f"else {self.gen(e.otherwise, bound, walrus)})")

    def g_Call(self, e, bound, walrus, write=None):
        """``write``: how the body of a def written in place is written (:meth:`truth`,
        :meth:`none_test`; ``self.wrote`` says it was), else as a value (:meth:`gen`)."""
        name = e.name
        local = name in bound or name in self.locals   # (no set of all the names made per call)
        kind, d = resolve_call(self.names, name, (name,) if local else ())  # d: a def or a builtin
        if kind is Kind.BUILTIN and name in ("ceil", "floor") and walrus and len(e.args) == 1 \
                and isinstance(e.args[0], n.BinOp) and e.args[0].op == "/":
            # ceil(a / b) or floor(a / b) of two whole numbers: in whole numbers, no fraction made
            a, b = (self.gen(x, bound, walrus) for x in (e.args[0].left, e.args[0].right))
            whole = "-(-{x} // {y})" if name == "ceil" else "{x} // {y}"
            return self._ints(a, b, name, f"_{name}_of_div", whole, self._whole(e.args[0], bound))
        fused = self.without_frontier(e, bound, walrus) if name == "without" and kind is Kind.BUILTIN else None
        if fused:
            return fused
        if kind is Kind.BUILTIN and name == "sum" and not self.checked and len(e.args) == 1 \
                and e.args[0].__class__ is n.Comprehension:
            return self.summed(e.args[0], bound)
        if kind is Kind.BUILTIN and name in _KEYED and len(e.args) == 2 and e.args[1].__class__ is n.Lambda:
            # a key called with each item of the list: its variable has the items' proven type
            item = self._item(e.args[0], bound)
            args = [self.gen(e.args[0], bound, walrus), self.g_Lambda(e.args[1], bound, walrus, item)]
        else:
            args = [self.gen(a, bound, walrus) for a in e.args]
        if kind is Kind.FUNCTION:
            if len(d.params) != len(args):
                return self.unsupported()
            if d.derived:   # (its typed function, in code that notes no reads: for a pass's memo)
                typed = None if self.checked or self.tracking else \
                    self.typed(d, tuple(self.proven(x, bound) for x in e.args))
                typed = f", {typed}" if typed in self.space else ""   # (none written while constants are computed)
                return f"_derived(run, {name!r}, ({''.join(a + ', ' for a in args)}){typed})"
            if not self.checked:  # the def as a Python function (define), tracked as the caller is;
                inline = self.inline(d, args, walrus, e.args, bound, write)  # none while constants are computed: refused
                if inline:
                    return inline
                fn = self.typed(d, tuple(self.proven(x, bound) for x in e.args))
                if fn not in self.space:   # not written (yet): a NameError
                    self.partial = True
                return f"{fn}(run{''.join(', ' + a for a in args)})"
            params = ", ".join(f"{p!r}: {a}" for p, a in zip(d.params, args))
            functions = "tracked_functions" if self.tracking else "program_functions"
            return f"_call(run, run.{functions}, {name!r}, {{{params}}})"
        if kind is Kind.LOCAL:  # a local holding a function
            f = self.gen(n.Var(e.pos, name), bound, walrus)
            return f"{self.const(call_value, 'call_value')}({name!r}, {f}, [{', '.join(args)}])"
        if kind is not Kind.BUILTIN or not d.lo <= len(args) <= d.hi:
            return self.unsupported()
        if name in ("count", "len") and self.proven(e.args[0], bound).startswith("list"):
            self.partial = True
            return f"len({args[0]})"   # (none raises: its checked code words the fault)
        if name in ("count", "len") and walrus:  # the commonest builtin, inline for a list
            t = self.temp()
            return f"(len({t}) if ({t} := {args[0]}).__class__ is list else _b_{name}({t}))"
        if name in ("min", "max") and len(args) == 2 and any(self._listed(x, bound) for x in e.args):
            return f"_b_{name}(run, {args[0]}, {args[1]})"   # (a list among them: no whole numbers to compare)
        if name in ("min", "max") and len(args) == 2 and walrus:  # min(a, b) of two whole numbers
            a, b = self.temp(), self.temp()
            keep = ">=" if name == "max" else "<="
            whole = [self.proven(x, bound) == "int" for x in e.args]
            if all(whole):
                self.partial = True   # (a proven whole number may still be none)
                a, b = (x if _INT.fullmatch(x) else t for x, t in zip(args, (a, b)))   # (a number: no temporary)
                first = a if a == args[0] else f"({a} := {args[0]})"
                second = b if b == args[1] else f"({b} := {args[1]})"
                return f"({a} if {first} {keep} {second} else {b})"
            return (f"(({a} if {a} {keep} {b} else {b}) if {_tested(a, args[0], whole[0])}"
                    f" & {_tested(b, args[1], whole[1])} else _b_{name}(run, {a}, {b}))")
        if name in builtins.CONTEXT:
            args.insert(0, "run")
        return f"_b_{name}({', '.join(args)})"

    def summed(self, c, bound) -> str:
        """``sum([expr for x in xs where cond])`` as one loop that adds as it goes, as a
        hand-written sum would: no list made, each value tested a number as it is added (not
        tested when proven a whole number: none raises, and the checked code words any fault);
        charged as the comprehension and ``sum`` are, a step an item of each, the sum's steps
        once the loop is done."""
        items = self.gen(c.source, bound, walrus=False)
        var, start = f"v_{c.var}", self.temps
        inner = {**bound, c.var: var}
        of = self._item(c.source, bound)
        value, where, whole = self._knowing(var, of, lambda: self._looping(lambda: (
            self.gen(c.expr, inner, True), self.tests(c.where, inner) if c.where is not None else [],
            self.proven(c.expr, inner) == "int")))
        self.partial = True
        add = [f"_total += {value}"] if whole else [
            f"_item = {value}", "if _item.__class__ is not int and _item.__class__ is not _Fraction:",
            "    raise TypeError()", "_total += _item"]
        counted = "_added" if where else "len(xs)"

        def body(w):
            w.lines(["_total = 0", *(["_added = 0"] if where else []), f"for {var} in xs:"])
            with w.indent():
                _when(w, where, add + (["_added += 1"] if where else []))
            w.lines([*_charged(counted), "return _total"])
        return self._loop(items, body, start, bound, c.pos, c.var, of, listed=self._loop_listed(c.source, bound))

    def without_frontier(self, e, bound, walrus) -> str | None:
        """``without(xs, flatten([a, ..., frontier(group)]))`` as one call that never lists the
        frontier (:func:`builtins.without_frontier`), its arguments computed in the same order;
        None for any other call (and in checked mode, which words the faults)."""
        inner = e.args[1] if len(e.args) == 2 else None
        if self.checked or inner.__class__ is not n.Call or not self._builtin(inner, "flatten") \
                or inner.args[0].__class__ is not n.ListLit or not inner.args[0].items:
            return None
        *parts, last = inner.args[0].items
        if last.__class__ is not n.Call or not self._builtin(last, "frontier"):
            return None
        xs = self.gen(e.args[0], bound, walrus)   # (written in the rules' order)
        listed = ", ".join(self.gen(x, bound, walrus) for x in parts)
        group = self.gen(last.args[0], bound, walrus)
        self.space.setdefault("_without_frontier", builtins.without_frontier)   # (named where used)
        return f"_without_frontier(run, {xs}, [{listed}], {group})"

    def _builtin(self, e, name: str) -> bool:
        """True when call ``e`` calls builtin ``name`` (no def of that name in the way) with one
        argument."""
        return e.name == name and len(e.args) == 1 and resolve_call(self.names, name, ()).kind is Kind.BUILTIN

    def typed(self, d, types: tuple) -> str:
        """The Python name of def ``d``'s function for arguments of the proven ``types``
        (``_def_NAME`` when none is proven; ``_tdef...`` the one that notes what it reads, for a
        derived value), written the first time a call needs it: it leaves out the tests those
        types settle."""
        if not any(is_proven(t) for t in types):
            types = (ANY,) * len(types)
        prefix = "_tdef" if self.tracking else "_def"
        if "_inlinable" not in self.space:   # a constant, computed before the rules are compiled
            return f"{prefix}_{d.name}"      # (calls none: a NameError, its checked code runs)
        made = self.space.setdefault("_typed", {})
        name = made.get((d.name, types, self.tracking))
        if name is None:
            name = made[d.name, types, self.tracking] = f"{prefix}{len(made)}_{d.name}" \
                if any(t != ANY for t in types) else f"{prefix}_{d.name}"
            slow = Checked(self.names, self.tracking, self.space, d.expr, d.params)
            Codegen(self.names, self.tracking, self.space).define(d, slow, dict(zip(d.params, types)), name)
        return name

    def unsupported(self) -> str:
        """What is written for a name or a call the resolver reported (the rules do not run):
        nothing in fast mode (the expression is left to its checked code), none in checked mode."""
        if self.checked:
            return "None"
        raise _Unsupported

    def inline(self, d, args: list, walrus: bool, nodes: list, bound: dict, write=None) -> str | None:
        """Def ``d``'s body written in place for a call with ``args`` (Python sources), or None
        when it is not to be inlined. An argument that is more than a literal, a rule local or
        a helper's name is computed once, into a temporary, before the body runs; so is a
        caller's local or comprehension or lambda variable (``v_x``) when a variable of the
        same name that the body binds would hide it. The body sees only its parameters and the
        ruleset's global names, never the caller's locals, and knows their proven types (of the
        argument ``nodes``, computed where ``bound`` holds). Where ``walrus`` is False (a
        comprehension's iterable) there are no temporaries: only a call whose arguments need
        none is inlined. ``write``: how the body is written (see :meth:`g_Call`)."""
        # (nothing is inlined before the rules are compiled: a constant cannot call a def)
        if self.inlining >= INLINE_DEPTH or d.name not in self.space.get("_inlinable", ()):
            return None
        # the Python names of the variables the body binds, and its size
        hidden, size = self.space["_inlinable"][d.name]
        if size > INLINE_NODES and not self.looping:
            return None
        params, first = {}, []
        for p, a, known in zip(d.params, args, [self.proven(x, bound) for x in nodes]):
            if _LOCAL.fullmatch(a) or _INT.fullmatch(a) or (_PLAIN.fullmatch(a) and a not in hidden):
                params[p] = a   # (the same value, so the same type, as the caller's)
            elif not walrus:
                return None
            else:
                params[p] = t = self.temp()
                first.append((t, a))
            self.known[params[p]] = known
        outer, self.locals = self.locals, set()
        self.inlining += 1
        try:
            body = (write or self.gen)(d.expr, params, walrus)
        except _Unsupported:
            return None
        finally:
            self.locals = outer
            self.inlining -= 1
        self.wrote = True
        return _after(first, body)


class Checked:
    """Expression ``e`` in checked mode as ``fn(run, L)``: its Python is written the first time
    it is called (a fault of its fast code, or a run with no fast code: lint, the all-checked
    mode), so that a load does not write every expression twice. ``source``: the fast source a
    code unit inlines (:mod:`.units`), falling back on this; None if none."""
    __slots__ = ("names", "tracking", "space", "e", "locals", "around", "fn", "source", "total")

    def __init__(self, names, tracking: bool, space: dict, e, locals_, around: str | None = None):
        self.names, self.tracking, self.space, self.e = names, tracking, space, e
        self.locals, self.around, self.fn = frozenset(locals_), around, None
        self.source: str | None = None
        self.total: frozenset | None = None   # see Codegen.total

    def __call__(self, run, L):
        return (self.fn or self.function())(run, L)

    def function(self):
        """The checked function itself, written now if it was not yet (called directly, it
        saves a Python frame a call: a def's body, run at every level of a recursion)."""
        if self.fn is None:
            self.fn = Codegen(self.names, self.tracking, self.space, checked=True).checked_function(
                self.e, self.locals, self.around)
        return self.fn


def _keep(v: str, text: bool) -> list:
    """The lines that add the Action of value ``v`` to ``out``, the one kept in ``made`` if it
    is there. ``text``: ``v`` is proven a text (an entity), a key no other value equals."""
    if text:
        return [f"a = get({v})",
                "if a is None:",
                f"    a = made[{v}] = _new(_Action, (name, head + ({v},)))",
                "add(a)"]
    return ["try:",
            f"    a = get({v})",
            f"    if a is None or a[1][-1] is not {v}:",
            f"        a = made[{v}] = _new(_Action, (name, head + ({v},)))",
            "except TypeError:",
            f"    a = _new(_Action, (name, head + ({v},)))",
            "add(a)"]


def _charged(steps: str) -> list:
    """The lines of a generated loop that charge ``steps`` (a Python expression) to the budget."""
    return [f"run.steps += {steps}", "if run.steps > run.budget:", "    run.tick(0)"]


def _when(w: Writer, tests: list, lines: list) -> None:
    """Write ``lines``, under one ``if`` for each of ``tests`` (none: as they are)."""
    with ExitStack() as nest:
        for test in tests:
            w.line(f"if {test}:")
            nest.enter_context(w.indent())
        w.lines(lines)


def _literal(s: str) -> bool:
    """Whether source ``s`` is a number, a text (without escapes), none, true or false."""
    return bool(_INT.fullmatch(s) or _PLAIN.fullmatch(s) and s[0] == "'") or s in ("None", "True", "False")


def _helper(name: str, a: str, b: str) -> str:
    """The call of helper ``name`` of two values (those that charge their work take the run)."""
    return f"{name}(run, {a}, {b})" if name in _CHARGING else f"{name}({a}, {b})"


def _tested(t: str, source: str, whole: bool, numbers: bool = False) -> str:
    """Temporary ``t`` set to ``source``, and true when it is a whole number (``numbers``: or
    a fraction): tested, unless it is proven one (then only set: ``t is t``)."""
    if whole:
        return f"(({t} := {source}) is {t})"
    return f"(({t} := {source}).__class__ {'in _NUMBERS' if numbers else 'is int'})"


def _after(sets: list, body: str) -> str:
    """``body`` evaluated after each temporary of ``sets`` (pairs of a temporary and its
    value) is set: ``(body if (t := x) is t else None)``, cheaper than a tuple or a call."""
    if not sets:
        return f"({body})"
    return f"({body} if {' and '.join(f'(({t} := {x}) is {t})' for t, x in sets)} else None)"


_GENERATE = n.handlers(Codegen, "g_", n.EXPRESSIONS)    # expression node -> Codegen.g_...
