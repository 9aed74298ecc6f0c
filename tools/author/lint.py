"""`railrules lint`: every problem in a ruleset, with file, line, column and code."""
from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import re
from pathlib import Path

from railrules.interpreter.data import kept
from railrules.interpreter.errors import Diagnostic, Pos, RulesetError, Sink
from railrules.interpreter.paths import rulesets_dir, shipped_rulesets

from railrules.tools.common.heap import settled_heap

# The loader, the YAML reader and the parser are imported where they are used: a lint read back
# from the user cache needs none of them (most of the time of its command).


def missing_paths(paths: list[str]) -> list[str]:
    """The paths named that are neither a file or folder nor a shipped ruleset's name."""
    absent = [p for p in paths if not Path(p).exists()]
    if not absent:
        return []
    from railrules.interpreter.data.ruleset import resolve_ruleset_path
    return [p for p in absent if resolve_ruleset_path(p) is None]


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
    An error with which the ruleset does not load is reported whatever silences it (its hint
    says so): a ruleset that lint passes is one that play, test and simulate accept.

    Without ``play``, what lint finds is kept in the user cache, and what it finds in each
    ruleset folder too (:func:`_kept`): an edited ruleset is linted afresh, the others read back.
    """
    with settled_heap():
        return _kept("lint", [list(paths), list(variants), select, ignore], play,
                     lambda: _lint_paths(paths, play, variants, select, ignore))


def _kept(kind: str, key: list, play: int, make) -> list[Diagnostic]:
    """What ``make()`` finds, kept in the user cache as an entry of ``kind`` for ``key`` (with
    the working folder: the paths shown depend on it) and read back while every answer the file
    system gave it is the same (:func:`kept.remembered`): each file read, and the ruleset files
    in each folder linted (one added, removed or edited is linted afresh). A lint that plays
    (``play`` games) is not kept, nor one that reached a limit of Python (RR311)."""
    if play:
        return make()
    stored = kept.entry(kind, _own_source(), json.dumps(key, default=str), here=True)
    return kept.remembered(stored, make, keep=lambda found: not any(d.code == "RR311" for d in found))


@functools.cache
def _own_source() -> str:
    """A hash of the code of lint beyond the interpreter's (this module and the scenarios')."""
    here = Path(__file__).parent
    return hashlib.sha256(b"".join((here / name).read_bytes() for name in ("lint.py", "scenario_lint.py"))).hexdigest()


def _lint_paths(paths, play, variants, select, ignore) -> list[Diagnostic]:
    diags: list[Diagnostic] = []
    done: dict[Path, list[Diagnostic]] = {}

    def whole(root: Path) -> list[Diagnostic]:
        if root not in done:
            done[root] = _kept("lint-ruleset", [str(root), list(variants), select, ignore], play,
                               lambda: _lint_root(root, play, variants, select, ignore))
        return done[root]

    for path in paths or kept.shipped():
        named = Path(path)
        users = library_users(named) if named.suffix == ".rules" and kept.is_file(named) else None
        if users:
            diags += [d for root in users for d in whole(root) if _in_file(d, named)]
            continue
        root = kept.around(path)
        if root is None:
            kept.files_under(named)
            diags += unsuppressed(chosen(_lint_loose(path), select or [], ignore or []))
            continue
        if kept.is_file(named) and kept.resolved(named) != root / "ruleset.yaml":
            diags += [d for d in whole(root) if _in_file(d, named) or d.severity == "error"]
        else:
            diags += whole(root)
        if named.suffix == ".rules" and kept.is_file(named) and kept.resolved(named) in unlisted_rules(root):
            diags += unsuppressed(_lint_loose(path))
    return _unique(diags)


def _lint_root(root: Path, play: int, variants, select, ignore) -> list[Diagnostic]:
    """What lint reports of one ruleset folder (its files, ``variants`` over it)."""
    from railrules.interpreter.data.ruleset import check_ruleset
    kept.files_under(root)
    found = lint_ruleset(str(root), play)
    for variant in variants:
        _, vd = check_ruleset(str(root), variant)
        found += [d for d in vd if d not in found]
    config = lint_config(root)
    return _reported(root, found, config["select"] if select is None else select,
                     config["ignore"] if ignore is None else ignore)


def _reported(root: Path, found: list[Diagnostic], select: list[str], ignore: list[str]) -> list[Diagnostic]:
    """What lint reports of a ruleset's diagnostics: those that ``select``, ``ignore`` and the
    lines' ``# lint: ignore`` leave, and every error with which the ruleset (or a variant of
    it) does not load, which nothing silences."""
    kept = unsuppressed(chosen(found, select, ignore))
    return kept + still_blocking(root, [d for d in found if d not in kept])


def still_blocking(root: Path, silenced: list[Diagnostic], texts: dict | None = None) -> list[Diagnostic]:
    """The errors among ``silenced`` (by an ignore) with which the ruleset, or a variant of its
    variants/ folder, does not load, each with a hint that says so: no ignore silences them.
    ``texts``: files read instead of those on disk (an editor's buffers)."""
    silenced = [d for d in silenced if d.severity == "error"]
    if not silenced:
        return []
    from railrules.interpreter.data.ruleset import load_ruleset
    stops: list[Diagnostic] = []
    for variant in [None, *sorted(p.stem for p in (root / "variants").glob("*.yaml"))]:
        try:
            load_ruleset(str(root), variant, texts=texts)
        except RulesetError as err:
            stops += err.diagnostics
    return [dataclasses.replace(d, hint=(f"{d.hint}; " if d.hint else "") + "an ignore cannot silence "
                                "this error: the ruleset does not load with it (play, test and simulate refuse it)")
            for d in silenced if d in stops]


def lint_config(root: Path) -> dict:
    """The ``lint:`` section of a ruleset's ruleset.yaml: {"select": [...], "ignore": [...]}."""
    from railrules.interpreter.data.yaml_source import load_yaml
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
    kept.files_under(rulesets_dir())   # (while a lint is kept) the rulesets that list it
    rel = "library/" + p.relative_to(library).as_posix()
    roots = [rulesets_dir() / name for name in shipped_rulesets()]
    return [root for root in roots if rel in (listed_rules(root) or ())]


def lint_ruleset(root: str, play: int = 0) -> list[Diagnostic]:
    """Everything lint says about one ruleset folder: rules, YAML, variants, scenarios, and
    .rules files that nothing lists."""
    from railrules.interpreter.data.ruleset import check_ruleset
    from railrules.tools.author.scenario_lint import display, lint_scenario
    ruleset, diags = check_ruleset(root)
    out = list(diags)
    out += [Diagnostic("RR207", "this .rules file is listed by neither ruleset.yaml nor any "
                       "variant: it is never loaded", Pos(display(f), 0, 0), "warning",
                       "add it to the rules: list of ruleset.yaml (or of a variant), or delete it")
            for f in sorted(unlisted_rules(Path(root)))]
    variants: dict = {}
    if ruleset is not None:
        from railrules.tools.bots.players import lint_bots
        out += lint_bots(ruleset)
        for folder in ruleset.layers:   # (while a lint is kept) their variants/ folders
            kept.files_under(folder)
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
    from railrules.interpreter.data.yaml_source import load_yaml
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
    from railrules.interpreter.data.yaml_source import utf8_text
    from railrules.interpreter.dsl.parser import parse_rules
    p = Path(path)
    if not p.exists():
        return [Diagnostic("RR206", f"no ruleset or file '{path}'", Pos(path, 0, 0),
                           hint=f"shipped rulesets: {', '.join(kept.shipped())}")]
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
    from railrules.interpreter.data.ruleset import ruleset_around
    folders = {ruleset_around(p) or Path(p) for p in paths or shipped_rulesets()} | {rulesets_dir() / "library"}
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



# ------------------------------------------------------------------ the verb: railrules lint
def add_arguments(parser) -> None:
    parser.description = ("Report every problem as file:line:col: severity CODE message. Exit 0 when "
                          "clean, 1 on errors, 2 on usage errors. No PATH: every shipped ruleset.")
    parser.add_argument("paths", nargs="*", help="ruleset names, folders, or files inside them")
    parser.add_argument("--format", choices=["text", "json", "sarif"], default="text")
    parser.add_argument("--errors-only", action="store_true", help="hide warnings")
    parser.add_argument("--variant", action="append", metavar="NAME_OR_FILE",
                        help="also check this variant over each ruleset: a variant's name, or the path "
                        "of a variant YAML file anywhere (repeatable)")
    parser.add_argument("--play", type=parser.count(0), default=0, metavar="N",
                        help="also run N seeded random games: dead ends, step budget, conservation, "
                        "options and end conditions never reached (default 0: off)")
    parser.add_argument("--select", action="append", metavar="CODES",
                        help="report only these codes or prefixes (RR1,RR207; repeatable); replaces the "
                        "lint: select of ruleset.yaml")
    parser.add_argument("--ignore", action="append", metavar="CODES",
                        help="do not report these codes or prefixes (repeatable); replaces the lint: "
                        "ignore of ruleset.yaml. One line: end it with # lint: ignore[RR207]")
    parser.add_argument("--fix", action="store_true", help="make the fixes a did-you-mean hint gives (the "
                        "misspelt name replaced), then lint again")
    parser.add_argument("--diff", action="store_true", help="print the fixes --fix would make as a unified "
                        "diff; write nothing (exit 1 if any)")
    parser.add_argument("--watch", action="store_true",
                        help="lint again whenever a file of the rulesets changes, until Ctrl-C")


def run(args) -> int:
    import sys

    from railrules.tools.author import fixes
    from railrules.tools.common import diagnostics
    from railrules.tools.common.verbs import EXIT_FAIL, EXIT_OK, EXIT_USAGE
    for path in missing_paths(args.paths):
        print(f"railrules lint: no ruleset, folder or file '{path}' (shipped rulesets: "
              f"{', '.join(shipped_rulesets())})", file=sys.stderr)
        return EXIT_USAGE

    def codes(values):
        return None if values is None else [c.strip() for v in values for c in v.split(",") if c.strip()]

    def once() -> int:
        diags = lint_paths(args.paths, args.play, args.variant or [], codes(args.select), codes(args.ignore))
        if args.diff:
            patch = fixes.diff(diags)
            print(patch, end="")
            return EXIT_FAIL if patch else EXIT_OK
        if args.fix:
            made = fixes.write(diags)
            if made:
                print(f"fixed {made} problem(s)", file=sys.stderr)
                diags = lint_paths(args.paths, args.play, args.variant or [], codes(args.select), codes(args.ignore))
        shown = [d for d in diags if d.severity == "error"] if args.errors_only else diags
        out = diagnostics.render(shown, args.format)
        if out:
            print(out)
        errors = sum(d.severity == "error" for d in diags)
        if args.format == "text":
            fixable = sum(fixes.fix_of(d) is not None for d in diags)
            print(f"{errors} error(s), {len(diags) - errors} warning(s)"
                  + (f"; {fixable} fixable with --fix" if fixable else ""), file=sys.stderr, flush=True)
        return EXIT_FAIL if errors else EXIT_OK

    if args.watch:
        try:
            watch(args.paths, once)
        except KeyboardInterrupt:
            pass
        return EXIT_OK
    return once()
