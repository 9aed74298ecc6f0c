"""`railrules lint`: every problem in a ruleset, with file, line, column and code."""
from __future__ import annotations

import re
from pathlib import Path

from railrules.interpreter import check_ruleset
from railrules.interpreter.data.ruleset import resolve_ruleset_path
from railrules.interpreter.data.yaml_source import load_yaml, utf8_text
from railrules.interpreter.dsl.parser import parse_rules
from railrules.interpreter.errors import Diagnostic, Pos, Sink
from railrules.interpreter.paths import rulesets_dir, shipped_rulesets

from railrules.tools.common.heap import settled_heap


def _ruleset_root(path: str) -> Path | None:
    found = resolve_ruleset_path(path)
    if found:
        return found
    p = Path(path).resolve()
    if not p.exists():
        return None
    for parent in [p, *p.parents]:
        if (parent / "ruleset.yaml").is_file():
            return parent
    return None


def missing_paths(paths: list[str]) -> list[str]:
    """The paths named that are neither a file or folder nor a shipped ruleset's name."""
    return [p for p in paths if not Path(p).exists() and resolve_ruleset_path(p) is None]


def lint_paths(paths: list[str], play: int = 0, variants: list[str] | tuple[()] = (),
               select: list[str] | None = None, ignore: list[str] | None = None) -> list[Diagnostic]:
    """Lint rulesets (names, folders, or files inside them) and loose .rules files.

    A ruleset's lint covers its rules, YAML, variants and scenarios, and warns about .rules
    files in its folder that nothing lists; a .rules file named here that nothing lists is
    also parsed on its own, so that its syntax errors are reported. A file named alone is
    checked as part of its ruleset: its own diagnostics are reported, and the errors of the
    other files (they stop the ruleset from loading). A file of the shared library is checked
    with every shipped ruleset that lists it, its diagnostics reported once. ``variants``
    (names or paths of variant files) are checked over each ruleset as its shipped variants are.

    What is reported is chosen as ruff does: ``select`` and ``ignore`` (codes or prefixes)
    replace the ``lint:`` section of each ruleset's ruleset.yaml; a diagnostic on a line that
    ends with ``# lint: ignore[CODE, ...]`` (or ``# lint: ignore``: every code) is left out.
    """
    with settled_heap():
        diags = _lint_paths(paths, play, variants, select, ignore)
    return unsuppressed(diags)


def _lint_paths(paths, play, variants, select, ignore) -> list[Diagnostic]:
    diags: list[Diagnostic] = []
    done: dict[Path, list[Diagnostic]] = {}

    def whole(root: Path) -> list[Diagnostic]:
        if root not in done:
            found = lint_ruleset(str(root), play)
            for variant in variants:
                _, vd = check_ruleset(str(root), variant)
                found += [d for d in vd if d not in found]
            config = lint_config(root)
            done[root] = chosen(found, config["select"] if select is None else select,
                                config["ignore"] if ignore is None else ignore)
        return done[root]

    for path in paths or shipped_rulesets():
        named = Path(path)
        users = library_users(named) if named.suffix == ".rules" and named.is_file() else None
        if users:
            diags += [d for root in users for d in whole(root) if _in_file(d, named)]
            continue
        root = _ruleset_root(path)
        if root is None:
            diags += chosen(_lint_loose(path), select or [], ignore or [])
            continue
        if named.is_file() and named.resolve() != root / "ruleset.yaml":
            diags += [d for d in whole(root) if _in_file(d, named) or d.severity == "error"]
        else:
            diags += whole(root)
        if named.suffix == ".rules" and named.is_file() and named.resolve() in unlisted_rules(root):
            diags += _lint_loose(path)
    return _unique(diags)


def lint_config(root: Path) -> dict:
    """The ``lint:`` section of a ruleset's ruleset.yaml: {"select": [...], "ignore": [...]}."""
    try:
        data, _ = load_yaml((root / "ruleset.yaml").read_text(encoding="utf-8"), "ruleset.yaml", Sink())
    except (OSError, UnicodeDecodeError):
        data = None
    section = data.get("lint") if isinstance(data, dict) else None
    section = section if isinstance(section, dict) else {}
    return {k: [c for c in section.get(k) or [] if isinstance(c, str)] for k in ("select", "ignore")}


def chosen(diags: list[Diagnostic], select: list[str], ignore: list[str]) -> list[Diagnostic]:
    """The diagnostics whose code starts with one of ``select`` (all when empty) and with none
    of ``ignore``; as in ruff, the longer prefix wins (``--ignore RR1 --select RR102``)."""
    def best(code: str, prefixes: list[str]) -> int:
        return max((len(p) for p in prefixes if code.startswith(p)), default=-1)
    out = []
    for d in diags:
        picked = best(d.code, select) if select else 0
        if picked >= 0 and picked >= best(d.code, ignore):
            out.append(d)
    return out


_SUPPRESS = re.compile(r"#\s*lint:\s*ignore(?:\[([^\]]*)\])?")


def suppressed(d: Diagnostic, text: str) -> bool:
    """Whether the diagnostic's line of ``text`` (its file's) ends with ``# lint:
    ignore[CODE, ...]`` naming its code, or ``# lint: ignore`` (every code)."""
    lines = text.split("\n")
    if not 1 <= d.pos.line <= len(lines):
        return False
    found = _SUPPRESS.search(lines[d.pos.line - 1])
    if found is None:
        return False
    codes = found.group(1)
    return codes is None or d.code in {c.strip() for c in codes.split(",")}


def unsuppressed(diags: list[Diagnostic]) -> list[Diagnostic]:
    texts: dict[str, str] = {}
    out = []
    for d in diags:
        if d.pos.line >= 1 and d.pos.file not in texts:
            try:
                texts[d.pos.file] = Path(d.pos.file).read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                texts[d.pos.file] = ""
        if d.pos.line < 1 or not suppressed(d, texts[d.pos.file]):
            out.append(d)
    return out


def _in_file(d: Diagnostic, path: Path) -> bool:
    try:
        return Path(d.pos.file).resolve() == path.resolve()
    except (OSError, ValueError):
        return False


def _unique(diags: list[Diagnostic]) -> list[Diagnostic]:
    seen: set = set()
    out = []
    for d in diags:
        key = (d.code, d.severity, d.message, d.pos.file, d.pos.line, d.pos.column)
        if key not in seen:
            seen.add(key)
            out.append(d)
    return out


def library_users(path: Path) -> list[Path]:
    """The shipped rulesets whose ruleset.yaml or a variant lists ``path``, a file of the
    shared library (empty for any other file)."""
    library = (rulesets_dir() / "library").resolve()
    p = path.resolve()
    if not p.is_relative_to(library):
        return []
    rel = "library/" + p.relative_to(library).as_posix()
    roots = [rulesets_dir() / name for name in shipped_rulesets()]
    return [root for root in roots if rel in (listed_rules(root) or ())]


def lint_ruleset(root: str, play: int = 0) -> list[Diagnostic]:
    """Everything lint says about one ruleset folder: rules, YAML, variants, scenarios, and
    .rules files that nothing lists."""
    from railrules.tools.author.scenario_lint import display, lint_scenario
    ruleset, diags = check_ruleset(root)
    out = list(diags)
    out += [Diagnostic("RR207", "this .rules file is listed by neither ruleset.yaml nor any "
                       "variant: it is never loaded", Pos(display(f), 0, 0), "warning",
                       "add it to the rules: list of ruleset.yaml (or of a variant), or delete it")
            for f in sorted(unlisted_rules(Path(root)))]
    variants: dict = {}
    if ruleset is not None:
        if play:
            from railrules.interpreter.checks.play_check import play_check
            out += play_check(ruleset, play)
        for variant in ruleset.variants():
            variants[variant], vd = check_ruleset(root, variant)
            out += [d for d in vd if d not in out]
    for path in sorted((Path(root) / "scenarios").glob("*.yaml")):
        out += lint_scenario(path, ruleset, variants.get)
    return out


def listed_rules(root: Path) -> set[str] | None:
    """The rules files ruleset.yaml and the variants list, as written there (None when
    ruleset.yaml cannot be read)."""
    listed: set[str] = set()
    for meta in [root / "ruleset.yaml", *sorted((root / "variants").glob("*.yaml"))]:
        try:
            data, _ = load_yaml(meta.read_text(encoding="utf-8"), str(meta), Sink())
        except (OSError, UnicodeDecodeError):
            data = None
        if not isinstance(data, dict) or not isinstance(data.get("rules"), list):
            if meta.name == "ruleset.yaml":
                return None
            continue
        listed |= {f for f in data["rules"] if isinstance(f, str)}
    return listed


def unlisted_rules(root: Path) -> set[Path]:
    """The .rules files under ``root`` that neither ruleset.yaml nor a variant lists (empty
    when ruleset.yaml cannot be read: then lint reports that instead)."""
    root = Path(root).resolve()
    listed = listed_rules(root)
    if listed is None:
        return set()
    found = {p.resolve() for p in root.rglob("*.rules")
             if not any(part.startswith(".") for part in p.relative_to(root).parts)}
    return found - {(root / f).resolve() for f in listed}


def _lint_loose(path: str) -> list[Diagnostic]:
    p = Path(path)
    if not p.exists():
        return [Diagnostic("RR206", f"no ruleset or file '{path}'", Pos(path, 0, 0),
                           hint=f"shipped rulesets: {', '.join(shipped_rulesets())}")]
    if p.suffix != ".rules":
        hint = (f"to lint a variant file, name its ruleset: railrules lint RULESET --variant {path}"
                if p.suffix in (".yaml", ".yml") else None)
        return [Diagnostic("RR206", f"'{path}' is not inside a ruleset folder (no ruleset.yaml above it)",
                           Pos(path, 0, 0), hint=hint)]
    sink = Sink()
    text, problem = utf8_text(p.read_bytes(), path, path)
    if problem:
        return [problem]
    assert text is not None  # utf8_text gives the text or the problem
    parse_rules(text, path, sink)
    return sink.diagnostics


def watched_files(paths: list[str]) -> dict[Path, float]:
    """Every file lint reads for ``paths`` (the rulesets' folders, the shared library, loose
    files), with its modification time."""
    folders = {_ruleset_root(p) or Path(p) for p in paths or shipped_rulesets()} | {rulesets_dir() / "library"}
    out: dict[Path, float] = {}
    for folder in folders:
        files = [folder] if folder.is_file() else folder.rglob("*") if folder.is_dir() else []
        for f in files:
            if f.suffix in (".rules", ".yaml", ".yml"):
                try:
                    out[f] = f.stat().st_mtime_ns
                except OSError:
                    pass
    return out


def watch(paths: list[str], run, interval: float = 0.5, rounds: int | None = None, sleep=None) -> None:
    """``run()`` now and again after each change of a file of ``paths`` (``--watch``), until
    Ctrl-C (or ``rounds`` polls, for tests)."""
    import time
    sleep = sleep or time.sleep
    seen = watched_files(paths)
    run()
    polls = 0
    while rounds is None or polls < rounds:
        sleep(interval)
        polls += 1
        now = watched_files(paths)
        if now != seen:
            changed = sorted(str(f) for f in set(now) | set(seen) if now.get(f) != seen.get(f))
            print(f"\n-- changed: {', '.join(changed[:3])}{' ...' if len(changed) > 3 else ''}", flush=True)
            seen = now
            run()

