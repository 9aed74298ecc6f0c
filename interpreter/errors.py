"""Diagnostics and exceptions: every problem railrules reports is one of these.

A :class:`Diagnostic` is a record (code, severity, message, file, line, column, hint);
rendering is done by :mod:`interpreter.diagnostics_render`. Codes are registered once,
in :data:`CODES`, with a kebab-case name and a one-line description.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Pos:
    file: str
    line: int = 0
    column: int = 0

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


NOWHERE = Pos("<none>", 0, 0)

# code -> (name, description). Stable: never renumber, only add. EXPLAIN adds an example
# and the fix for each; `railrules codes` prints both (and CODES.md is generated from them).
CODES = {
    # files and YAML
    "RR001": ("file-missing", "a file the ruleset names does not exist"),
    "RR002": ("yaml-syntax", "the YAML file cannot be parsed"),
    "RR003": ("yaml-duplicate-key", "a YAML mapping repeats a key"),
    "RR004": ("schema", "a YAML value does not match the file's JSON Schema"),
    "RR005": ("path-escape", "a path leaves the ruleset folder"),
    "RR006": ("not-utf8", "a file is not UTF-8 text"),
    "RR007": ("yaml-too-large", "a YAML document expands beyond the size limit (alias bomb?)"),
    "RR008": ("number-too-large", "a number is beyond the limit the engine accepts"),
    # rules language
    "RR101": ("syntax", "the rules language cannot be parsed here"),
    "RR102": ("undefined-name", "a name is not defined"),
    "RR103": ("duplicate-definition", "two definitions share a name"),
    "RR104": ("wrong-arity", "a call passes the wrong number of arguments"),
    "RR105": ("misplaced-statement", "a statement is used where it cannot work"),
    "RR106": ("unknown-procedure", "a call names no procedure"),
    "RR107": ("missing-game", "the rules define no `game:` block or no `score`"),
    "RR108": ("unused-definition", "a definition is never used"),
    "RR109": ("missing-citation", "a definition does not cite the rulebook"),
    "RR110": ("type-mismatch", "a value of the wrong type is used"),
    # across files
    "RR201": ("unknown-entity", "a reference names no entity"),
    "RR202": ("duplicate-id", "two entities share an id"),
    "RR203": ("board-inconsistent", "the board's hexes or neighbours do not agree"),
    "RR204": ("variant-unknown-key", "a variant changes something the ruleset does not have"),
    "RR205": ("unknown-variant", "no variant has that name"),
    "RR206": ("unknown-ruleset", "no ruleset has that name or path"),
    "RR207": ("unlisted-rules-file", "a .rules file in the ruleset folder is listed by no ruleset.yaml or variant"),
    "RR208": ("scenario-reference", "a scenario names an option, player or player count the ruleset does not have"),
    "RR209": ("coverage-reference", "ruleset.yaml's coverage: unfired names no rule of the ruleset"),
    # run time
    "RR301": ("illegal-action", "the action is not legal in this position"),
    "RR302": ("runtime", "a rule failed while running"),
    "RR303": ("step-budget", "a rule ran past the step budget without a decision"),
    "RR304": ("bad-save", "a save file or log cannot be used"),
    "RR305": ("replay-divergence", "a replayed log diverges from the recorded game"),
    "RR306": ("scenario-failed", "a scenario's expectation does not hold"),
    "RR307": ("no-legal-action", "a choice has no legal option and the game is not over"),
    "RR308": ("not-conserved", "a quantity the ruleset declares conserved changed"),
    "RR309": ("never-reached", "sampled play never reached an option or end condition"),
    "RR310": ("stale-derived", "a kept derived value differs from its computation from scratch"),
}

# code -> (a bad example, how to fix it)
EXPLAIN = {
    "RR001": ("rules: [rules/tunr.rules]", "name a file that exists, relative to the ruleset folder"),
    "RR002": ("players: {min: 2, max: 6", "close the brace; YAML reports the line where it gave up"),
    "RR003": ("cash: 0\ncash: 10", "keep one of the keys: YAML would silently keep the last"),
    "RR004": ("players: {min: two, max: 6}", "give the type the schema asks for (here an integer)"),
    "RR005": ("components: ../../etc/passwd", "keep every file inside the ruleset folder"),
    "RR006": ("a file saved as Latin-1", "save the file as UTF-8"),
    "RR007": ("b: [*a, *a, *a, *a]  (nested aliases)", "write the data out; do not nest aliases"),
    "RR008": ("cash: 99999999999999999999", "use numbers below 10^15"),
    "RR101": ("procedure build(:", "write what the message says was expected at the caret"),
    "RR102": ("set c.incme += 2   (or an unknown name)", "fix the spelling; the hint names the closest name"),
    "RR103": ("two `procedure turn(p):`", "rename or delete one of them"),
    "RR104": ("ceil(a, b)", "pass as many arguments as the function or procedure takes"),
    "RR105": ("break outside a loop", "move the statement where it can act, as the message says"),
    "RR106": ("call dividens()", "call a procedure that exists"),
    "RR107": ("a ruleset with no `game:` block", "add `game:` (where play starts) and `score p = ...`"),
    "RR108": ("procedure orphan(x): ... never called", "call it from the rules, or delete it"),
    "RR109": ("procedure turn(p): with no cite", 'add cite "the rulebook words this implements"'),
    "RR110": ("frontier(3)", "pass a value of the kind the function expects"),
    "RR201": ("home: Philadelfia", "name an entity id or alias that exists"),
    "RR202": ("two entities with the id Red", "give every entity its own id"),
    "RR203": ("A1 lists B1 as a neighbour but B1 does not list A1", "make neighbour lists agree"),
    "RR204": ("a variant sets constant max_bild", "change only constants, variables, entities and rules the ruleset has"),
    "RR205": ("--variant hous_threshold", "use one of the variants the hint lists"),
    "RR206": ("railrules play chicgo_express", "use a shipped ruleset's name or a folder with ruleset.yaml"),
    "RR207": ("rules/extra.rules, not in ruleset.yaml's rules: list", "list the file under rules: (or in a variant), or delete it"),
    "RR208": ("do: \"bild Red\" where the option is build", "name an option the rules define and players the scenario has"),
    "RR209": ("coverage: {unfired: {detroit_at_9: ...}}", "name a procedure, action, option, end condition or trigger (on EVENT #k) as `railrules coverage` lists them"),
    "RR301": ("bid 999 with 30 in cash", "choose one of the legal actions; the message says why not"),
    "RR302": ("pay 3 from c to bank when c has 2", "guard the rule with a require or an if"),
    "RR303": ("while true: pass", "make every loop end or reach a choice; raise limits.steps if it is right"),
    "RR304": ("a truncated save file", "use an intact save made with the same ruleset"),
    "RR305": ("a log replayed after the rules changed", "replay with the rules it was made with, or re-record it"),
    "RR306": ("expect: Red.income == 9 when it is 8", "fix the rule or the scenario, whichever is wrong"),
    "RR307": ("choose by p: with every option's require false", "add an option that is always legal (pass, stop)"),
    "RR308": ("a rule that pays from the bank to nowhere", "move money and pieces, never create or destroy them"),
    "RR309": ("option auction never legal", "check the option's requires, or play more games"),
    "RR310": ("a derived value that reads state through a path the engine does not see",
              "report it: every read of a derived value must be noted by the engine"),
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
        return CODES[self.code][0]

    def to_dict(self) -> dict:
        return {"file": self.pos.file, "line": self.pos.line, "column": self.pos.column,
                "code": self.code, "name": self.name, "severity": self.severity,
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
