"""Lint of a ruleset's scenario files (``scenarios/*.yaml``), without running them.

What can be checked without playing: the file is UTF-8 YAML that matches the scenario schema;
the player count is within the ruleset's range; a named variant exists; every action label's
first word is an option or action the rules define; each word argument of a label names an
entity, an alias or a player; ``turn`` and ``winners`` name players of the scenario; and every
``expect`` / ``set`` compiles against the ruleset's names. Whether the labels are legal at that
point, and whether the expectations hold, is for ``railrules test``.
"""
from __future__ import annotations

import dataclasses
import difflib
import functools
import hashlib
import pickle
from pathlib import Path

from railrules.interpreter import cache
from railrules.interpreter.data.schema import load_checked
from railrules.interpreter.data.yaml_source import Positions, utf8_text
from railrules.interpreter.dsl import nodes as n
from railrules.interpreter.errors import Diagnostic, Pos, RailrulesError, Sink

WORDS = {"true", "false", "none"}


def display(path: Path) -> str:
    """A path as the other diagnostics show it: relative to the working folder when inside it."""
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def _strings(value, out: set) -> set:
    if isinstance(value, str):
        out.add(value)
    elif isinstance(value, list):
        for v in value:
            _strings(v, out)
    elif isinstance(value, dict):
        for k, v in value.items():
            out.add(k)
            _strings(v, out)
    return out


def known_words(ruleset) -> tuple[set, set]:
    """What a label may say, from one walk of the rules: the option and action names (the
    first word of any label), and the words its arguments may be besides an entity: every
    text value of the YAML data and every string literal of the rules (an option may range
    over, say, a hex's goods)."""
    from railrules.interpreter.dsl.nodes import walk
    options = set()
    words = _strings([ruleset.entities, ruleset.constants, ruleset.variables], set())
    for node in walk(ruleset.definitions):
        if isinstance(node, (n.Option, n.ActionDef)):
            options.add(node.name)
        elif isinstance(node, n.Str):
            words.update(part for part in node.parts if isinstance(part, str))
    return options, words


def _once(ruleset, fn):
    """fn(ruleset), worked out once per loaded ruleset (every scenario of it asks the same)."""
    key = f"_lint_{fn.__name__}"
    if key not in ruleset.__dict__:
        ruleset.__dict__[key] = fn(ruleset)
    return ruleset.__dict__[key]


def lint_scenario(path: Path, ruleset, variant_loader) -> list[Diagnostic]:
    """Diagnostics of one scenario file. ``ruleset`` is the loaded base (or None when it is
    broken: then only the file and its schema are checked); ``variant_loader(name)`` gives the
    ruleset with that variant, or None."""
    shown = display(path)
    sink = Sink()
    text, problem = utf8_text(path.read_bytes(), shown, shown)
    if problem:
        return [problem]
    assert text is not None  # utf8_text gives the text or the problem
    doc, positions, diagnostics = load_checked(text, shown, "scenario")
    sink.diagnostics += diagnostics
    if doc is None or ruleset is None:
        return sink.diagnostics
    players = doc["players"]
    if not ruleset.players_min <= players <= ruleset.players_max:
        sink.add("RR208", f"{ruleset.name} is for {ruleset.players_min} to {ruleset.players_max} "
                 f"players, not {players}", positions.of("players"))
        return sink.diagnostics
    variant = doc.get("variant")
    if variant is not None:
        if variant not in ruleset.variants():
            sink.add("RR205", f"no variant '{variant}' in {ruleset.name}", positions.value_of("variant"),
                     hint=f"variants: {', '.join(ruleset.variants()) or 'none'}")
            return sink.diagnostics
        ruleset = variant_loader(variant)
        if ruleset is None:        # the variant itself is broken: lint of the variant says why
            return sink.diagnostics
    sink.diagnostics += _steps_checked(ruleset, players, positions, doc["steps"], shown, text)
    return sink.diagnostics


def _steps_checked(ruleset, players: int, positions: Positions, steps: list, shown: str,
                   text: str) -> list[Diagnostic]:
    """The diagnostics of a scenario's steps (:class:`_Steps`), kept in the user cache: they
    depend only on the file's text and the name it is shown by, the ruleset (its content hash,
    the variant included), the player count and the code that checks them (the interpreter's and
    this module's source), and parsing every ``expect`` and ``set`` is most of lint's time."""
    stored = cache.entry("scenario-lint", cache.source_digest(), _own_source(), ruleset.hash,
                         str(players), shown, text)
    kept = cache.load(stored)
    if kept is not None:
        try:
            found = pickle.loads(kept)
            if isinstance(found, list) and all(isinstance(d, Diagnostic) for d in found):
                return found
        except Exception:   # not what this module writes: checked again below
            pass
    sink = Sink()
    _Steps(ruleset, players, positions, sink).check(steps)
    cache.store(stored, pickle.dumps(sink.diagnostics, protocol=pickle.HIGHEST_PROTOCOL))
    return sink.diagnostics


@functools.cache
def _own_source() -> str:
    return hashlib.sha256(Path(__file__).read_bytes()).hexdigest()


class _Steps:
    def __init__(self, ruleset, players: int, positions: Positions, sink: Sink):
        self.ruleset, self.positions, self.sink = ruleset, positions, sink
        self.players = [f"p{i}" for i in range(1, players + 1)]
        base = ruleset.names
        self.names = dataclasses.replace(
            base, entities={**base.entities, **{p: p for p in self.players}})
        self.options, self.words = _once(ruleset, known_words)

    def check(self, steps: list) -> None:
        for i, step in enumerate(steps):
            for key in ("do", "legal", "illegal"):
                if key in step:
                    self.labels(step[key], ("steps", i, key), several=key == "do")
            for key in ("turn", "seat"):
                if key in step:
                    self.player(step[key], self.positions.value_of("steps", i, key))
            for j, who in enumerate(step.get("deciding", [])):
                self.player(who, self.positions.of("steps", i, "deciding", j))
            for j, who in enumerate(step.get("winners", [])):
                self.player(who, self.positions.of("steps", i, "winners", j))
            if "expect" in step:
                self.expression(step["expect"], self.positions.value_of("steps", i, "expect"))
            if "set" in step:
                self.statement(step["set"], self.positions.value_of("steps", i, "set"))

    def player(self, who: str, where: Pos) -> None:
        if who not in self.players:
            self.sink.add("RR208", f"'{who}' is not a player of this scenario", where,
                          hint=f"players: {', '.join(self.players)}")

    def labels(self, text: str, path: tuple, several: bool) -> None:
        start = self.positions.value_of(*path)
        one_line = "\n" not in text
        offset = 0
        for part in (text.split(";") if several else [text]):
            label = part.strip()
            col = start.column + offset + (len(part) - len(part.lstrip())) if one_line else start.column
            offset += len(part) + 1
            if not label:
                continue
            self.label(label, Pos(start.file, start.line, col) if one_line else start)

    def label(self, label: str, where: Pos) -> None:
        words = label.split()
        name = words[0]
        if name not in self.options:
            close = difflib.get_close_matches(name, sorted(self.options), n=1)
            self.sink.add("RR208", f"no option or action '{name}' in the rules", where,
                          hint=f"did you mean '{close[0]}'?" if close else
                          f"options: {', '.join(sorted(self.options)) or 'none'}")
            return
        col = where.column + len(name)
        rest = label[len(name):]
        for word in words[1:]:
            col += len(rest) - len(rest.lstrip())
            rest = rest.lstrip()[len(word):]
            here = Pos(where.file, where.line, col)
            col += len(word)
            if word.lstrip("-").isdigit() or word in WORDS:
                continue
            if word not in self.names.entities and word not in self.words:
                close = difflib.get_close_matches(word, sorted(self.names.entities), n=1)
                self.sink.add("RR201", f"'{word}' in '{label}' names no entity, player or value "
                              "of the ruleset", here, severity="warning",
                              hint=f"did you mean '{close[0]}'?" if close else None)

    def expression(self, text: str, where: Pos) -> None:
        from railrules.interpreter.compile.statements import Compiler, _Scope
        from railrules.interpreter.dsl.parser import parse_expression
        try:
            expr = parse_expression(text, where)
        except RailrulesError as err:
            self.sink.diagnostics += err.diagnostics
            return
        Compiler(self.names, self.sink, generate=False).expr(expr, _Scope(set()))

    def statement(self, text: str, where: Pos) -> None:
        """As Game.execute compiles it: one procedure body, shifted back to where the text is."""
        from railrules.interpreter.compile.statements import Compiler, _Scope
        from railrules.interpreter.dsl.parser import parse_rules
        inner = Sink()
        module = parse_rules(f"procedure _setup():\n    {text}\n", where.file, inner,
                             line_offset=where.line - 2)
        if module.definitions:
            Compiler(self.names, inner, generate=False).block(module.definitions[0].body, _Scope(set()), [])
        for d in inner.diagnostics:
            if d.pos.file == where.file and d.pos.line == where.line:
                d = dataclasses.replace(d, pos=Pos(d.pos.file, d.pos.line, d.pos.column - 5 + where.column))
            self.sink.diagnostics.append(d)
