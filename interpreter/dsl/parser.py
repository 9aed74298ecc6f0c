"""Parser: rules-language text -> :class:`nodes.Module`, keeping line and column on every node.

Parse errors become :class:`~interpreter.errors.Diagnostic` records in the author's terms
(what was expected, in words), and parsing resumes at the next definition so that one run
reports every broken definition.
"""
from __future__ import annotations

import io
import pickle
import re
from functools import lru_cache
from pathlib import Path

import lark
from lark import Lark, Token, Transformer, v_args
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken
from lark.indenter import DedentError, Indenter

from .. import cache
from ..errors import Diagnostic, Pos, Sink
from . import nodes as n
from ..runtime.memo import keep

GRAMMAR = Path(__file__).with_name("rules.lark")


class _RulesIndenter(Indenter):
    NL_type = "_NL"
    OPEN_PAREN_types = ["LPAR", "LSQB"]
    CLOSE_PAREN_types = ["RPAR", "RSQB"]
    INDENT_type = "_INDENT"
    DEDENT_type = "_DEDENT"
    tab_len = 4


@lru_cache(maxsize=None)
def _lark() -> Lark:
    """The grammar's LALR parser. Building its tables takes about 0.15 s, loading them from
    the user cache (:mod:`..cache`: an entry named by the grammar and this module's source,
    which holds the options, and lark's and Python's versions; written whole or not at all)
    about 0.015 s. A cached entry that does not load is built again."""
    grammar = GRAMMAR.read_text(encoding="utf-8")
    stored = cache.entry("lark", _parser_source(), lark.__version__)
    kept = cache.load(stored)
    if kept is not None:
        try:
            return Lark.load(io.BytesIO(kept))
        except Exception:   # not lark's: built again below and replaced
            pass
    parser = Lark(grammar, parser="lalr", postlex=_RulesIndenter(), propagate_positions=True,
                  maybe_placeholders=True)
    tables = io.BytesIO()
    parser.save(tables)
    cache.store(stored, tables.getvalue())
    return parser


# Terminal names -> words an author understands.
_WORDS = {
    "NAME": "a name", "INT": "a number", "STRING": "a quoted string", "_NL": "end of line",
    "_INDENT": "an indented block", "_DEDENT": "the end of the block", "COLON": "':'",
    "LPAR": "'('", "RPAR": "')'", "LSQB": "'['", "RSQB": "']'", "LBRACE": "'{'", "RBRACE": "'}'", "COMMA": "','",
    "EQUAL": "'='", "ASSIGN_OP": "'=', '+=' or '-='", "COMP_OP": "a comparison",
    "ADD_OP": "'+' or '-'", "MUL_OP": "'*', '/', '//' or '%'", "DOT": "'.'", "$END": "end of file",
    "MINUS": "'-'", "MORETHAN": "'>'", "LESSTHAN": "'<'", "__ANON_0": "'=>'",
}


def _describe(expected) -> str:
    words = sorted({_WORDS.get(t, _keyword(t)) for t in expected})
    if len(words) > 8:
        words = words[:8] + ["..."]
    return ", ".join(words)


def _keyword(terminal: str) -> str:
    if terminal.isupper() and not terminal.startswith("_"):
        return f"'{terminal.lower()}'"
    return terminal


KEYWORDS = frozenset("""const def derived procedure action by on when end_condition score tiebreak estimate metric game let call set
pay from to return break continue pass require else emit draw add remove end_game check_end log
cite if elif for in while repeat times choose option use not and or true false none where
reveals exists needs""".split())


class _Pattern:
    """``(a, b)`` where one name would go: the names, bound to a list's items in order."""

    def __init__(self, names: list, pos: Pos):
        self.names, self.pos = names, pos


class _Refused(Exception):
    """A parse that is valid Lark but not valid railrules (a keyword used as a name...)."""

    def __init__(self, diagnostic):
        self.diagnostics = [diagnostic]


class _ToNodes(Transformer):
    """Rebuilds the Lark tree as dataclasses from :mod:`nodes`, one method per rule."""

    def __init__(self, file: str, lines: int = 0):
        super().__init__()
        self.file = file
        self.lines = lines  # how far down the file the parsed text starts

    def _pos(self, meta) -> Pos:
        line = getattr(meta, "line", 0)
        same_line = getattr(meta, "end_line", None) == line
        return Pos(self.file, line + self.lines if line else 0, getattr(meta, "column", 0),
                   getattr(meta, "end_column", 0) if same_line else 0)

    def _tok_pos(self, tok: Token) -> Pos:
        same_line = tok.end_line == tok.line
        return Pos(self.file, tok.line + self.lines if tok.line else 0, tok.column or 0,
                   (tok.end_column or 0) if same_line else 0)

    def _bind(self, tok) -> str:
        """A name defined, bound or read (not an option's label): keywords are refused."""
        if str(tok) in KEYWORDS:
            raise _Refused(Diagnostic("RR101", f"'{tok}' is a keyword and cannot be used as a name",
                                      self._tok_pos(tok), hint="choose another name"))
        if str(tok).startswith("__"):
            raise _Refused(Diagnostic("RR101", f"'{tok}': names starting with __ are the language's own",
                                      self._tok_pos(tok), hint="choose another name"))
        return str(tok)

    # ---- definitions
    @v_args(meta=True)
    def start(self, meta, items):
        nodes = [i for i in items if isinstance(i, n.Node)]
        return n.Module(self._pos(meta), [i for i in nodes if not isinstance(i, n.Needs)],
                        needs=[i for i in nodes if isinstance(i, n.Needs)])

    @v_args(meta=True)
    def needs_def(self, meta, c):
        return n.Needs(self._pos(meta), str(c[0]), self._bind(c[1]), c[2] or [])

    @v_args(meta=True)
    def const_def(self, meta, c):
        return n.ConstDef(self._pos(meta), self._bind(c[0]), c[1])

    @v_args(meta=True)
    def func_def(self, meta, c):
        return n.FuncDef(self._pos(meta), self._bind(c[0]), c[1] or [], self._def_body(c[1] or [], c[2]))

    @v_args(meta=True)
    def derived_def(self, meta, c):
        return n.FuncDef(self._pos(meta), self._bind(c[0]), c[1] or [], self._def_body(c[1] or [], c[2]),
                         derived=True)

    def _def_body(self, params: list, body):
        """A def's expression: as written, or its block's lets nested around the returned value."""
        if not isinstance(body, tuple):
            return body
        lets, value = body
        seen = set(params)
        for name, _, pos in lets:
            if name in seen:
                raise _Refused(Diagnostic("RR103", f"'{name}' is already a parameter or local of this def",
                                          pos, hint="give the local another name"))
            seen.add(name)
        for name, expr, pos in reversed(lets):
            value = n.LetIn(pos, name, expr, value)
        return value

    @v_args(meta=True)
    def def_block(self, meta, c):
        return (c[:-1], c[-1])

    @v_args(meta=True)
    def def_let(self, meta, c):
        return (self._bind(c[0]), c[1], self._tok_pos(c[0]))

    @v_args(meta=True)
    def proc_def(self, meta, c):
        return n.ProcDef(self._pos(meta), self._bind(c[0]), c[1] or [], c[2])

    @v_args(meta=True)
    def action_def(self, meta, c):
        return n.ActionDef(self._pos(meta), self._bind(c[0]), c[1] or [], self._bind(c[2]), c[3])

    @v_args(meta=True)
    def handler_def(self, meta, c):
        return n.HandlerDef(self._pos(meta), str(c[0]), c[1] or [], c[2], c[3])

    @v_args(meta=True)
    def end_def(self, meta, c):
        return n.EndDef(self._pos(meta), self._bind(c[0]), c[2], self.string(c[1]) if c[1] is not None else None)

    @v_args(meta=True)
    def score_def(self, meta, c):
        return n.ScoreDef(self._pos(meta), self._bind(c[0]), c[1])

    @v_args(meta=True)
    def metric_def(self, meta, c):
        return n.MetricDef(self._pos(meta), self._bind(c[0]), c[1])

    @v_args(meta=True)
    def tiebreak_def(self, meta, c):
        return n.TiebreakDef(self._pos(meta), self._bind(c[0]), c[1])

    @v_args(meta=True)
    def estimate_def(self, meta, c):
        return n.EstimateDef(self._pos(meta), self._bind(c[0]), c[1])

    @v_args(meta=True)
    def game_def(self, meta, c):
        return n.GameDef(self._pos(meta), c[0])

    # ---- overlays
    @v_args(meta=True)
    def hook_def(self, meta, c):
        return n.Hook(self._pos(meta), c[0], str(c[1]), c[2] or [], c[3])

    @v_args(meta=True)
    def option_def(self, meta, c):
        pos = self._pos(meta)
        return n.AddedOption(pos, n.Option(pos, str(c[0]), c[1] or [], c[5]), c[2], str(c[3]), str(c[4]))

    @v_args(meta=True)
    def clause_def(self, meta, c):
        return n.EndClause(self._pos(meta), str(c[0]), c[1], c[2])

    def side(self, c):
        return str(c[0])

    def join(self, c):
        return str(c[0])

    def names(self, c):
        return [self._bind(t) for t in c]

    def domains(self, c):
        return list(c)

    @v_args(meta=True)
    def domain(self, meta, c):
        return n.Domain(self._pos(meta), self._bind(c[0]), c[1], self.string(c[2]) if c[2] is not None else None)

    def block(self, c):
        out = []
        for s in c:   # a statement that unpacks names is several statements
            out += s if isinstance(s, list) else [s]
        return out

    # ---- names taken from a list: (a, b)
    @v_args(meta=True)
    def pattern(self, meta, c):
        names = [self._bind(t) for t in c]
        for i, t in enumerate(c):
            if str(t) in names[:i]:
                raise _Refused(Diagnostic("RR103", f"'{t}' is named twice in ({', '.join(names)})",
                                          self._tok_pos(t), hint="give each item its own name"))
        return _Pattern(names, self._pos(meta))

    @staticmethod
    def _unpacked(pattern: "_Pattern", value: n.Node, pos: Pos) -> tuple[str, list]:
        """The hidden local that holds the list, and a ``let`` of each name from it."""
        hidden = "__" + "_".join(pattern.names)   # no rule can write it: __ starts no name
        lets = [n.Let(pos, name, n.Index(pos, n.Var(pos, hidden), n.Int(pos, i)))
                for i, name in enumerate(pattern.names)]
        return hidden, lets

    def _each_name(self, pattern, expr: n.Node) -> n.Node:
        """``expr`` with the names of ``pattern`` bound around it (a comprehension's parts)."""
        if not isinstance(pattern, _Pattern):
            return expr
        hidden = "__" + "_".join(pattern.names)
        for i, name in reversed(list(enumerate(pattern.names))):
            expr = n.LetIn(pattern.pos, name, n.Index(pattern.pos, n.Var(pattern.pos, hidden), n.Int(pattern.pos, i)), expr)
        return expr

    def args(self, c):
        return list(c)

    # ---- statements
    @v_args(meta=True)
    def let_stmt(self, meta, c):
        pos = self._pos(meta)
        if isinstance(c[0], _Pattern):
            hidden, lets = self._unpacked(c[0], c[1], pos)
            return [n.Let(pos, hidden, n.Unpack(pos, c[1], len(c[0].names)))] + lets
        return n.Let(pos, self._bind(c[0]), c[1])

    @v_args(meta=True)
    def let_call(self, meta, c):
        pos = self._pos(meta)
        if isinstance(c[0], _Pattern):
            hidden, lets = self._unpacked(c[0], None, pos)
            check = n.Let(pos, hidden, n.Unpack(pos, n.Var(pos, hidden), len(c[0].names)))
            return [n.LetCall(pos, hidden, str(c[1]), c[2] or []), check] + lets
        return n.LetCall(pos, self._bind(c[0]), str(c[1]), c[2] or [])

    @v_args(meta=True)
    def set_stmt(self, meta, c):
        return n.Set(self._pos(meta), c[0], str(c[1]), c[2])

    @v_args(meta=True)
    def set_call(self, meta, c):
        # `set t = call f(a)` is `let __call = call f(a)` then `set t = __call`: the procedure's
        # result arrives in a local of the caller's frame, as every result does
        pos = self._pos(meta)
        hidden = "__call"
        return [n.LetCall(pos, hidden, str(c[2]), c[3] or []), n.Set(pos, c[0], str(c[1]), n.Var(pos, hidden))]

    @v_args(meta=True)
    def pay_stmt(self, meta, c):
        return n.Pay(self._pos(meta), c[0], c[1], c[2])

    @v_args(meta=True)
    def call_stmt(self, meta, c):
        return n.CallStmt(self._pos(meta), str(c[0]), c[1] or [])

    @v_args(meta=True)
    def return_stmt(self, meta, c):
        return n.Return(self._pos(meta), c[0])

    @v_args(meta=True)
    def break_stmt(self, meta, c):
        return n.Break(self._pos(meta))

    @v_args(meta=True)
    def continue_stmt(self, meta, c):
        return n.Continue(self._pos(meta))

    @v_args(meta=True)
    def pass_stmt(self, meta, c):
        return n.Pass(self._pos(meta))

    @v_args(meta=True)
    def require_stmt(self, meta, c):
        return n.Require(self._pos(meta), c[0], self.string(c[1]))

    @v_args(meta=True)
    def emit_stmt(self, meta, c):
        return n.Emit(self._pos(meta), str(c[0]), c[1] or [])

    @v_args(meta=True)
    def draw_stmt(self, meta, c):
        return n.Draw(self._pos(meta), self._bind(c[0]), c[1])

    @v_args(meta=True)
    def add_stmt(self, meta, c):
        return n.Add(self._pos(meta), c[0], c[1])

    @v_args(meta=True)
    def remove_stmt(self, meta, c):
        return n.Remove(self._pos(meta), c[0], c[1])

    @v_args(meta=True)
    def end_stmt(self, meta, c):
        return n.EndGame(self._pos(meta), c[0])

    @v_args(meta=True)
    def check_end_stmt(self, meta, c):
        return n.CheckEnd(self._pos(meta))

    @v_args(meta=True)
    def log_stmt(self, meta, c):
        return n.Log(self._pos(meta), c[0], c[1] if len(c) > 1 else None)

    @v_args(meta=True)
    def cite_stmt(self, meta, c):
        return n.Cite(self._pos(meta), _unquote(str(c[0])))

    @v_args(meta=True)
    def show_stmt(self, meta, c):
        return n.Show(self._pos(meta), c[0])

    @v_args(meta=True)
    def if_stmt(self, meta, c):
        branches = [(c[0], c[1])]
        rest = c[2:]
        otherwise = rest[-1] if rest and not isinstance(rest[-1], tuple) else None
        branches += [b for b in rest if isinstance(b, tuple)]
        return n.If(self._pos(meta), branches, otherwise)

    def elif_clause(self, c):
        return (c[0], c[1])

    @v_args(meta=True)
    def for_stmt(self, meta, c):
        # `for x in xs where cond: body` is `for x in xs:` with `if cond: body` inside
        pos, (name, source, cond, body) = self._pos(meta), c
        if cond is not None:
            body = [n.If(cond.pos, [(cond, body)], None)]
        if isinstance(name, _Pattern):
            hidden, lets = self._unpacked(name, None, pos)
            check = n.Let(pos, hidden, n.Unpack(pos, n.Var(pos, hidden), len(name.names)))
            return n.For(pos, hidden, source, [check] + lets + body)
        return n.For(pos, self._bind(name), source, body)

    @v_args(meta=True)
    def while_stmt(self, meta, c):
        return n.While(self._pos(meta), c[0], c[1])

    @v_args(meta=True)
    def repeat_stmt(self, meta, c):
        return n.Repeat(self._pos(meta), c[0], c[1])

    @v_args(meta=True)
    def turns_stmt(self, meta, c):
        name, source, first, end, body = c
        return n.Turns(self._pos(meta), self._bind(name), source, first, end, body)

    def until_all_pass(self, c):
        return "all"

    def until_others_pass(self, c):
        return "others"

    def once_around(self, c):
        return "once"

    @v_args(meta=True)
    def pass_turn_stmt(self, meta, c):
        return n.PassTurn(self._pos(meta))

    @v_args(meta=True)
    def drop_out_stmt(self, meta, c):
        return n.DropOut(self._pos(meta))

    @v_args(meta=True)
    def choose_stmt(self, meta, c):
        return n.Choose(self._pos(meta), c[0], list(c[1:]))

    @v_args(meta=True)
    def secret_choose_stmt(self, meta, c):
        return n.Choose(self._pos(meta), c[1], list(c[2:]), secret=self._bind(c[0]))

    @v_args(meta=True)
    def option(self, meta, c):
        return n.Option(self._pos(meta), str(c[0]), c[1] or [], c[2])

    @v_args(meta=True)
    def use_option(self, meta, c):
        return n.UseOption(self._pos(meta), str(c[0]))

    @v_args(meta=True)
    def target(self, meta, c):
        return n.Target(self._pos(meta), str(c[0]), list(c[1:]))

    def t_attr(self, c):
        return ("attr", str(c[0]))

    def t_index(self, c):
        return ("index", c[0])

    # ---- expressions
    @v_args(meta=True)
    def lambda_expr(self, meta, c):
        return n.Lambda(self._pos(meta), self._bind(c[0]), c[1])

    @v_args(meta=True)
    def conditional(self, meta, c):
        return n.Conditional(self._pos(meta), c[0], c[1], c[2])

    @v_args(meta=True)
    def or_(self, meta, c):
        return c[0] if len(c) == 1 else n.BoolOp(self._pos(meta), "or", list(c))

    @v_args(meta=True)
    def and_(self, meta, c):
        return c[0] if len(c) == 1 else n.BoolOp(self._pos(meta), "and", list(c))

    @v_args(meta=True)
    def not_(self, meta, c):
        return n.Not(self._pos(meta), c[0])

    @v_args(meta=True)
    def compare(self, meta, c):
        return n.Compare(self._pos(meta), str(c[1]), c[0], c[2])

    @v_args(meta=True)
    def in_(self, meta, c):
        return n.Compare(self._pos(meta), "in", c[0], c[1])

    @v_args(meta=True)
    def not_in(self, meta, c):
        return n.Compare(self._pos(meta), "not in", c[0], c[1])

    @v_args(meta=True)
    def binop(self, meta, c):
        return n.BinOp(self._pos(meta), str(c[1]), c[0], c[2])

    @v_args(meta=True)
    def neg(self, meta, c):
        return n.Neg(self._pos(meta), c[0])

    @v_args(meta=True)
    def attr(self, meta, c):
        return n.Attr(self._pos(meta), c[0], str(c[1]))

    @v_args(meta=True)
    def index(self, meta, c):
        return n.Index(self._pos(meta), c[0], c[1])

    @v_args(meta=True)
    def call(self, meta, c):
        return n.Call(self._pos(meta), str(c[0]), c[1] or [])

    def int_(self, c):
        if len(c[0]) > 15:
            raise _Refused(Diagnostic("RR008", f"the number {str(c[0])[:20]}... is too large "
                                      "(the limit is 15 digits)", self._tok_pos(c[0])))
        return n.Int(self._tok_pos(c[0]), int(c[0]))

    def string(self, c):
        tok = c[0] if isinstance(c, list) else c
        return _string_node(str(tok), self._tok_pos(tok))

    @v_args(meta=True)
    def true(self, meta, c):
        return n.Const(self._pos(meta), True)

    @v_args(meta=True)
    def false(self, meta, c):
        return n.Const(self._pos(meta), False)

    @v_args(meta=True)
    def none(self, meta, c):
        return n.Const(self._pos(meta), None)

    def var(self, c):
        return n.Var(self._tok_pos(c[0]), self._bind(c[0]))

    @v_args(meta=True)
    def list_(self, meta, c):
        return n.ListLit(self._pos(meta), c[0] or [])

    @v_args(meta=True)
    def pair(self, meta, c):
        return n.ListLit(self._pos(meta), [c[0], c[1]])

    @v_args(meta=True)
    def map_(self, meta, c):
        pairs = [p for p in c if p is not None]
        return n.MapOf(self._pos(meta), n.ListLit(self._pos(meta), pairs))

    @v_args(meta=True)
    def map_comprehension(self, meta, c):
        # {k: v for x in xs where c} is the map of the list [[k, v] for x in xs where c]
        return n.MapOf(self._pos(meta), self._comprehension(self._pos(meta), c))

    @v_args(meta=True)
    def exists(self, meta, c):
        return n.Exists(self._pos(meta), self._bind(c[0]), c[1], c[2])

    @v_args(meta=True)
    def comprehension(self, meta, c):
        return self._comprehension(self._pos(meta), c)

    def _comprehension(self, pos: Pos, c) -> n.Comprehension:
        expr, name, source, where = c
        if isinstance(name, _Pattern):
            hidden = "__" + "_".join(name.names)
            unpacked = n.Unpack(name.pos, n.Var(name.pos, hidden), len(name.names))
            expr = n.LetIn(name.pos, hidden, unpacked, self._each_name(name, expr))
            where = n.LetIn(name.pos, hidden, unpacked, self._each_name(name, where)) if where else None
            return n.Comprehension(pos, expr, hidden, source, where)
        return n.Comprehension(pos, expr, self._bind(name), source, where)


def _unquote(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text[1:-1])


_INTERP = re.compile(r"\{([^{}]*)\}")


def _string_node(token: str, pos: Pos) -> n.Str:
    """``"{p} pays {x}"`` -> Str(parts=["", Var p, " pays ", Var x, ""])."""
    text = _unquote(token)
    parts: list = []
    last = 0
    for m in _INTERP.finditer(text):
        parts.append(text[last:m.start()])
        # the expression's column: after the opening quote and the text before it
        parts.append(parse_expression(m.group(1), Pos(pos.file, pos.line, pos.column + 1 + m.start(1))))
        last = m.end()
    parts.append(text[last:])
    return n.Str(pos, parts)


def parse_expression(text: str, pos: Pos) -> n.Node:
    """Parse one expression that starts at ``pos`` (``{...}`` in strings, scenario files, conserve).

    The same text is parsed once (a copy of the first parse is moved to ``pos``): lint meets the
    same expressions in every variant and scenario."""
    prefix = "const _ = "
    template = _EXPRESSIONS.get((text, pos.file))
    if template is None:
        sink = Sink()
        module = _parse(f"{prefix}{text}\n", pos.file, sink)
        if not module.definitions:
            from ..errors import RulesetError
            sink = Sink()  # again, to say where the error is
            _parse(f"{prefix}{text}\n", pos.file, sink, line_offset=pos.line - 1)
            detail = f": {sink.diagnostics[0].message}" if sink.diagnostics else ""
            raise RulesetError(Diagnostic("RR101", f"cannot parse the expression '{text}'{detail}", pos))
        template = module.definitions[0].expr
        keep(_EXPRESSIONS, (text, pos.file), template, 20_000)
    return _moved(template, pos.line - 1, pos.column - len(prefix) - 1)


_EXPRESSIONS: dict = {}   # (text, file) -> the expression parsed at line 1 (only copies leave)
_FILES: dict = {}         # (text, file, line offset) -> (module, diagnostics): each file parsed once


def _definition_head() -> re.Pattern:
    """The first line of a definition, by the one list of definition kinds (nodes.DEFINITIONS):
    group 1 is the name a kind followed by a name defines (an event for ``on``; ``derived`` is
    a ``def``), group 2 the keyword of a kind without a name (``game``, ``score``...). A
    definition that does not parse leaves it among the broken names: no follow-on error."""
    by_name = [k.keyword for k in n.DEFINITIONS if k.named or k.node is n.HandlerDef] + ["derived"]
    alone = [k.keyword for k in n.DEFINITIONS if not k.named and k.node is not n.HandlerDef]
    return re.compile(rf"^(?:(?:{'|'.join(by_name)})\s+([A-Za-z_][A-Za-z0-9_]*)|({'|'.join(alone)})\b)")


_DEF_NAME = _definition_head()


def parse_rules(text: str, file: str, sink: Sink, line_offset: int = 0, cached: bool = False) -> n.Module:
    """Parse a .rules file; report syntax errors to ``sink`` and skip the broken definitions.

    A file is parsed once per process (the loader meets the same files in every variant); the
    module returned is shared, so nothing may change it. ``cached``: a file on disk, whose
    parse the user cache keeps from one process to the next (see :func:`_parsed`)."""
    key = (text, file, line_offset)
    found = _FILES.get(key)
    if found is None:
        found = keep(_FILES, key, _parsed(text, file, line_offset, cached), 512)
    module, diagnostics = found
    sink.diagnostics += diagnostics
    return module


def _parsed(text: str, file: str, line_offset: int, cached: bool) -> tuple:
    """(module, diagnostics) of a rules file. With ``cached``, read from the user cache when
    this parser parsed the same text of the same file before (the entry is named by both, by
    the parser's own source and by lark's version, and proves it is that entry:
    :func:`..cache.load`), else parsed and kept there; an entry that does not load is parsed
    again."""
    stored = cache.entry("parse", _parser_source(), lark.__version__, file, str(line_offset), text) \
        if cached else None
    kept = cache.load(stored)
    if kept is not None:
        try:
            found = pickle.loads(kept)
            if isinstance(found, tuple) and len(found) == 2 and isinstance(found[0], n.Module):
                return found
        except Exception:   # not what this parser writes: parsed again below
            pass
    sink = Sink()
    parsed = (_parse(text, file, sink, line_offset), sink.diagnostics)
    if stored is not None:
        try:
            data = pickle.dumps(parsed, protocol=pickle.HIGHEST_PROTOCOL)
        except (RecursionError, pickle.PicklingError):   # nested too deeply to keep: not kept
            return parsed
        cache.store(stored, data)
    return parsed


@lru_cache(maxsize=1)
def _parser_source() -> str:
    """What a parse depends on besides the text: the grammar and the code of the parser and of
    the nodes and diagnostics it makes."""
    here = Path(__file__).parent
    return "".join(p.read_text(encoding="utf-8") for p in (
        GRAMMAR, here / "parser.py", here / "nodes.py", here.parent / "errors.py"))


def _parse(text: str, file: str, sink: Sink, line_offset: int = 0) -> n.Module:
    text = text.lstrip("\ufeff")  # a byte-order mark is not part of the rules
    if not text.endswith("\n"):
        text += "\n"
    lines = text.split("\n")
    module = n.Module(Pos(file, 1, 1), [])
    # Top-level definitions start at column 1; parse each chunk on its own so that one
    # error does not hide the next (recovery at the next definition).
    starts = [i for i, line in enumerate(lines) if line[:1] not in ("", " ", "\t", "#")]
    starts.append(len(lines))
    for a, b in zip(starts, starts[1:]):
        # parsed on its own and its positions moved down by ``a`` lines (not behind ``a`` empty
        # lines: the lexer would cross them again for every definition)
        chunk = "\n".join(lines[a:b]) + "\n"
        m = _DEF_NAME.match(lines[a])
        broken = (m.group(1) or m.group(2)) if m else None
        try:
            tree = _lark().parse(chunk)
            part = _ToNodes(file, a).transform(tree)
            module.definitions += part.definitions
            module.needs += part.needs
            continue
        except UnexpectedInput as err:
            _report(err, chunk, file, sink, line_offset + a)
        except DedentError:
            sink.add("RR101", "the indentation does not match any outer block", _dedent_pos(
                lines, a, b, file, line_offset), "indent with the same spaces as the block it ends")
        except RecursionError:
            sink.add("RR101", "this definition is nested too deeply", Pos(file, a + 1 + line_offset, 1))
        except _Refused as err:
            sink.diagnostics += err.diagnostics
        except Exception as err:  # lark wraps errors raised while transforming
            inner = getattr(err, "orig_exc", None)
            if isinstance(inner, RecursionError):
                sink.add("RR101", "this definition is nested too deeply", Pos(file, a + 1 + line_offset, 1))
            elif getattr(inner, "diagnostics", None) is not None:
                sink.diagnostics += getattr(inner, "diagnostics")
            else:
                raise
        if broken:
            module.broken.add(broken)
    return _moved(module, line_offset) if line_offset else module


def _dedent_pos(lines, a, b, file, line_offset) -> Pos:
    """The first line of a chunk whose indentation is not one of the open blocks' (lark's
    DedentError carries no position)."""
    levels = [0]
    for i in range(a, b):
        line = lines[i]
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        width = len(line) - len(line.lstrip(" \t"))
        if width > levels[-1]:
            levels.append(width)
        elif width not in levels:
            return Pos(file, i + 1 + line_offset, width + 1)
        else:
            while levels[-1] > width:
                levels.pop()
    return Pos(file, a + 1 + line_offset, 1)


def _moved(tree, lines: int, columns: int = 0):
    """A copy of a parsed fragment with every position moved down ``lines`` and right
    ``columns`` (a node met twice is copied once, as copy.deepcopy would)."""
    copies: dict = {}

    def move(x):
        if isinstance(x, n.Node):
            if id(x) not in copies:
                new = copies[id(x)] = object.__new__(type(x))
                new.__dict__.update({k: move(v) for k, v in vars(x).items()})
                end = x.pos.end_column + columns if x.pos.end_column else 0
                new.pos = Pos(x.pos.file, x.pos.line + lines, x.pos.column + columns, end)
            return copies[id(x)]
        if isinstance(x, list):
            return [move(v) for v in x]
        if isinstance(x, tuple):
            return tuple(move(v) for v in x)
        return x
    return move(tree)


def _report(err: UnexpectedInput, text: str, file: str, sink: Sink, line_offset: int) -> None:
    line, col = err.line + line_offset, err.column
    if isinstance(err, UnexpectedCharacters):
        at = err.pos_in_stream or 0
        char = text[at] if at < len(text) else "?"
        msg = f"unexpected character {char!r}"
        hint = None
    elif isinstance(err, UnexpectedToken):
        tok = err.token
        if tok.type == "$END" or tok.type == "_DEDENT":
            got = "end of block"
        elif tok.type == "_NL":
            got = "end of line"
        elif tok.type == "_INDENT":
            got = "indent"
            # the token stands at the end of the line before; point at the indented line
            line = (getattr(tok, "end_line", None) or tok.line + 1) + line_offset
            col = len(str(tok).rsplit("\n", 1)[-1]) + 1
        else:
            got = repr(str(tok))
        msg = f"unexpected {got}; expected {_describe(err.expected)}"
        hint = "check the indentation" if tok.type in ("_INDENT", "_DEDENT") else None
        msg, hint = _misread(err, got) or (msg, hint)
        if tok.type == "$END":
            line, col = max(1, text.count("\n") + line_offset), 1
    elif isinstance(err, UnexpectedEOF):
        msg = f"the file ends too early; expected {_describe(err.expected)}"
        hint = None
    else:  # pragma: no cover - lark has no other kinds
        msg, hint = str(err), None
    opened = _unclosed(text)
    if opened and hint is None:
        hint = f"the '{opened[0]}' at line {opened[1] + line_offset}, column {opened[2]} is never closed"
    sink.add("RR101", msg, Pos(file, line, col), hint)


def _misread(err: UnexpectedToken, got: str) -> tuple[str, str] | None:
    """What the author most likely meant where the parser stopped, read from what it had taken
    just before (its value stack): a second comparison (``1 < x < 3``), a filter on an option's
    domain (``c in companies where ...``). None when it is neither."""
    stack = getattr(getattr(err, "interactive_parser", None), "parser_state", None)
    before = [getattr(v, "type", None) for v in (stack.value_stack[-3:] if stack else [])]
    before = [None] * (3 - len(before)) + before
    if err.token.type in ("COMP_OP", "IN", "NOT") and before[1] in ("COMP_OP", "IN"):
        return (f"unexpected {got}: comparisons do not chain",
                "compare twice and join the two with 'and': write a < b < c as a < b and b < c")
    if err.token.type == "WHERE" and before[0] == "NAME" and before[1] == "IN" \
            and set(err.expected) <= {"COMMA", "RPAR", "AS"}:
        return ("unexpected 'where': an option's domain takes no filter, its values are the whole list",
                "give the whole list, and refuse the values you do not want with a require at the "
                "head of the option's block: require CONDITION else \"the reason\"")
    return None


def _unclosed(text: str):
    """The first bracket of ``text`` left open, as (char, line, column), skipping strings and
    comments; None when every bracket closes."""
    stack, line, col, i = [], 1, 0, 0
    in_string = False
    while i < len(text):
        ch = text[i]
        col += 1
        if ch == "\n":
            line, col = line + 1, 0
        elif in_string:
            if ch == "\\":
                i, col = i + 1, col + 1
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch == "#":
            while i + 1 < len(text) and text[i + 1] != "\n":
                i += 1
        elif ch in "([":
            stack.append((ch, line, col))
        elif ch in ")]" and stack:
            if stack[-1][0] != "([)]"[")]".index(ch)]:
                return stack[-1]            # closed by the wrong bracket: it is the open one
            stack.pop()
        i += 1
    return stack[0] if stack else None
