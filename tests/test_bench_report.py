"""`railrules bench`'s report says what its cold starts measured: with PYTHONDONTWRITEBYTECODE set
and no compiled module kept, every start compiles Python's sources (0.14 s of a 0.27 s start on
the shared box), which an installed copy does once."""
from __future__ import annotations

from railrules.tools.lab import bench

REPORT = {"rulesets": {}, "cold_start_ms": 300.0, "lint_seconds_median": 0.03, "lint_runs": 1}


def test_bench_says_when_its_cold_starts_compiled_the_sources(monkeypatch, tmp_path):
    never_compiled = tmp_path / "module.py"
    never_compiled.write_text("x = 1\n")
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    assert bench.compiles_at_start(str(never_compiled))
    assert "PYTHONDONTWRITEBYTECODE is set" in bench.describe({**REPORT, "cold_start_compiles": True})
    import py_compile
    py_compile.compile(str(never_compiled))   # kept before: read at each start, not compiled
    assert not bench.compiles_at_start(str(never_compiled))
    monkeypatch.delenv("PYTHONDONTWRITEBYTECODE")
    assert not bench.compiles_at_start(str(never_compiled))
    assert "PYTHONDONTWRITEBYTECODE" not in bench.describe({**REPORT, "cold_start_compiles": False})
