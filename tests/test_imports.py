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
    code = ("import sys, railrules.interpreter, railrules.tools.author.generated; "
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


# ------------------------------------------------------------------ the rooms of tools/
TOOLS = ROOT / "tools"
# room -> the rooms of tools/ it may import (the interpreter is open to every room)
MAY_IMPORT = {
    "cli": {"author", "play", "bots", "lab", "pictures", "agents", "common", "completion"},
    "completion": set(),
    "author": {"bots", "pictures", "common"},
    "play": {"bots", "pictures", "common"},
    "lab": {"author", "bots", "pictures", "common"},     # bench times lint
    "agents": {"bots", "pictures", "common", "lab"},
    "bots": {"common"},
    "pictures": {"common"},
    "common": set(),
}


def _room(module: str) -> str:
    """tools.author.lint -> author; tools.cli -> cli; tools.play.serve.app -> play.serve."""
    parts = module.split(".")[1:]
    if parts[:2] == ["play", "serve"]:
        return "play.serve"
    return parts[0] if parts else "tools"


def _tools_imports(path: Path, root: Path = TOOLS) -> list:
    """(module imported below tools, names taken from it) for every import in a file, inside
    functions too; relative imports resolved against the file's package."""
    package = ["tools"] + list(path.relative_to(root).parts[:-1])
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = (node.module or "").removeprefix("railrules.")
            if module.split(".")[0] != "tools":
                continue
            names = [a.name for a in node.names]
            if module == "tools":       # from railrules.tools import cli
                found += [(f"tools.{n}", []) for n in names]
            else:
                found.append((module, names))
        elif isinstance(node, ast.Import):
            found += [(a.name.removeprefix("railrules."), []) for a in node.names
                      if a.name.removeprefix("railrules.").split(".")[0] == "tools"]
    return found


def _room_of_file(path: Path, root: Path = TOOLS) -> str:
    return _room(".".join(["tools"] + list(path.relative_to(root).with_suffix("").parts)))


def _layer_violations(root: Path = TOOLS) -> list:
    """Every import of tools/ that breaks the table above, as 'file: imports module (why)'."""
    wrong = []
    for path in sorted(root.rglob("*.py")):
        here = _room_of_file(path, root)
        if here == "tools":
            continue
        for module, names in _tools_imports(path, root):
            there = _room(module)
            rel = path.relative_to(root)
            if there == "cli":
                wrong.append(f"{rel}: imports {module} (nothing imports the CLI)")
            elif here == "play.serve" and there not in ("play", "play.serve", "common"):
                wrong.append(f"{rel}: imports {module} (the browser server imports only the play room "
                             "and common)")
            elif there.split(".")[0] != here.split(".")[0] and here != "play.serve" \
                    and there.split(".")[0] not in MAY_IMPORT[here.split(".")[0]]:
                wrong.append(f"{rel}: imports {module} ({here} may import {sorted(MAY_IMPORT[here])})")
            wrong += [f"{rel}: imports the private name {module}.{n}" for n in names
                      if n.startswith("_") and not n.startswith("__")]
    return wrong


def test_every_module_of_tools_lives_in_a_room():
    loose = [p.name for p in TOOLS.glob("*.py") if p.stem not in ("__init__", "cli", "completion")]
    assert loose == []
    rooms = [p for p in TOOLS.iterdir() if p.is_dir() and (p / "__init__.py").exists()]
    assert {p.name for p in rooms} == set(MAY_IMPORT) - {"cli", "completion"}
    for room in rooms:
        doc = ast.get_docstring(ast.parse((room / "__init__.py").read_text(encoding="utf-8")))
        assert doc and "May import" in doc, f"{room.name}/__init__.py says what it holds and may import"


def test_the_rooms_of_tools_import_only_down():
    assert _layer_violations() == []


def test_the_room_rule_finds_a_planted_violation(tmp_path):
    """A copy of tools/ with three wrong imports planted: each is reported."""
    import shutil
    copy = tmp_path / "tools"
    shutil.copytree(TOOLS, copy, ignore=shutil.ignore_patterns("static", "vscode", "__pycache__"))
    (copy / "bots" / "planted.py").write_text("from railrules.tools.lab import compare\n", encoding="utf-8")
    (copy / "pictures" / "planted.py").write_text("def f():\n    from ..cli import main\n", encoding="utf-8")
    (copy / "play" / "serve" / "planted.py").write_text(
        "from railrules.tools.bots.players import _settings\n", encoding="utf-8")
    wrong = _layer_violations(copy)
    assert wrong == ["bots/planted.py: imports tools.lab (bots may import ['common'])",
                     "pictures/planted.py: imports tools.cli (nothing imports the CLI)",
                     "play/serve/planted.py: imports tools.bots.players (the browser server imports "
                     "only the play room and common)",
                     "play/serve/planted.py: imports the private name tools.bots.players._settings"]
