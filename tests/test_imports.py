"""Every module has one import name: ``railrules.…``. The checkout is not put on ``sys.path`` by
the tests, so ``interpreter`` or ``tools`` imported as top-level packages (a second copy of every
module, with classes that are not the same classes) would fail here rather than pass by chance."""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_no_module_of_the_package_is_loaded_under_a_second_name():
    import railrules.tools.cli  # noqa: F401 - the command and everything it imports at start
    doubles = sorted(m for m in sys.modules if m.split(".")[0] in ("interpreter", "tools", "rulesets"))
    assert doubles == []


def test_the_package_imports_from_outside_the_checkout(tmp_path):
    """From another folder (the checkout not on sys.path), the installed name is the one."""
    code = ("import sys, railrules.interpreter, railrules.tools.generated; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('interpreter', 'tools')))")
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_the_tests_import_their_helpers_by_one_name():
    """pytest puts tests/ on sys.path: a helper module is `test_language`, never
    `tests.test_language` (a second copy under `python -m pytest`, and no module at all under
    the plain `pytest` command, which does not put the checkout on sys.path)."""
    wrong = []
    for path in sorted((ROOT / "tests").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [node.module or ""] if isinstance(node, ast.ImportFrom) else \
                [a.name for a in node.names] if isinstance(node, ast.Import) else []
            wrong += [f"{path.name}:{node.lineno} {m}" for m in names if m.split(".")[0] == "tests"]
    assert wrong == []


def test_a_module_that_lists_its_public_names_lists_them_all():
    """A module of the interpreter with ``__all__`` names there every public function and class
    it defines."""
    missing = []
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        listed = next((ast.literal_eval(node.value) for node in tree.body if isinstance(node, ast.Assign)
                       and any(getattr(t, "id", None) == "__all__" for t in node.targets)), None)
        if listed is None:
            continue
        public = {node.name for node in tree.body if isinstance(node, (ast.FunctionDef, ast.ClassDef))
                  and not node.name.startswith("_")}
        missing += [f"{path.relative_to(ROOT)}: {name}" for name in sorted(public - set(listed))]
    assert missing == []


PACKAGE = ROOT / "interpreter"


def _part(path: Path) -> str:
    """The part of interpreter/ a file belongs to: its subpackage, or its own name at the top."""
    rel = path.relative_to(PACKAGE).parts
    return rel[0] if len(rel) > 1 else path.stem


def _imported_parts(path: Path) -> set:
    """The parts of interpreter/ that a file imports, anywhere in it (inside functions too)."""
    here = list(path.relative_to(PACKAGE).parts[:-1])    # the file's package, below interpreter/
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        targets = []
        if isinstance(node, ast.ImportFrom) and node.level:
            base = here[:len(here) - (node.level - 1)] if node.level > 1 else here
            assert node.level - 1 <= len(here), f"{path}: import above interpreter/"
            module = node.module.split(".") if node.module else []
            targets = [base + module + ([a.name] if not module and not base else []) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("railrules.interpreter."):
            targets = [node.module.split(".")[2:]]
        elif isinstance(node, ast.Import):
            targets = [a.name.split(".")[2:] for a in node.names if a.name.startswith("railrules.interpreter.")]
        found |= {t[0] for t in targets if t}
    return found


def _graph() -> dict:
    """part of interpreter/ -> the other parts it imports (the package's __init__, its public
    face that imports them all, left out)."""
    graph: dict = {}
    for path in PACKAGE.rglob("*.py"):
        if path.parent == PACKAGE and path.stem == "__init__":
            continue
        graph.setdefault(_part(path), set()).update(_imported_parts(path) - {_part(path)})
    return graph


def _cycle(graph: dict) -> list:
    """One cycle of the graph as a path (a, b, ..., a), or [] if there is none."""
    state: dict = {}

    def visit(node, path):
        state[node] = "open"
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == "open":
                return path[path.index(nxt):] + [nxt] if nxt in path else [node, nxt]
            if nxt not in state:
                found = visit(nxt, path + [nxt])
                if found:
                    return found
        state[node] = "done"
        return []
    for node in sorted(graph):
        if node not in state:
            found = visit(node, [node])
            if found:
                return found
    return []


def test_the_import_graph_finds_a_cycle_when_there_is_one():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) == []


def test_no_two_parts_of_the_interpreter_import_each_other():
    graph = _graph()
    assert {"dsl", "compile", "engine", "runtime", "data", "board"} <= graph.keys()
    assert "dsl" in graph["data"] and "runtime" in graph["engine"]   # the walk sees imports
    cycle = _cycle(graph)
    assert cycle == [], "import cycle between parts of interpreter/: " + " -> ".join(cycle)


def test_the_engine_stands_on_the_runtime_floor_only():
    """engine/ imports only runtime/, board/ and errors; runtime/ imports nothing above it."""
    graph = _graph()
    assert graph["engine"] <= {"runtime", "board", "errors"}, graph["engine"]
    assert graph["runtime"] <= {"errors"}, graph["runtime"]


def test_the_compiler_stands_on_the_language_and_the_runtime():
    """compile/ (the one back end) reads the language's trees and writes code over the runtime;
    neither of those, nor the engine, imports it."""
    graph = _graph()
    assert graph["compile"] <= {"dsl", "runtime", "errors"}, graph["compile"]
    assert [part for part in ("dsl", "runtime", "engine") if "compile" in graph[part]] == []
