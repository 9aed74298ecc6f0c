"""Diagnostics and exceptions: every problem railrules reports is one of these.

A :class:`Diagnostic` is a record (code, severity, message, file, line, column, hint);
rendering is done by :mod:`interpreter.diagnostics_render`. Codes are registered once,
in :data:`CODES`, with a kebab-case name and a one-line description.
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Pos:
    file: str
    line: int = 0
    column: int = 0

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


NOWHERE = Pos("<none>", 0, 0)

# code -> (name, description). Stable: never renumber, only add.
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
    "RR107": ("missing-game", "the rules define no `game:` block"),
    "RR108": ("unused-definition", "a definition is never used"),
    "RR109": ("missing-citation", "a definition does not cite the rulebook"),
    # across files
    "RR201": ("unknown-entity", "a reference names no entity"),
    "RR202": ("duplicate-id", "two entities share an id"),
    "RR203": ("board-inconsistent", "the board's hexes or neighbours do not agree"),
    "RR204": ("variant-unknown-key", "a variant changes something the ruleset does not have"),
    "RR205": ("unknown-variant", "no variant has that name"),
    "RR206": ("unknown-ruleset", "no ruleset has that name or path"),
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

    def __str__(self) -> str:
        text = f"{self.pos}: {self.severity} {self.code} {self.message}"
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
