"""Fuzzing the linter with broken copies of the shipped Chicago Express ruleset.

Each example copies the ruleset's files (ruleset.yaml, components.yaml, board.yaml, rules/,
and one of its variants) to a fresh folder, breaks them (lines deleted, duplicated or swapped; tokens
corrupted; YAML values replaced with values of the wrong type; a file truncated at a random
byte; random bytes inserted), and checks that

- ``check_ruleset`` returns diagnostics and never raises;
- every diagnostic has a registered code, a severity, a message, a file, line >= 0 and
  column >= 0;
- ``railrules lint FOLDER`` exits 0 or 1 and never prints a traceback or an internal error.

The time bound is Hypothesis's per-example deadline. Run with ``-s`` to see how many
examples ran and the slowest one.

Every crash fails the test: none is set aside.
"""
from __future__ import annotations

import contextlib
import io
import json
import re
import tempfile
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from railrules.interpreter import check_ruleset
from railrules.interpreter.errors import CODES
from railrules.interpreter.paths import rulesets_dir
from railrules.tools.cli import main

pytestmark = pytest.mark.slow  # lints thousands of damaged files: `pytest -m "not slow"` skips it

SOURCE = rulesets_dir() / "chicago_express"
FILES = sorted(
    [p.relative_to(SOURCE).as_posix() for p in SOURCE.glob("*.yaml")]
    + [p.relative_to(SOURCE).as_posix() for p in (SOURCE / "rules").glob("*.rules")]
    + ["variants/house_threshold_4.yaml"])  # one variant: a clean copy lints each variant again
TEXTS = {f: (SOURCE / f).read_bytes() for f in FILES}
YAML_FILES = [f for f in FILES if f.endswith(".yaml")]
RULES_FILES = [f for f in FILES if f.endswith(".rules")]

EXAMPLES = 30  # per strategy; five strategies
FUZZ = settings(max_examples=EXAMPLES, deadline=5000, derandomize=False,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

STATS = {"cases": 0, "slowest": 0.0, "slowest_case": "", "codes": set()}


@pytest.fixture(scope="module", autouse=True)
def _summary():
    yield
    print(f"\nfuzz: {STATS['cases']} cases, slowest {STATS['slowest']:.3f} s "
          f"({STATS['slowest_case']}), "
          f"codes seen: {' '.join(sorted(STATS['codes']))}")


# ---------------------------------------------------------------- applying mutations
def _write(files: dict) -> tempfile.TemporaryDirectory:
    tmp = tempfile.TemporaryDirectory(prefix="rrfuzz-")
    root = Path(tmp.name) / "chicago_express"
    for rel, data in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)
    return tmp


def _check(files: dict, what: str) -> None:
    """The property: lint returns well-formed diagnostics, and the CLI exits 0 or 1."""
    with _write(files) as tmp:
        root = str(Path(tmp) / "chicago_express")
        start = time.perf_counter()
        _, diags = check_ruleset(root)
        for d in diags:
            assert d.code in CODES, str(d)
            assert d.severity in ("error", "warning"), str(d)
            assert isinstance(d.message, str) and d.message, str(d)
            assert isinstance(d.pos.file, str) and d.pos.file, str(d)
            assert isinstance(d.pos.line, int) and d.pos.line >= 0, str(d)
            assert isinstance(d.pos.column, int) and d.pos.column >= 0, str(d)
            STATS["codes"].add(d.code)
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(["lint", root])
        assert code in (0, 1), err.getvalue()[-2000:]
        if any(d.severity == "error" for d in diags):
            assert code == 1, "lint found errors, but the CLI exited 0"
        printed = out.getvalue() + err.getvalue()
        assert "Traceback" not in printed and "internal error" not in printed, printed[-2000:]
        elapsed = time.perf_counter() - start
    STATS["cases"] += 1
    if elapsed > STATS["slowest"]:
        STATS["slowest"], STATS["slowest_case"] = elapsed, what


def _lines(data: bytes) -> list[bytes]:
    return data.split(b"\n")


def _line_edit(files: dict, edit) -> None:
    rel, kind, i, j = edit
    lines = _lines(files[rel])
    i, j = i % len(lines), j % len(lines)
    if kind == "delete":
        del lines[i]
    elif kind == "duplicate":
        lines.insert(i, lines[i])
    else:
        lines[i], lines[j] = lines[j], lines[i]
    files[rel] = b"\n".join(lines)


TOKEN = re.compile(rb'[A-Za-z_][A-Za-z0-9_]*|[0-9]+|"[^"\n]*"|==|!=|<=|>=|\+=|-=|=>|//|[^\s\w]')
REPLACEMENTS = [
    b"", b"if", b"else", b"while", b"choose", b"option", b"game", b"score", b"procedure",
    b"break", b"return", b"(", b")", b"[", b"]", b":", b",", b"=", b"==", b"+", b"/", b"{", b"}",
    b"\"", b"#", b"-", b"&", b"*", b"!", b"0", b"-1", b"99999999999999999999999", b"true",
    b"none", b"p", b"undefined_name", b"\t", b"    ", b"\n", b"\n    ", b"\xff", b"\xc3",
]


def _token_edit(files: dict, edit) -> None:
    rel, k, replacement, mangle = edit
    data = files[rel]
    tokens = list(TOKEN.finditer(data))
    if not tokens:
        return
    m = tokens[k % len(tokens)]
    tok = m.group(0)
    if mangle == "drop" and len(tok) > 1:
        new = tok[:len(tok) // 2] + tok[len(tok) // 2 + 1:]
    elif mangle == "double":
        new = tok + tok[-1:]
    elif mangle == "upper":
        new = tok.upper()
    else:
        new = replacement
    files[rel] = data[:m.start()] + new + data[m.end():]


# `key: value` in block or flow YAML: the value is a plain scalar or a quoted string
YAML_VALUE = re.compile(rb'(?<=: )(?:"[^"\n]*"|[^\s,{}\[\]#"][^,{}\[\]#\n]*?)(?=\s*(?:[,}\]]|#|$))', re.M)
WRONG_VALUES = [
    b"[]", b"{}", b"[1, 2]", b"{a: 1}", b"-1", b"0", b"3.5", b"1e400", b".nan", b"true", b"null",
    b"~", b"''", b'"x"', b"99999999999999999999", b"0x10", b"!!binary aGVsbG8=",
    b"!!python/object/apply:os.system [\"echo pwned\"]", b"&a [*a, *a]", b"*nowhere", b"[[[[[]]]]]",
    b"|\n  text", b"? x", b"- item", b"A1", b"NYC", b"p1", b"players", b"companies",
]


def _yaml_edit(files: dict, edit) -> None:
    rel, k, value = edit
    data = files[rel]
    spots = list(YAML_VALUE.finditer(data))
    if not spots:
        return
    m = spots[k % len(spots)]
    files[rel] = data[:m.start()] + value + data[m.end():]


def _truncate(files: dict, edit) -> None:
    rel, fraction = edit
    files[rel] = files[rel][:int(len(files[rel]) * fraction)]


def _insert(files: dict, edit) -> None:
    rel, fraction, junk = edit
    at = int(len(files[rel]) * fraction)
    files[rel] = files[rel][:at] + junk + files[rel][at:]


def _apply(edits, how) -> dict:
    files = dict(TEXTS)
    for e in edits:
        how(files, e)
    return files


def _show(edits) -> str:
    return "; ".join(" ".join(str(x) if not isinstance(x, bytes) else repr(x)[:30] for x in e)
                     for e in edits)


# ---------------------------------------------------------------- strategies
index = st.integers(min_value=0, max_value=10_000)
line_edits = st.tuples(st.sampled_from(FILES), st.sampled_from(["delete", "duplicate", "swap"]),
                       index, index)
token_edits = st.tuples(st.sampled_from(RULES_FILES + ["components.yaml"]), index,
                        st.sampled_from(REPLACEMENTS),
                        st.sampled_from(["replace", "replace", "drop", "double", "upper"]))
yaml_edits = st.tuples(st.sampled_from(YAML_FILES), index, st.sampled_from(WRONG_VALUES))
truncations = st.tuples(st.sampled_from(FILES), st.floats(min_value=0.0, max_value=1.0))
insertions = st.tuples(st.sampled_from(FILES), st.floats(min_value=0.0, max_value=1.0),
                       st.binary(min_size=1, max_size=12))


# ---------------------------------------------------------------- the properties
def test_the_unbroken_copy_lints_clean():
    """The fuzzer's starting point is clean, so what it finds comes from its mutations."""
    with _write(dict(TEXTS)) as tmp:
        _, diags = check_ruleset(str(Path(tmp) / "chicago_express"))
    assert [d for d in diags if d.severity == "error"] == []


@FUZZ
@given(st.lists(line_edits, min_size=1, max_size=3))
def test_lines_deleted_duplicated_or_swapped(edits):
    _check(_apply(edits, _line_edit), "lines: " + _show(edits))


@FUZZ
@given(st.lists(token_edits, min_size=1, max_size=3))
def test_tokens_corrupted(edits):
    _check(_apply(edits, _token_edit), "tokens: " + _show(edits))


@FUZZ
@given(st.lists(yaml_edits, min_size=1, max_size=3))
def test_yaml_values_of_the_wrong_type(edits):
    _check(_apply(edits, _yaml_edit), "yaml: " + _show(edits))


@FUZZ
@given(st.lists(truncations, min_size=1, max_size=2))
def test_files_truncated_at_a_random_byte(edits):
    _check(_apply(edits, _truncate), "truncate: " + _show(edits))


@FUZZ
@given(st.lists(insertions, min_size=1, max_size=3))
def test_random_bytes_inserted(edits):
    _check(_apply(edits, _insert), "bytes: " + _show(edits))


# ---------------------------------------------------------------- damaged saves and logs
def _played() -> tuple[str, str]:
    """A Chicago Express save after 40 random decisions and the log of the whole game."""
    import random

    from railrules.interpreter import load_ruleset
    from railrules.interpreter.saves import save_text
    game = load_ruleset("chicago_express").new_game(3, 11)
    chooser = random.Random(11)
    for _ in range(40):
        game.apply(chooser.choice(game.legal_actions()))
    saved = save_text(game)
    while not game.is_over:
        game.apply(chooser.choice(game.legal_actions()))
    return saved, json.dumps(game.log())


SAVE_TEXT, LOG_TEXT = _played()
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-2**70, max_value=2**70)
    | st.floats(allow_nan=True, allow_infinity=True) | st.text(max_size=8)
    | st.sampled_from(["p1", "p2", "bank", "pass", "game", "take"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=6)


def _nodes(data, path=()):
    """Every place in the JSON data: (path, value)."""
    yield path, data
    items = data.items() if isinstance(data, dict) else enumerate(data) if isinstance(data, list) else ()
    for k, v in items:
        yield from _nodes(v, path + (k,))


def _damage(text: str, draw) -> str:
    """One or more edits of the JSON: a value replaced, a key deleted or an item repeated; or
    the text cut or given random bytes."""
    how = draw(st.sampled_from(["replace", "replace", "replace", "delete", "repeat", "cut", "bytes"]))
    if how == "cut":
        return text[:int(len(text) * draw(st.floats(0, 1)))]
    if how == "bytes":
        at = int(len(text) * draw(st.floats(0, 1)))
        return text[:at] + draw(st.text(min_size=1, max_size=6)) + text[at:]
    data = json.loads(text)
    for _ in range(draw(st.integers(1, 3))):
        places = [p for p, _ in _nodes(data) if p]
        path = draw(st.sampled_from(places))
        parent = data
        for k in path[:-1]:
            parent = parent[k]
        if how == "delete":
            del parent[path[-1]]
        elif how == "repeat" and isinstance(parent, list):
            parent.insert(path[-1], parent[path[-1]])
        else:
            parent[path[-1]] = draw(JSON_VALUES)
    return json.dumps(data)


def _no_internal_error(argv: list) -> None:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    printed = out.getvalue() + err.getvalue()
    assert code in (0, 1), printed[-2000:]
    assert "Traceback" not in printed and "internal error" not in printed, printed[-2000:]


SAVE_FUZZ = settings(max_examples=EXAMPLES * 2, deadline=20_000, derandomize=False,
                     suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@contextlib.contextmanager
def _damaged(text: str, draw, name: str):
    """A damaged copy of ``text`` in a file of its own: its path (counted as a case)."""
    with tempfile.TemporaryDirectory(prefix="rrfuzz-") as tmp:
        path = Path(tmp) / name
        path.write_text(_damage(text, draw), encoding="utf-8")
        yield path
    STATS["cases"] += 1


@SAVE_FUZZ
@given(st.data())
def test_a_damaged_save_loads_as_a_game_or_is_a_railrules_error(data):
    from railrules.interpreter.errors import RailrulesError
    from railrules.interpreter.saves import save_text
    from railrules.interpreter.saves import load_save
    with _damaged(SAVE_TEXT, data.draw, "damaged.save.json") as path:
        try:
            game = load_save(path)
        except RailrulesError as err:     # the contract: a coded error, nothing else
            STATS["codes"].update(d.code for d in err.diagnostics)
        else:   # what loads is a game that plays on and saves as it loaded
            game.legal_actions()
            saved = json.loads(path.read_text(encoding="utf-8"))["state"]["history"]
            assert json.loads(save_text(game))["state"]["history"] == saved
        _no_internal_error(["render", "--resume", str(path)])


@SAVE_FUZZ
@given(st.data())
def test_a_damaged_log_replays_or_is_a_railrules_error(data):
    with _damaged(LOG_TEXT, data.draw, "damaged.log.json") as path:
        _no_internal_error(["replay", str(path)])
        _no_internal_error(["render", "--log", str(path)])


# ---------------------------------------------------------------- growth under the governor
GROWTH = [   # statements that grow a value each round: text, shared lists, nesting, work
    'set s = "{s}{s}"', "set s = s + s", "set xs = [xs, xs]", "set xs = [xs]", "set xs = xs + xs",
    "set xs = sort(xs + [count(xs)], x => 0 - x)", "set xs = flatten([xs, xs])",
    "set xs = unique(xs + range(0, count(xs) + 1))", 'log "{xs} {s}"', "add count(xs) to xs",
]
GROWTH_GAME = ('game:\n    cite "Fuzz rulebook: it grows."\n    let s = "ab"\n    let xs = [1]\n'
               "    {loop}\n{body}    end_game \"done\"\n\nscore p = p.cash\n")


@settings(max_examples=40, deadline=10_000, derandomize=False, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(GROWTH), min_size=1, max_size=3),
       st.sampled_from(["while true:", "repeat {n} times:"]), st.integers(0, 10 ** 12),
       st.sampled_from([100, 10_000, 1_000_000]))
def test_growing_values_stop_with_a_governor_error_at_their_rule(body, loop, rounds, steps):
    """Whatever grows, a game either ends or stops with RR302, RR303 or RR312 at a line of the
    rules, never a Python error or a run without end (Hypothesis's deadline)."""
    from railrules.interpreter import RulesRuntimeError, load_ruleset
    from test_hostile import ruleset
    rules = GROWTH_GAME.format(loop=loop.format(n=rounds), body="".join(f"        {s}\n" for s in body))
    with tempfile.TemporaryDirectory(prefix="rrfuzz-") as tmp:
        meta = ("name: grows\ntitle: Grows\nplayers: {min: 1, max: 1}\nrules: [main.rules]\n"
                f"components: components.yaml\nlimits: {{steps: {steps}, decisions: 50}}\n")
        rs = load_ruleset(str(ruleset(Path(tmp), rules=rules, meta=meta)))
        try:
            rs.new_game(1, 0)
        except RulesRuntimeError as err:
            d = err.diagnostics[0]
            assert d.code in ("RR302", "RR303", "RR312") and d.pos.file.endswith("main.rules"), str(d)
            assert 5 <= d.pos.line <= 5 + len(body) and "Error" not in d.message, str(d)
            STATS["codes"].add(d.code)
        else:
            assert loop.startswith("repeat")
    STATS["cases"] += 1
