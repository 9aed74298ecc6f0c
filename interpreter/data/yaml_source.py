"""Safe YAML loading that remembers where every value came from.

``load_yaml`` returns plain data (dict, list, str, int, float, bool, None) and a
:class:`Positions` map from a path of keys/indices to the (line, column) of that node.
It never constructs Python objects (only the safe core tags are resolved), rejects
duplicate keys, and stops alias bombs by counting the nodes it expands. PyYAML is imported
by the first load: a ruleset read from the user cache needs only :class:`Positions`.
"""
from __future__ import annotations

import re

from ..errors import Diagnostic, Pos, Sink

MAX_NODES = 200_000


class Positions:
    """Where each value of a loaded YAML document sits in its file."""

    def __init__(self, file: str):
        self.file = file
        self._at: dict[tuple, tuple[int, int]] = {}
        self._value: dict[tuple, tuple[int, int]] = {}

    def set(self, path: tuple, mark) -> None:
        self._at[path] = (mark.line + 1, mark.column + 1)

    def value_of(self, *path) -> Pos:
        """Where the text of a scalar value starts (after its opening quote)."""
        if tuple(path) not in self._value:
            return self.of(*path)
        line, col = self._value[tuple(path)]
        return Pos(self.file, line, col)

    def has(self, *path) -> bool:
        """Whether the document has a value at ``path``."""
        return tuple(path) in self._at

    def paths(self):
        """Every path that has a position, in document order."""
        return iter(self._at)

    def of(self, *path) -> Pos:
        """The position of ``path``, or of its nearest ancestor that has one."""
        path = tuple(path)
        while path not in self._at and path:
            path = path[:-1]
        line, col = self._at.get(path, (1, 1))
        return Pos(self.file, line, col)


class _TooLarge(Exception):
    pass


def copy_data(value):
    """A copy of loaded YAML data (dicts, lists and scalars): copy.deepcopy's result, faster."""
    if isinstance(value, dict):
        return {k: copy_data(v) for k, v in value.items()}
    if isinstance(value, list):
        return [copy_data(v) for v in value]
    return value


def utf8_text(data: bytes, name: str, shown: str) -> tuple[str | None, Diagnostic | None]:
    """A file's bytes as text, or None and an RR006 at the line of the first byte that is not
    UTF-8 (``name``: as the message calls the file; ``shown``: the path of the position). A
    line that ends with a carriage return alone (old Mac files) ends with a newline in the text,
    as it does in an editor: the rules' lines are counted by newlines."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data[:err.start].replace(b"\r\n", b"\n").replace(b"\r", b"\n").count(b"\n") + 1
        return None, Diagnostic("RR006", f"'{name}' is not UTF-8 text (byte {err.start})", Pos(shown, line, 1))
    return (_LONE_CR.sub("\n", text) if "\r" in text else text), None


_LONE_CR = re.compile(r"\r(?!\n)")


def load_yaml(text: str, file: str, sink: Sink):
    """Load one YAML document; problems go to ``sink``. Returns (data or None, positions)."""
    import yaml
    # libyaml's parser when PyYAML was built with it (same nodes and marks, several times faster)
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    positions = Positions(file)
    try:
        node = yaml.compose(text, Loader=loader)
    except RecursionError:
        sink.add("RR007", "the document is nested too deeply", Pos(file, 1, 1))
        return None, positions
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        line, col = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        if "nesting depth" in (err.problem or ""):  # PyYAML's own limit (6.0.3 and later)
            sink.add("RR007", "the document is nested too deeply", Pos(file, 1, 1))
        else:
            sink.add("RR002", f"YAML: {err.problem or err.context}", Pos(file, line, col))
        return None, positions
    except yaml.YAMLError as err:
        sink.add("RR002", f"YAML: {err}", Pos(file, 1, 1))
        return None, positions
    if node is None:
        return {}, positions
    budget = [MAX_NODES]
    before = len(sink.diagnostics)
    try:
        data = _convert(node, (), positions, sink, budget)
        if len(sink.diagnostics) > before:   # a refused tag or key: no schema check on the rest
            return None, positions
    except _TooLarge:
        sink.add("RR007", f"the document expands to more than {MAX_NODES} values",
                 Pos(file, node.start_mark.line + 1, node.start_mark.column + 1),
                 hint="YAML aliases (&a / *a) that repeat each other grow exponentially")
        return None, positions
    except RecursionError:
        sink.add("RR007", "the document is nested too deeply", Pos(file, 1, 1))
        return None, positions
    except _BadNumber as err:
        mark = err.args[0].start_mark
        sink.add("RR008", f"the number {err.args[0].value[:20]}... is too large (limit {MAX_INT})",
                 Pos(file, mark.line + 1, mark.column + 1))
        return None, positions
    return data, positions


class _BadNumber(Exception):
    pass




MAX_INT = 10 ** 15


def _scalar(node):
    tag = node.tag
    value = node.value
    if tag == "tag:yaml.org,2002:int":
        digits = value.replace("_", "")
        if len(digits) > 20:
            raise _BadNumber(node)
        try:
            number = int(digits, 0)
        except ValueError:
            try:
                number = int(digits)
            except ValueError:
                return value
        if abs(number) > MAX_INT:
            raise _BadNumber(node)
        return number
    if tag == "tag:yaml.org,2002:bool":
        return value.lower() in ("true", "yes", "on", "y")
    if tag == "tag:yaml.org,2002:null":
        return None
    if tag == "tag:yaml.org,2002:float":
        # 10.0 is the whole number 10; any other float stays a float for the schema to refuse
        try:
            number = float(value)
        except ValueError:
            return value
        if number.is_integer() and abs(number) <= MAX_INT:
            return int(number)
        return number
    return value


_PLAIN_TAGS = {f"tag:yaml.org,2002:{t}" for t in ("str", "int", "float", "bool", "null", "seq", "map")}


def _convert(node, path, positions, sink, budget):
    budget[0] -= 1
    if budget[0] < 0:
        raise _TooLarge
    positions.set(path, node.start_mark)
    if node.tag not in _PLAIN_TAGS:
        mark = node.start_mark
        sink.add("RR004", f"YAML tag '{node.tag.replace('tag:yaml.org,2002:', '!!')}' is not allowed: "
                 "ruleset files hold plain data", Pos(positions.file, mark.line + 1, mark.column + 1),
                 hint="remove the tag")
        return None
    if node.id == "scalar":   # (a yaml.ScalarNode)
        return _scalar(node)
    if node.id == "sequence":
        return [_convert(item, path + (i,), positions, sink, budget)
                for i, item in enumerate(node.value)]
    result = {}
    for key_node, value_node in node.value:
        if key_node.id != "scalar":
            sink.add("RR004", "a mapping key must be a plain value",
                     Pos(positions.file, key_node.start_mark.line + 1, key_node.start_mark.column + 1))
            continue
        if key_node.tag not in _PLAIN_TAGS:
            _convert(key_node, path, positions, sink, budget)  # reports the tag
            continue
        key = _scalar(key_node)
        key = key if isinstance(key, str) else str(key).lower() if isinstance(key, bool) else str(key)
        if key in result:
            sink.add("RR003", f"duplicate key '{key}'",
                     Pos(positions.file, key_node.start_mark.line + 1, key_node.start_mark.column + 1),
                     hint="YAML keeps only the last value; remove or rename one")
        result[key] = _convert(value_node, path + (key,), positions, sink, budget)
        positions.set(path + (key,), key_node.start_mark)
        if value_node.id == "scalar":
            mark = value_node.start_mark
            quoted = 1 if value_node.style in ("'", '"') else 0
            positions._value[path + (key,)] = (mark.line + 1, mark.column + 1 + quoted)
    return result
