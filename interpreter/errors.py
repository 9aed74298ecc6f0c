"""Diagnostics and exceptions: every problem railrules reports is one of these.

A :class:`Diagnostic` is a record (code, severity, message, file, line, column, hint);
rendering is done by :mod:`railrules.tools.common.diagnostics`. Codes are registered once,
in :data:`CODES`, with a kebab-case name and a one-line description.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import NamedTuple


@dataclass(frozen=True)
class Pos:
    """A place in a file: line and column from 1 (0: none); ``end_column``, when known, is the
    column just after the span on the same line (diagnostics underline column..end_column-1)."""
    file: str
    line: int = 0
    column: int = 0
    end_column: int = field(default=0, compare=False)

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


NOWHERE = Pos("<none>", 0, 0)


class Code(NamedTuple):
    """A diagnostic code, declared once: its kebab-case name, what it means, a bad example and
    how to fix it. `railrules codes`, CODES.md and the SARIF rules are generated from these."""
    name: str
    meaning: str
    example: str
    fix: str


# Stable: never renumber, only add.
CODES = {
    # files and YAML
    "RR001": Code("file-missing", "a file the ruleset names does not exist",
               "rules: [rules/tunr.rules]", "name a file that exists, relative to the ruleset folder"),
    "RR002": Code("yaml-syntax", "the YAML file cannot be parsed",
               "players: {min: 2, max: 6", "close the brace; YAML reports the line where it gave up"),
    "RR003": Code("yaml-duplicate-key", "a YAML mapping repeats a key",
               "cash: 0\ncash: 10", "keep one of the keys: YAML would silently keep the last"),
    "RR004": Code("schema", "a YAML value does not match the file's JSON Schema",
               "players: {min: two, max: 6}", "give the type the schema asks for (here an integer)"),
    "RR005": Code("path-escape", "a path leaves the ruleset folder",
               "components: ../../etc/passwd", "keep every file inside the ruleset folder"),
    "RR006": Code("not-utf8", "a file is not UTF-8 text",
               "a file saved as Latin-1", "save the file as UTF-8"),
    "RR007": Code("yaml-too-large", "a YAML document expands beyond the size limit (alias bomb?)",
               "b: [*a, *a, *a, *a]  (nested aliases)", "write the data out; do not nest aliases"),
    "RR008": Code("number-too-large", "a number is beyond the limit the engine accepts",
               "cash: 99999999999999999999", "use numbers below 10^15"),
    # rules language
    "RR101": Code("syntax", "the rules language cannot be parsed here",
               "procedure build(:", "write what the message says was expected at the caret"),
    "RR102": Code("undefined-name", "a name is not defined",
               "set c.incme += 2   (or an unknown name)", "fix the spelling; the hint names the closest name"),
    "RR103": Code("duplicate-definition", "two definitions share a name",
               "two `procedure turn(p):`", "rename or delete one of them"),
    "RR104": Code("wrong-arity", "a call passes the wrong number of arguments",
               "ceil(a, b)", "pass as many arguments as the function or procedure takes"),
    "RR105": Code("misplaced-statement", "a statement is used where it cannot work",
               "break outside a loop", "move the statement where it can act, as the message says"),
    "RR106": Code("unknown-procedure", "a call names no procedure",
               "call dividens()", "call a procedure that exists"),
    "RR107": Code("missing-game", "the rules define no `game:` block or no `score`",
               "a ruleset with no `game:` block", "add `game:` (where play starts) and `score p = ...`"),
    "RR108": Code("unused-definition", "a definition is never used",
               "procedure orphan(x): ... never called", "call it from the rules, or delete it"),
    "RR109": Code("missing-citation", "a definition does not cite the rulebook",
               "procedure turn(p): with no cite", "add cite \"the rulebook words this implements\""),
    "RR110": Code("type-mismatch", "a value of the wrong type is used",
               "frontier(3)", "pass a value of the kind the function expects"),
    "RR111": Code("undeclared-hook", "a library file calls a definition it neither defines nor declares with needs",
               "library/network.rules calls build_price with no `needs def build_price(c, h)`",
               "add the needs line at the top of the library file"),
    "RR112": Code("turn-order", "an `each ... in turn` loop cannot end as written, or a `pass turn` in it counts for nothing",
               "each p in turn until all pass: with no `pass turn` in it",
               "say `pass turn` (or `drop out`) where a player passes; `pass turn` counts only `until all pass`"),
    "RR113": Code("duplicate-parameter", "a definition, option or handler names a parameter twice",
               "def f(a, a) = a", "give each parameter its own name"),
    "RR114": Code("shadowed-builtin", "a def has the name of a builtin, which every call of that name then runs",
               "def len(x) = 99", "rename the def"),
    "RR115": Code("constant-cycle", "constants of the rules are computed from each other",
               "const a = b + 1 and const b = a + 1", "compute one of them without the others"),
    "RR116": Code("secret-leak", "a secret field reaches what another seat reads (a log line, a label, a message, a picture...)",
               'log "{p} draws {p.objective}"  (objective secret)', "say `reveals p.objective` if only its owner may read it, or show it where the rules reveal it"),
    # across files
    "RR201": Code("unknown-entity", "a reference names no entity",
               "home: Philadelfia", "name an entity id or alias that exists"),
    "RR202": Code("duplicate-id", "two entities share an id",
               "two entities with the id Red", "give every entity its own id"),
    "RR203": Code("board-inconsistent", "the board's hexes or neighbours do not agree",
               "A1 lists B1 as a neighbour but B1 does not list A1", "make neighbour lists agree"),
    "RR204": Code("variant-unknown-key", "a variant changes something the ruleset does not have",
               "a variant sets constant max_bild", "change only constants, variables, entities and rules the ruleset has"),
    "RR205": Code("unknown-variant", "no variant has that name",
               "--variant hous_threshold", "use one of the variants the hint lists"),
    "RR206": Code("unknown-ruleset", "no ruleset has that name or path",
               "railrules play chicgo_express", "use a shipped ruleset's name or a folder with ruleset.yaml"),
    "RR207": Code("unlisted-rules-file", "a .rules file in the ruleset folder is listed by no ruleset.yaml or variant",
               "rules/extra.rules, not in ruleset.yaml's rules: list", "list the file under rules: (or in a variant), or delete it"),
    "RR208": Code("scenario-reference", "a scenario names an option, player or player count the ruleset does not have",
               "do: \"bild Red\" where the option is build", "name an option the rules define and players the scenario has"),
    "RR210": Code("library-need-unmet", "the rules do not give a definition a library file needs",
               "library/network.rules needs def build_price(c, h); the game defines none",
               "define it, of that kind (def or procedure) and with as many parameters"),
    "RR209": Code("coverage-reference", "ruleset.yaml's coverage: unfired names no rule of the ruleset",
               "coverage: {unfired: {big_netwrok: ...}}", "name a procedure, action, option, end condition or trigger (on EVENT #k) as `railrules coverage` lists them"),
    "RR211": Code("overlay-conflict", "two overlays add the same name, or an overlay adds what its base already has",
               "two overlays add 'sell_back': variant x and overlay y", "rename one of them, or change what exists instead of adding it"),
    "RR212": Code("overlay-target-missing", "an overlay extends a definition or a choose its base no longer has",
               "after extnd(p, c): the base has no 'extnd'", "name the definition (or the option of the choose) as the base now calls it"),
    "RR213": Code("unknown-base", "a ruleset extends a ruleset that does not exist",
               "extends: chicgo_express", "name a shipped ruleset or a folder that holds ruleset.yaml"),
    "RR214": Code("overlay-cycle", "rulesets extend each other in a cycle",
               "a extends b, b extends a", "make one of them a full ruleset, or extend another"),
    "RR215": Code("bots-setting", "ruleset.yaml's bots: gives a bot a setting it does not have, or a value it cannot take",
               "bots: {mcts: \"iterations=50:nerve=2\"}", "give settings as `railrules play --help` lists them for --bots"),
    # run time
    "RR301": Code("illegal-action", "the action is not legal in this position",
               "bid 999 with 30 in cash", "choose one of the legal actions; the message says why not"),
    "RR302": Code("runtime", "a rule failed while running",
               "pay 3 from c to bank when c has 2", "guard the rule with a require or an if"),
    "RR303": Code("step-budget", "a rule ran past the step budget without a decision",
               "while true: pass", "make every loop end or reach a choice; raise limits.steps if it is right"),
    "RR304": Code("bad-save", "a save file or log cannot be used",
               "a truncated save file", "use an intact save made with the same ruleset"),
    "RR305": Code("replay-divergence", "a replayed log diverges from the recorded game",
               "a log replayed after the rules changed", "replay with the rules it was made with, or re-record it"),
    "RR306": Code("scenario-failed", "a scenario's expectation does not hold",
               "expect: Red.income == 9 when it is 8", "fix the rule or the scenario, whichever is wrong"),
    "RR307": Code("no-legal-action", "a choice has no legal option and the game is not over",
               "choose by p: with every option's require false", "add an option that is always legal (pass, stop)"),
    "RR308": Code("not-conserved", "a quantity the ruleset declares conserved changed",
               "a rule that pays from the bank to nowhere", "move money and pieces, never create or destroy them"),
    "RR309": Code("never-reached", "sampled play never reached an option or end condition",
               "option auction never legal", "check the option's requires, or play more games"),
    "RR310": Code("stale-derived", "a kept derived value differs from its computation from scratch",
               "a derived value that reads state through a path the engine does not see", "report it: every read of a derived value must be noted by the engine"),
    "RR311": Code("too-complex-to-load", "loading the ruleset reached a limit of Python (nesting, recursion or memory)",
               "an expression nested thousands of levels deep", "nest less deeply and split what is very large"),
    "RR312": Code("over-limit", "a rule built a value past a limit of the resource governor",
               "set s = \"{s}{s}\" in a loop: a text over 100000 characters",
               "build smaller values: a list or text of at most 100000 items, nested at most 32 deep (README, Limits)"),
    "RR313": Code("check-stopped", "the language server stopped a check of the ruleset (its time limit, or an error)",
               "a constant that takes minutes to compute", "make the rules cheaper to check; `railrules lint` shows the same problem without a time limit"),
    "RR314": Code("proven-type", "a value written from outside the rules (a scenario's set:, a save) is not of the type the rules prove that field or variable has",
               "set: \"set Red.income = true\" where the rules store only whole numbers in income",
               "write a value of the type the rules store there (or none); LANGUAGE.md, Proven types"),
    "RR315": Code("already-committed", "a seat commits a second time in a round of secret choices",
               "apply(bid 7, player=p2) after p2 has committed bid 5 in the same round",
               "a commitment is final until the reveal: commit once per seat (undo takes a commitment back)"),
    # arguments of railrules compare (checked before any game is played)
    "RR501": Code("bad-arm", "an arm of a comparison cannot be made: a --set names no constant or gives a value of another type, or two arms are the same",
               "--set goal=late", "name a constant of components.yaml and give a value of its type"),
    "RR502": Code("unknown-metric", "--metrics or --plot names a metric no arm can report",
               "--metrics decisons", "use a name as the table shows it, or a family (metric, end, seat, bot, ladder, action, rule)"),
    # tools
    "RR401": Code("bot", "a bot named by --bots (module:Class) cannot be loaded, or does not follow the bot protocol",
               "--bots mybots:Clever where mybots.py has no class Clever", "name an importable module and a class made with (seed, **options) with a method choose(view, legal) that returns one of legal"),
}



@dataclass
class Diagnostic:
    code: str
    message: str
    pos: Pos = NOWHERE
    severity: str = "error"
    hint: str | None = None

    @property
    def name(self) -> str:
        return CODES[self.code].name

    def to_dict(self) -> dict:
        return {"file": self.pos.file, "line": self.pos.line, "column": self.pos.column,
                "end_column": self.pos.end_column or None, "code": self.code, "name": self.name, "severity": self.severity,
                "message": self.message, "hint": self.hint}

    @property
    def where(self) -> str:
        """``file:line:col: ``; ``file: `` for a whole file or folder (no line); nothing for a
        diagnostic with no place in a file (such as ``players``: a bad player count)."""
        if self.pos.line >= 1:
            return f"{self.pos}: "
        if self.pos.file.startswith("<") or not os.path.exists(self.pos.file):
            return ""
        return f"{self.pos.file}: "

    def __str__(self) -> str:
        text = f"{self.where}{self.severity} {self.code} {self.message}"
        return text + (f" (hint: {self.hint})" if self.hint else "")


class RailrulesError(Exception):
    """Root of every error railrules raises on bad input."""

    def __init__(self, diagnostics: list[Diagnostic] | Diagnostic):
        if isinstance(diagnostics, Diagnostic):
            diagnostics = [diagnostics]
        self.diagnostics = diagnostics
        super().__init__("\n".join(str(d) for d in diagnostics))


class RulesetError(RailrulesError):
    """A ruleset (YAML or rules) is broken; raised only after every problem is collected."""


class IllegalAction(RailrulesError, ValueError):
    """The action asked for is not legal; the game state is unchanged."""


class RulesRuntimeError(RailrulesError):
    """A rule failed while running (a bug in the ruleset, not in the move)."""


class BadSave(RailrulesError, ValueError):
    """A save file or log is truncated, tampered with, or for another ruleset."""


@dataclass
class Sink:
    """Collects diagnostics across the stages of loading one ruleset."""
    diagnostics: list = field(default_factory=list)

    def add(self, code: str, message: str, pos: Pos = NOWHERE, hint: str | None = None,
            severity: str = "error") -> None:
        self.diagnostics.append(Diagnostic(code, message, pos, severity, hint))

    @property
    def errors(self) -> list:
        return [d for d in self.diagnostics if d.severity == "error"]

    def raise_if_errors(self) -> None:
        if self.errors:
            raise RulesetError(self.diagnostics)
