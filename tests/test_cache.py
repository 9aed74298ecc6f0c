"""The user cache (interpreter/cache.py) only saves time: the grammar's parser tables read from
it parse as freshly built ones do, a broken or unwritable cache is ignored, and only data that
its schema accepts is marked (so an error is never hidden by a mark)."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from railrules.interpreter import cache
from railrules.interpreter.data import schema
from railrules.interpreter.dsl import parser
from railrules.interpreter.paths import rulesets_dir

RULES = sorted((rulesets_dir()).glob("*/rules/*.rules"))[:3]


def _trees(lark) -> list:
    """The parse trees of the first definition of a few shipped rules files."""
    out = []
    for path in RULES:
        text = path.read_text(encoding="utf-8")
        lines = text.split("\n")
        starts = [i for i, line in enumerate(lines) if line[:1] not in ("", " ", "\t", "#")]
        out.append(lark.parse("\n".join(lines[starts[0]:starts[1]]) + "\n"))
    return out


def test_the_grammar_tables_read_from_the_cache_parse_as_fresh_ones(folder):
    assert RULES
    fresh = parser._lark.__wrapped__()                    # built, and written to the cache
    entries = list(folder.glob("lark-*"))
    assert len(entries) == 1 and entries[0].stat().st_size > 0
    assert not list(folder.glob("*.tmp"))
    cached = parser._lark.__wrapped__()
    assert cached.source_path == "<deserialized>"         # lark's mark of tables it loaded
    assert _trees(cached) == _trees(fresh)


@pytest.mark.parametrize("junk", [b"", b"not a cache\n", b"0" * 64 + b"\n\x80\x04junk"])
def test_a_broken_entry_is_rebuilt(folder, junk):
    fresh = parser._lark.__wrapped__()
    (entry,) = folder.glob("lark-*")
    entry.write_bytes(junk)
    again = parser._lark.__wrapped__()
    assert again.source_path != "<deserialized>"
    assert _trees(again) == _trees(fresh)


def test_no_cache_when_switched_off_or_impossible(tmp_path, monkeypatch):
    monkeypatch.setenv("RAILRULES_CACHE_DIR", "")
    assert cache.cache_dir() is None and cache.entry("lark", "x") is None
    not_a_folder = tmp_path / "file"
    not_a_folder.write_text("in the way")
    monkeypatch.setenv("RAILRULES_CACHE_DIR", str(not_a_folder / "cache"))
    assert cache.entry("lark", "x") is None
    cache.mark("valid", "x")                              # nothing written, nothing raised
    assert not cache.has("valid", "x")
    assert _trees(parser._lark.__wrapped__()) == _trees(parser._lark())


def test_the_default_folder_is_the_users_cache(monkeypatch, tmp_path):
    monkeypatch.delenv("RAILRULES_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    folder = cache.cache_dir()
    assert folder is not None and folder.name == "railrules"


def test_entries_are_named_by_their_whole_content(folder):
    names = {cache.entry("valid", *parts) for parts in
             [("a", "b"), ("a", "c"), ("ab",), ("a\0b",), ("b", "a")]}
    assert len(names) == 5 and all(p is not None and p.parent == folder for p in names)
    assert cache.entry("valid", "a", "b") == cache.entry("valid", "a", "b")
    assert cache.entry("lark", "a", "b") != cache.entry("valid", "a", "b")


def test_only_data_the_schema_accepts_is_marked(folder):
    good = {"name": "x", "title": "X", "players": {"min": 2, "max": 4}, "rules": ["r.rules"],
            "components": "components.yaml"}
    assert schema.validator("ruleset").is_valid(good)
    bad = dict(good, players={"min": "two", "max": 4})
    assert not schema.validator("ruleset").is_valid(bad)
    assert not schema._accepted(bad, "ruleset") and not list(folder.glob("valid-*"))
    assert schema._accepted(good, "ruleset")
    assert len(list(folder.glob("valid-*"))) == 1
    assert schema._accepted(good, "ruleset")              # from the mark
    assert not schema._accepted(bad, "ruleset")           # the mark is the good data's only
    assert not schema._accepted(good, "variant") or schema.validator("variant").is_valid(good)
    assert len(list(folder.glob("valid-*"))) <= 2


def test_a_mark_is_not_needed_to_accept_data(folder):
    good = {"name": "x", "title": "X", "players": {"min": 2, "max": 4}, "rules": ["r.rules"],
            "components": "components.yaml"}
    assert schema._accepted(good, "ruleset")
    for mark in folder.glob("valid-*"):
        mark.unlink()
    assert schema._accepted(good, "ruleset")


ALL_RULES = sorted(rulesets_dir().glob("**/*.rules"))
BROKEN = "def ok() = 1\n\ndef bad( = 2\n\nprocedure p():\n    let x = \n"


def test_a_parse_read_from_the_cache_is_the_parse(folder):
    assert len(ALL_RULES) > 10
    for path in ALL_RULES + [Path("broken.rules")]:
        text = BROKEN if path.name == "broken.rules" else path.read_text(encoding="utf-8")
        fresh = parser._parsed(text, str(path), 0, cached=True)
        kept = parser._parsed(text, str(path), 0, cached=True)
        assert kept is not fresh and kept == fresh
        assert (kept[1] != []) == (path.name == "broken.rules")
    assert len(list(folder.glob("parse-*"))) == len(ALL_RULES) + 1
    other = parser._parsed(BROKEN, "elsewhere.rules", 0, cached=True)   # positions name the file
    assert other[1][0].pos.file == "elsewhere.rules"


def test_a_parse_is_kept_only_when_asked(folder):
    parser._parsed(BROKEN, "a.rules", 0, cached=False)
    assert not list(folder.glob("parse-*"))


def test_a_broken_parse_entry_is_parsed_again(folder):
    fresh = parser._parsed(BROKEN, "a.rules", 0, cached=True)
    (entry,) = folder.glob("parse-*")
    for junk in (b"", b"junk", __import__("pickle").dumps(("not", "a module"))):
        entry.write_bytes(junk)
        assert parser._parsed(BROKEN, "a.rules", 0, cached=True) == fresh


def test_a_parse_entry_under_another_files_name_is_not_taken(folder):
    """Two parse entries swapped: two rulesets played each other's rules, silently. An entry
    holds its own name, checked."""
    import time
    one = parser._parsed("def a(x) = x\n", "one.rules", 0, cached=True)
    (first,) = folder.glob("parse-*")
    time.sleep(0.01)
    two = parser._parsed("def b(y) = y + 1\n", "two.rules", 0, cached=True)
    (second,) = set(folder.glob("parse-*")) - {first}
    a, b = first.read_bytes(), second.read_bytes()
    first.write_bytes(b)
    second.write_bytes(a)
    assert parser._parsed("def a(x) = x\n", "one.rules", 0, cached=True) == one
    assert parser._parsed("def b(y) = y + 1\n", "two.rules", 0, cached=True) == two


def test_the_oldest_entries_of_a_kind_go_beyond_the_limit(folder):
    for i in range(7):
        path = cache.entry("parse", str(i))
        cache.store(path, b"x", keep=5)
        os.utime(path, (1000 + i, 1000 + i))    # older than the next one, whatever the clock
        cache.mark("valid", str(i))
    kept = set(folder.glob("parse-*"))
    assert kept == {cache.entry("parse", str(i)) for i in range(2, 7)}
    assert len(list(folder.glob("valid-*"))) == 7


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="POSIX permissions")
def test_a_folder_others_can_write_to_is_not_used(folder):
    assert cache.entry("lark", "x") is not None
    assert folder.stat().st_mode & 0o777 == 0o700
    folder.chmod(0o777)
    assert cache.entry("lark", "x") is None
    cache.mark("valid", "y")
    assert not list(folder.iterdir())
    folder.chmod(0o700)
    assert cache.entry("lark", "x") is not None


def _other_grammar_tables() -> bytes:
    """The tables of a parser of another grammar, as lark saves them."""
    import io
    from lark import Lark
    out = io.BytesIO()
    Lark("start: \"x\"", parser="lalr").save(out)
    return out.getvalue()


def test_an_entry_that_does_not_name_itself_is_not_taken(folder):
    """Another grammar's tables under this grammar's name were loaded, and every rules file
    parsed by them: an entry proves it is the one opened for (its name and the hash of what
    it keeps, inside)."""
    parser._lark.__wrapped__()
    (entry,) = folder.glob("lark-*")
    entry.write_bytes(_other_grammar_tables())
    again = parser._lark.__wrapped__()
    assert again.source_path != "<deserialized>" and _trees(again)
    kept = cache.load(entry)                                  # and rebuilt in its place
    assert kept is not None and kept != _other_grammar_tables()


def test_an_entry_is_checked_in_the_file_opened(folder):
    path = cache.entry("parse", "a")
    cache.store(path, b"kept")
    assert cache.load(path) == b"kept"
    data = path.read_bytes()
    other = cache.entry("parse", "b")
    assert other is not None
    other.write_bytes(data)                                   # another entry's bytes
    assert cache.load(other) is None
    path.write_bytes(data[:-1] + b"K")                        # damaged
    assert cache.load(path) is None
    assert cache.load(folder / "parse-missing") is None


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="POSIX links and permissions")
def test_a_link_a_pipe_or_an_entry_others_can_write_is_not_read(folder, tmp_path):
    """The checks are made on the file opened, not on a path that may change between a check
    and the open (a link followed, a pipe that would block the start)."""
    path = cache.entry("learned", "a")
    cache.store(path, b"kept")
    data = path.read_bytes()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.write_bytes(data)
    path.unlink()
    path.symlink_to(elsewhere)
    assert cache.load(path) is None
    path.unlink()
    os.mkfifo(path)
    assert cache.load(path) is None                           # at once: not waiting for a writer
    path.unlink()
    path.write_bytes(data)
    assert cache.load(path) == b"kept"
    path.chmod(0o666)
    assert cache.load(path) is None


def test_an_entry_is_private_whatever_the_umask(folder):
    old = os.umask(0)
    try:
        path = cache.entry("valid", "a")
        cache.mark("valid", "a")
    finally:
        os.umask(old)
    assert path is not None and path.stat().st_mode & 0o777 == 0o600 and cache.has("valid", "a")
