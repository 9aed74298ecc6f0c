"""Loading a ruleset folder: files -> YAML + schema -> parse -> resolve -> compile -> Ruleset.

Every stage reports to one :class:`~interpreter.errors.Sink`; a stage that found errors
stops the stages after it, and :func:`load_ruleset` raises one
:class:`~interpreter.errors.RulesetError` carrying every diagnostic. The stages' own modules (the
parser and Lark, the schema and PyYAML, the checks, the overlays) are imported where a load
first needs them: a ruleset read from the user cache imports none of them.
"""
from __future__ import annotations

import contextlib
import dataclasses
import difflib
import hashlib
import json
import re
import os
from dataclasses import dataclass, field
from pathlib import Path

from ..board.graph import Board, build_board
from ..compile.proven import prove
from ..compile.statements import Compiler, Program
from ..dsl import nodes as n
from ..dsl.scope import Names
from ..engine.machine import ConstantRun
from ..errors import Diagnostic, Pos, RulesetError, Sink
from ..paths import rulesets_dir
from ..runtime.governor import OverLimit, check_storable
from .kept import LIMIT, content, is_file, kept, resolved, shown as shown_path
from .yaml_source import Positions, copy_data, utf8_text
from ..runtime.memo import keep

DEFAULT_STEPS = 1_000_000
DEFAULT_DECISIONS = 100_000
# what an overlay folder's ruleset.yaml says of the game in place of its base's
_OVERLAY_META = ("name", "title", "rulebook", "fidelity", "players", "limits", "start_player", "guess",
                 "lint", "coverage", "extends", "description", "cite", "bots")
_EXTENDS = re.compile(r"(?m)^extends\s*:")


@dataclass
class Ruleset:
    """A loaded, compiled game: everything needed to start and run games of it."""
    name: str
    title: str
    root: Path
    variant: str | None
    meta: dict
    players_min: int
    players_max: int
    constants: dict
    variables: dict            # every variable (notes and scoped ones too) -> its starting value
    player_fields: dict
    entities: dict             # id -> starting record (with "id" and "kind")
    kinds: dict                # kind -> ids, in file order
    board: Board | None
    program: Program
    functions: dict            # def name -> compiled body
    tracked: dict              # def name -> compiled body that notes what it reads (derived values)
    conserve: list             # (name, fn)
    hash: str
    step_budget: int = DEFAULT_STEPS
    decision_budget: int = DEFAULT_DECISIONS
    names: Names = field(default_factory=lambda: Names({}, set(), {}, {}))  # what the rules may name
    places: dict = field(default_factory=dict)   # entity id -> (Positions, YAML path) for diagnostics
    meta_places: dict = field(default_factory=dict)  # file role -> Positions
    definitions: list = field(default_factory=list)
    notes: frozenset = frozenset()   # the variables of components.yaml's notes: (not summarised)
    layers: tuple = ()   # the folders it is laid from: the base first, then each that extends it
    leaks: list = field(default_factory=list)   # secrets the rules show unsaid (lint reports them)

    @property
    def secrecy(self) -> dict:
        """What the engine hides from the seats beyond secret fields (:mod:`..engine.secrecy`)."""
        return getattr(self.names, "secrecy", {})

    @property
    def proven(self) -> dict:
        """The proven types of fields (by kind) and variables (:mod:`..compile.proven`)."""
        return self.names.proven

    @property
    def start(self) -> dict:
        """What every new game starts from, as plain JSON data (cached): the entities' records,
        a player's fields and the globals. Games share these records; none is changed in place."""
        if "_start" not in self.__dict__:
            self.__dict__["_start"] = json.loads(json.dumps(
                {"entities": self.entities, "player": self.player_fields, "globals": self.variables}))
        return self.__dict__["_start"]

    @property
    def fingerprints(self) -> dict:
        """A short hash of every definition (its text, positions left out) and of every piece
        of data (constant, variable, player field, entity): a log keeps them, so that a replay
        under changed rules can say which ones changed (cached)."""
        if "_fingerprints" not in self.__dict__:
            def short(x) -> str:
                return hashlib.sha256(repr(x).encode()).hexdigest()[:10]
            out: dict[str, str] = {}
            seen: dict[str, int] = {}
            for d in self.definitions:
                kind = n.DEFINITION_KINDS[type(d)]
                name = getattr(d, "name", None) or getattr(d, "event", None) or kind
                key = f"{kind} {name}"
                seen[key] = seen.get(key, 0) + 1
                out[key if seen[key] == 1 else f"{key} #{seen[key]}"] = short(_shape(d))
            for section, values in (("const", self.constants), ("variable", self.variables),
                                    ("player field", self.player_fields), ("entity", self.entities)):
                for name, value in values.items():
                    out[f"{section} {name}"] = short(value)
            self.__dict__["_fingerprints"] = out
        return self.__dict__["_fingerprints"]

    def changed_since(self, fingerprints: dict) -> list[str]:
        """What differs from the rules that had these fingerprints: 'changed def x', 'new ...',
        'removed ...'."""
        now = self.fingerprints
        return ([f"changed {k}" for k in now if k in fingerprints and now[k] != fingerprints[k]]
                + [f"new {k}" for k in now if k not in fingerprints]
                + [f"removed {k}" for k in fingerprints if k not in now])

    def new_game(self, players: int, seed: int = 0, count_rules: bool = False, chance=None,
                 undo: bool = True):
        """A new game (see :meth:`Game.new` for ``count_rules``, ``chance`` and ``undo``)."""
        from ..engine.game import Game
        return Game.new(self, players, seed, count_rules=count_rules, chance=chance, undo=undo)

    def snippet(self, names, text: str, params: tuple, where: Pos):
        """An expression of a game (``Game.evaluate``) compiled: ``fn(run, values)``."""
        from . import snippets
        return snippets.expression(names, text, params, where, self.program.checked)

    def setup_statements(self, names, text: str, where: Pos) -> tuple:
        """Statements that set up a position (``Game.execute``) compiled: ``(code, program)``."""
        from . import snippets
        return snippets.statements(names, text, where)

    def check_save(self, state: dict, where: str = "<save>") -> None:
        """BadSave (RR304) naming the field unless every value of a saved ``state`` has the type
        this ruleset gives it (:func:`railrules.interpreter.saves.check_types`)."""
        from ..saves import check_types
        check_types(self, state, where)

    def misfit(self, state: dict) -> str | None:
        """Why a value of ``state`` does not have the type the rules prove it has, or None
        (:func:`railrules.interpreter.saves.first_misfit`; RR314 where it is refused)."""
        from ..saves import first_misfit
        return first_misfit(state, self.proven)

    def variants(self) -> list[str]:
        """The variants' names: in variants/ of the ruleset and of every ruleset it extends."""
        return sorted({p.stem for folder in self.layers or (self.root,) for p in (folder / "variants").glob("*.yaml")})

    def __reduce__(self):
        # pickled as where it comes from and what it was: a worker process loads the folder
        # again (once) and refuses it if its content has changed since
        return _reload, (str(self.root), self.variant, self.hash)


def _shape(x):
    """A syntax tree as plain data, without the positions (they move when lines are added)."""
    if isinstance(x, n.Node):
        return (type(x).__name__, tuple(_shape(v) for k, v in vars(x).items() if k != "pos"))
    if isinstance(x, (list, tuple)):
        return tuple(_shape(v) for v in x)
    if isinstance(x, (set, frozenset)):
        return tuple(sorted(map(repr, x)))
    return x


_RELOADED: dict = {}


def _reload(root: str, variant: str | None, digest: str) -> Ruleset:
    key = (root, variant, digest)
    if key not in _RELOADED:
        ruleset = load_ruleset(root, variant)
        if ruleset.hash != digest:
            raise RulesetError([Diagnostic(
                "RR304", f"the ruleset in {root} has changed since this game was sent "
                f"(content hash {ruleset.hash}, the game's {digest})", Pos(root, 0, 0),
                hint="send the game again from a process that loaded the same files")])
        _RELOADED[key] = ruleset
    return _RELOADED[key]


def resolve_ruleset_path(name_or_path: str) -> Path | None:
    """A shipped ruleset's name, or a path to a folder holding ruleset.yaml."""
    p = Path(name_or_path)
    if is_file(p / "ruleset.yaml"):
        return resolved(p)
    if p.name == "ruleset.yaml" and is_file(p):
        return resolved(p.parent)
    shipped = rulesets_dir() / name_or_path
    if "/" not in name_or_path and is_file(shipped / "ruleset.yaml"):
        return shipped
    return None


def _base_of(folder: Path, extends: str) -> Path | None:
    """The folder an overlay's ``extends:`` names: a path relative to the overlay's folder
    (a path always wins), else the name of a shipped ruleset."""
    path = folder / extends
    if is_file(path / "ruleset.yaml"):
        return resolved(path)
    shipped = rulesets_dir() / extends   # (not a folder of the working folder: that moves)
    return shipped if "/" not in extends and is_file(shipped / "ruleset.yaml") else None


def ruleset_folders(root: Path) -> list[Path]:
    """The folders a ruleset is laid from, the base first and ``root`` last (``[root]`` for a
    ruleset that extends none). A base that is missing or makes a cycle ends the list: loading
    the ruleset says what is wrong (RR213, RR214)."""
    import yaml
    out = [root]
    while True:
        try:
            text = (out[0] / "ruleset.yaml").read_text(encoding="utf-8")
            data = yaml.safe_load(text) if _EXTENDS.search(text) else None
        except (OSError, UnicodeDecodeError, yaml.YAMLError):
            return out
        extends = data.get("extends") if isinstance(data, dict) else None
        base = _base_of(out[0], extends) if isinstance(extends, str) else None
        if base is None or base in out:
            return out
        out.insert(0, base)


def ruleset_around(path: str) -> Path | None:
    """The ruleset folder of ``path``: a ruleset :func:`resolve_ruleset_path` names, else the
    nearest folder that holds a ruleset.yaml above an existing file or folder (a scenario, a
    rules file); None when there is none."""
    found = resolve_ruleset_path(path)
    if found is not None:
        return found
    p = Path(path).resolve()
    if not p.exists():
        return None
    return next((parent for parent in [p, *p.parents] if (parent / "ruleset.yaml").is_file()), None)


def variant_file(variant: str) -> Path | None:
    """The file a ``--variant`` names when it is the path of a variant file (it ends in .yaml or
    .yml); None for the name of a variant in the ruleset's variants/ folder. Only YAML files are
    read as variants: a name like ``../../etc/passwd`` is a (missing) variant name, not a path."""
    if variant.endswith((".yaml", ".yml")):
        return Path(variant).expanduser().resolve()
    return None


def load_ruleset(name_or_path: str, variant: str | None = None, *, derive_all: bool = False,
                 texts: dict | None = None) -> Ruleset:
    """Load and compile a ruleset; raise :class:`RulesetError` with every problem found.

    ``derive_all`` (a debugging aid) makes every ``def`` a ``derived`` value, so that
    ``game.check_derived()`` tests the engine's read tracking on every function of the rules.
    ``texts`` (resolved path -> text) are read instead of those files on disk, as by
    :func:`check_ruleset` (an edited copy of a file: ``railrules test --mutate``).

    A ruleset loaded from files on disk is kept in the user cache (:mod:`.kept`)."""
    if derive_all or texts:
        return _loaded(name_or_path, variant, derive_all=derive_all, texts=texts)
    return kept("ruleset", name_or_path, variant, lambda: _loaded(name_or_path, variant), whole=(Ruleset,),
                finish=_finished)


def _finished(ruleset: Ruleset) -> None:
    """What a load leaves for later that is kept with it in the user cache: every code unit and
    lister written, and the fingerprints (a save holds them: worked out by a game's first save,
    they were about a third of its cost)."""
    ruleset.program.write_all()
    ruleset.fingerprints   # (kept in the ruleset's __dict__, and so in the entry)


def _loaded(name_or_path, variant, **options) -> Ruleset:
    sink = Sink()
    with _within_python_limits(name_or_path):
        ruleset = _Loader(sink, **options).load(name_or_path, variant)
    sink.raise_if_errors()
    assert ruleset is not None  # a load with errors never gets here
    return ruleset


def load_all_checked(name_or_path: str, variant: str | None = None) -> Ruleset:
    """Like :func:`load_ruleset`, every expression in the code generator's checked mode and none
    in its fast mode: for tests that play the rules both ways and compare (not public API)."""
    sink = Sink()
    with _within_python_limits(name_or_path):
        ruleset = _Loader(sink, checked=True).load(name_or_path, variant)
    sink.raise_if_errors()
    assert ruleset is not None
    return ruleset


def check_ruleset(name_or_path: str, variant: str | None = None,
                  texts: dict | None = None) -> tuple[Ruleset | None, list]:
    """Like :func:`load_ruleset` but return the diagnostics (errors and warnings) instead.
    ``texts`` (resolved path -> text) are read instead of those files on disk: an editor's
    unsaved buffers. What files on disk give is kept in the user cache (:mod:`.kept`)."""
    if texts:
        return _checked(name_or_path, variant, texts)
    return kept("checked", name_or_path, variant, lambda: _checked(name_or_path, variant, None),
                whole=(Ruleset,), keep=lambda made: not any(d.code == "RR311" for d in made[1]), here=True)


def _checked(name_or_path, variant, texts) -> tuple[Ruleset | None, list]:
    from ..checks import run_checks
    sink = Sink()
    try:
        with _within_python_limits(name_or_path):
            ruleset = _Loader(sink, generate=False, texts=texts).load(name_or_path, variant)
            if ruleset is not None:
                run_checks(ruleset, sink, runnable=not sink.errors)
    except RulesetError as err:  # a stage gave up early
        return None, sink.diagnostics + [d for d in err.diagnostics if d not in sink.diagnostics]
    return (None if sink.errors else ruleset), sink.diagnostics


@contextlib.contextmanager
def _within_python_limits(name_or_path: str):
    """RR311 for a limit of Python reached while loading (a nesting the parser or the code
    generator cannot take, recursion, memory): the contract is a RailrulesError, never those."""
    try:
        yield
    except (RecursionError, MemoryError, SyntaxError) as err:
        what = {RecursionError: "nested too deeply to follow", MemoryError: "too large for the memory",
                SyntaxError: "too deeply nested for the code generator"}[type(err)]
        raise RulesetError([Diagnostic("RR311", f"the ruleset is {what} ({type(err).__name__}: "
                                       f"{str(err)[:120]})", Pos(str(name_or_path), 0, 0))]) from None


class _Loader:
    def __init__(self, sink: Sink, generate: bool = True, derive_all: bool = False,
                 texts: dict | None = None, checked: bool = False):
        self.sink = sink
        self.texts = texts or {}  # resolved path -> text read instead of the file
        self.derive_all = derive_all
        self.generate = generate  # compile expressions to Python code too (not needed to lint)
        self.checked = checked    # every expression in checked mode (load_all_checked)
        self.digest = hashlib.sha256()
        self.files: list = []     # (name in ruleset.yaml, its position, shown path, module): parsed rules
        self.root: Path = Path(".")
        self.places: dict = {}
        self.variant_places: Positions | None = None   # where the variant's values are written
        self.sources: dict = {}   # shown path -> the text of each rules file read
        self.folders: list = []   # the ruleset's folder and those of the rulesets it extends

    # ------------------------------------------------------------------ files
    def read(self, rel: str, pos: Pos, base: Path | None = None,
             hashed: bool = True) -> tuple[str | None, str]:
        """Read a file named by the ruleset (or, with ``base``, by a variant file kept in that
        folder); returns (text or None, display name). ``library/...`` is the shared library.
        Its bytes go into the content hash unless not ``hashed`` (the caller hashes its data)."""
        library = rulesets_dir() / "library"
        home = base or self.root
        in_library = rel.startswith("library/")
        named = library / rel[len("library/"):] if in_library else home / rel
        path = named.resolve()
        shown = shown_path(path)
        if not (path.is_relative_to(home) or path.is_relative_to(resolved(library))):
            where = "variant's" if base is not None and base not in self.folders else "ruleset"
            self.sink.add("RR005", f"'{rel}' is outside the {where} folder", pos,
                          f"name files relative to the {where} folder, without '..'")
            return None, shown
        if path in self.texts:  # an editor's buffer: a lone surrogate is a byte that is not UTF-8 (RR006)
            data = self.texts[path].encode("utf-8", "surrogatepass")
        elif not is_file(path):
            self.sink.add("RR001", f"no file '{rel}'", pos)
            return None, shown
        else:
            data = content(named, path)
        if len(data) > LIMIT:  # (said in the file itself when it is the editor's buffer)
            self.sink.add("RR007", f"'{rel}' is larger than 5 MB", Pos(shown, 1, 1) if path in self.texts else pos)
            return None, shown
        if hashed:
            self.digest.update(rel.encode() + b"\0" + data + b"\0")
        text, problem = utf8_text(data, rel, shown)
        if problem:
            self.sink.diagnostics.append(problem)
        return text, shown

    def yaml(self, rel: str, kind: str, pos: Pos, base: Path | None = None) -> tuple[dict | None, Positions]:
        text, shown = self.read(rel, pos, base, hashed=kind != "ruleset")
        if text is None:
            return None, Positions(shown)
        from .schema import load_checked
        data, positions, diagnostics = load_checked(text, shown, kind)
        self.sink.diagnostics += diagnostics
        if kind == "ruleset":  # how the game is drawn (render:) and its comments change no game
            played = {k: v for k, v in data.items() if k != "render"} if isinstance(data, dict) else data
            self.digest.update(rel.encode() + b"\0" + json.dumps(played, sort_keys=True, default=str).encode() + b"\0")
        return copy_data(data), positions   # a copy: a variant changes it in place

    # ------------------------------------------------------------------ stages
    def load(self, name_or_path: str, variant: str | None) -> Ruleset | None:
        """The stages, in order: find the folder (and the folders it extends); read the base's
        YAML files; lay each overlay folder and the variant over them; build entities and the
        board; parse the rules of every layer and lay them over each other; name everything;
        compile; check that a game and a score exist; put the ruleset together. A stage that
        cannot go on returns None (its diagnostics say why)."""
        from ..checks.check_definitions import check_definitions
        from ..checks.check_secrets import find_leaks, redactions
        from ..checks.library_contract import check_contracts
        from .overlay import Layer, lay_data, lay_rules
        for what, value, code in (("a ruleset", name_or_path, "RR206"), ("a variant", variant, "RR205")):
            if value is not None and not isinstance(value, (str, os.PathLike)) or value is None and code == "RR206":
                self.sink.add(code, f"{what} is named by text or a path, not {value!r:.40}", Pos("<argument>", 0, 0))
                return None
        root = self.find(name_or_path)
        if root is None:
            return None
        chain = self.chain(root)
        if chain is None:
            return None
        self.folders = [folder for folder, *_ in chain]
        files = self.read_files(chain[0][0])
        if files is None:
            return None
        meta, mpos, comps, cpos, board_data, bpos = files
        rules_pos = {f: mpos.of("rules", i) for i, f in enumerate(meta["rules"])}
        layers = [(list(meta["rules"]), chain[0][0], meta["name"], 0)]
        for i, (folder, over, opos) in enumerate(chain[1:], 1):
            # its rules: are its own files, relative to its folder (those of its base are read above)
            meta = {**meta, **{k: v for k, v in over.items() if k in _OVERLAY_META}, "rules": over.get("rules", [])}
            lay_data(comps, board_data, meta, over, opos, f"overlay {over['name']}", self.sink)
            layers.append(self.rules_of(over, opos, folder, f"overlay {over['name']}", i - 1, rules_pos))
        layered = self.apply_variant(variant, chain, meta, comps, board_data, rules_pos)
        if layered is None:
            return None
        variant, var_layer = layered
        if var_layer is not None:
            layers.append(var_layer)
        # A variant file is hashed by its content (read above) and its stem, not by where it is.
        self.digest.update(f"variant={Path(variant).stem if variant else None}".encode())
        entities, kinds, aliases, board = self.data(comps, cpos, board_data, bpos)
        scoped = self.scoped(comps, cpos)
        broken: set = set()
        defs = lay_rules([Layer(label, self.parse(files_, rules_pos, broken, folder), home)
                          for files_, folder, label, home in layers], self.sink)
        if self.derive_all:  # copies: parsed modules are shared
            defs = [dataclasses.replace(d, derived=True) if isinstance(d, n.FuncDef) else d for d in defs]
        errors = len(self.sink.errors)
        cyclic = check_definitions(defs + [x for *_, m in self.files for x in m.needs], self.sink, self.sources)
        names = _names(defs, comps, entities, aliases, kinds, broken | cyclic)
        leaks = find_leaks(meta, names, defs, mpos)   # the engine hides what lint refuses
        names.secrecy = redactions(meta, leaks)
        # code is not generated for definitions that cannot work (it would not even compile)
        compiler = Compiler(names, self.sink, generate=self.generate and len(self.sink.errors) == errors,
                            checked=self.checked)
        self.constants(defs, names, compiler, ConstantRun(entities, board, meta.get(
            "limits", {}).get("steps", DEFAULT_STEPS)))
        names.proven = prove(defs, names, entities, kinds, comps.get("variables", {}), comps.get("player", {}))
        program = compiler.compile(defs, _secret_fields(meta))
        program.resets = self.resets(scoped, names, cpos)
        functions, tracked = compiler.functions()
        check_contracts(self.files, defs, self.sink)   # after every body is compiled: see its doc
        conserve = self.conserve(comps, cpos, compiler)
        self.check_complete(defs, program, broken, mpos)
        limits = meta.get("limits", {})
        overlays = {f"overlay {over['name']}": opos for _, over, opos in chain[1:]}
        return Ruleset(
            name=meta["name"], title=meta["title"], root=root, variant=variant, meta=meta,
            players_min=meta["players"]["min"], players_max=meta["players"]["max"],
            constants=names.constants, variables=dict(comps.get("variables", {})),
            notes=frozenset(comps.get("notes") or {}),
            player_fields=dict(comps.get("player", {})), entities=entities, kinds=kinds,
            meta_places={"components": cpos, "ruleset": mpos, "board": bpos, **overlays,
                         **({"variant": self.variant_places} if self.variant_places else {})},
            board=board, program=program, functions=functions, tracked=tracked, conserve=conserve,
            hash=self.digest.hexdigest()[:16],
            step_budget=limits.get("steps", DEFAULT_STEPS),
            decision_budget=limits.get("decisions", DEFAULT_DECISIONS),
            names=names, places=self.places, definitions=defs,
            layers=tuple(folder for folder, *_ in chain), leaks=leaks)

    def find(self, name_or_path: str) -> Path | None:
        """The ruleset's folder: a shipped name or a path (RR206 when neither)."""
        root = resolve_ruleset_path(name_or_path)
        if root is None:
            from ..paths import shipped_rulesets
            self.sink.add("RR206", f"no ruleset '{name_or_path}'", Pos(name_or_path, 0, 0),
                          f"shipped rulesets: {', '.join(shipped_rulesets())}; or give a folder "
                          "that holds ruleset.yaml")
            return None
        self.root = root
        return root

    def chain(self, root: Path) -> list | None:
        """The folders the ruleset is laid from, the base first: [(folder, None, None)] for a
        ruleset of its own; each folder whose ruleset.yaml says ``extends:`` is an overlay of
        that base, kept with its ruleset.yaml (data, positions). RR213 for a base that does not
        exist, RR214 for a cycle."""
        chain: list = []
        folder = root
        while True:
            text, shown = self.read("ruleset.yaml", Pos(str(folder / "ruleset.yaml"), 1, 1), folder, hashed=False)
            if text is None:
                return None
            if not _EXTENDS.search(text):
                return [(folder, None, None), *reversed(chain)]
            over, opos = self.yaml("ruleset.yaml", "overlay", Pos("ruleset.yaml", 1, 1), folder)
            if over is None:
                return None
            chain.append((folder, over, opos))
            base = _base_of(folder, over["extends"])
            if base is None:
                from ..paths import shipped_rulesets
                beside = folder.parent / over["extends"]
                hint = (f"a folder is named by its path from this one: extends: ../{over['extends']}"
                        if (beside / "ruleset.yaml").is_file() else
                        f"shipped rulesets: {', '.join(shipped_rulesets())}; or give the path of a "
                        "folder that holds ruleset.yaml (relative to this one)")
                self.sink.add("RR213", f"ruleset {over['name']} extends '{over['extends']}', which does "
                              "not exist", opos.of("extends"), hint)
                return None
            if base == root or any(base == f for f, *_ in chain):
                names = " -> ".join([o["name"] for _, o, _ in chain] + [str(base.name)])
                self.sink.add("RR214", f"rulesets extend each other in a cycle: {names}",
                              opos.of("extends"), "make one of them a full ruleset")
                return None
            folder = base

    def read_files(self, folder: Path) -> tuple | None:
        """ruleset.yaml, the components and the board (if any) of the base, each checked by
        its schema."""
        meta, mpos = self.yaml("ruleset.yaml", "ruleset", Pos("ruleset.yaml", 1, 1), folder)
        if meta is None:
            return None
        comps, cpos = self.yaml(meta["components"], "components", mpos.of("components"), folder)
        board_data: dict | None = {"hexes": {}}
        bpos = Positions("-")
        if "board" in meta:
            board_data, bpos = self.yaml(meta["board"], "board", mpos.of("board"), folder)
        if comps is None or board_data is None:
            return None
        return meta, mpos, comps, cpos, board_data, bpos

    def rules_of(self, over: dict, where: Positions, folder: Path, label: str, home: int,
                 rules_pos: dict) -> tuple:
        """A layer's rules files, kept with their positions: (files, folder, label, home)."""
        files = list(over.get("rules", []))
        for i, f in enumerate(files):
            rules_pos[f] = where.of("rules", i)
        return files, folder, label, home

    def apply_variant(self, variant, chain, meta, comps, board_data, rules_pos) -> tuple | None:
        """Lay a variant (a name in variants/ of the ruleset or of a base it extends, or a file
        anywhere) over the data; returns the variant as kept (a path for a user's file) and
        its layer of rules (None without a variant)."""
        from .overlay import lay_data
        if not variant:
            return variant, None
        vfile = variant_file(variant)
        home = len(chain) - 1
        if vfile is not None:      # a variant file of the user's, anywhere: a path always wins
            var_base = vfile.parent
            if not is_file(vfile):
                self.sink.add("RR205", f"no variant file '{variant}'", Pos(variant, 0, 0),
                              hint="give the path of a variant YAML file, or the name of one "
                              "of the ruleset's variants")
                return None
            variant = str(vfile)
            over, vpos = self.yaml(vfile.name, "variant", Pos(variant, 0, 0), var_base)
        else:   # the ruleset's own variants first, then its bases'
            home = next((i for i in reversed(range(len(chain)))
                         if is_file(chain[i][0] / "variants" / f"{variant}.yaml")), home)
            var_base = chain[home][0]
            over, vpos = self.yaml(f"variants/{variant}.yaml", "variant", Pos("variants", 0, 0), var_base)
        if over is None:
            if vfile is None and not (var_base / "variants" / f"{variant}.yaml").is_file():
                known = sorted({p.stem for folder, *_ in chain for p in (folder / "variants").glob("*.yaml")})
                self.sink.diagnostics[-1] = Diagnostic(
                    "RR205", f"no variant '{variant}' in {meta['name']}", Pos(str(self.root), 0, 0),
                    hint=f"variants: {', '.join(known) or 'none'}; or give the path of a variant file")
            return None
        label = f"variant {Path(variant).stem}"
        lay_data(comps, board_data, meta, over, vpos, label, self.sink)
        self.variant_places = vpos
        return variant, self.rules_of(over, vpos, var_base, label, home, rules_pos)

    def data(self, comps, cpos, board_data, bpos) -> tuple:
        """The entities (aliases resolved to ids), their kinds and aliases, and the board."""
        entities, kinds, aliases = self.entities(comps, cpos, board_data, bpos)
        # A value that names an entity by its alias is stored as the entity's id (display
        # fields, name and alias, are text and stay as written).
        for rec in entities.values():
            for key, value in rec.items():
                if key not in ("alias", "name"):
                    rec[key] = _unalias(value, aliases)
        comps["constants"] = _unalias(comps.get("constants", {}), aliases)
        board, problems = _board({h: entities[h] for h in kinds.get("hexes", [])},
                                 (board_data.get("layout") or {}).get("offset"),
                                 tuple(tuple(_unalias(pair, aliases)) for pair in board_data.get("blocked") or ()))
        for where, key, message in problems:
            self.sink.add("RR203", message, bpos.of("hexes", key, "neighbours") if where == "neighbours"
                          else bpos.of("blocked", key))
        return entities, kinds, aliases, board

    def scoped(self, comps, cpos) -> dict:
        """components.yaml's ``notes:`` (working variables, left out of state summaries) and
        ``scoped:`` (procedure -> {variable: starting value}: variables that each call of the
        procedure starts afresh), added to the variables; returns ``scoped``."""
        variables = comps.setdefault("variables", {})
        scoped = comps.get("scoped") or {}
        sections = [("notes", (), comps.get("notes") or {}),
                    *(("scoped", (proc,), values) for proc, values in scoped.items())]
        for section, path, values in sections:
            for name, value in values.items():
                if name in variables:
                    self.sink.add("RR103", f"variable '{name}' is declared twice (variables: and {section}:)",
                                  cpos.of(section, *path, name), hint="keep one of them")
                else:
                    variables[name] = value
        return scoped

    def resets(self, scoped: dict, names: Names, cpos) -> dict:
        """The code unit of each procedure with scoped variables -> their starting values."""
        out = {}
        for proc, values in scoped.items():
            if proc not in names.procedures:
                close = difflib.get_close_matches(proc, list(names.procedures), n=1)
                self.sink.add("RR102", f"scoped: no procedure '{proc}'", cpos.of("scoped", proc),
                              hint=f"did you mean '{close[0]}'?" if close else "name a procedure of the rules")
            elif values:
                out[f"proc:{proc}"] = dict(values)
        return out

    def conserve(self, comps, cpos, compiler: Compiler) -> list:
        """The quantities components.yaml says are conserved, compiled: (name, expression)."""
        from ..dsl.parser import parse_expression
        out = []
        for cname, text in (comps.get("conserve") or {}).items():
            try:
                expr = parse_expression(text, cpos.value_of("conserve", cname))
            except RulesetError as err:
                self.sink.diagnostics += err.diagnostics
                continue
            out.append((cname, compiler.expr(expr, _empty_scope())))
        return out

    def check_complete(self, defs: list, program: Program, broken: set, mpos) -> None:
        """A ruleset needs a game: block and a score (RR107), unless a parse error hid them."""
        if not any(isinstance(d, n.GameDef) for d in defs) and "game" not in broken:
            self.sink.add("RR107", "the rules define no 'game:' block", mpos.of("rules"))
        if program.score is None and "score" not in broken:
            self.sink.add("RR107", "the rules define no 'score p = ...'", mpos.of("rules"))

    def entities(self, comps, cpos, board_data, bpos):
        entities, kinds, aliases = {}, {}, {}
        self.places = {}

        def add(kind, ent, record, defaults, pos, place):
            self.places[ent] = place
            for reserved in ("id", "kind"):
                if reserved in record or reserved in defaults:
                    self.sink.add("RR004", f"'{reserved}' is a reserved field (the engine sets it)",
                                  place[0].of(*place[1], reserved), hint="rename the field")
            if ent in entities or ent in kinds or ent == "players":
                self.sink.add("RR202", f"'{ent}' is already the id of another entity", pos)
                return
            rec = copy_data(defaults)
            rec.update(copy_data(record))
            rec.pop("neighbours", None) if kind != "hexes" else None
            rec["id"], rec["kind"] = ent, kind
            entities[ent] = rec
            kinds.setdefault(kind, []).append(ent)
            alias = record.get("alias")
            if alias:
                if alias in aliases:
                    self.sink.add("RR202", f"alias '{alias}' is already used by {aliases[alias]}",
                                  place[0].of(*place[1], "alias"))
                else:
                    aliases[alias] = ent

        for h, record in board_data.get("hexes", {}).items():
            add("hexes", h, record, board_data.get("fields", {}), bpos.of("hexes", h), (bpos, ("hexes", h)))
        for kind, spec in (comps.get("kinds") or {}).items():
            kinds.setdefault(kind, [])
            for ent, record in spec["entities"].items():
                add(kind, ent, record, spec.get("fields", {}), cpos.of("kinds", kind, "entities", ent),
                    (cpos, ("kinds", kind, "entities", ent)))
        for alias in sorted(set(aliases) & set(entities)):
            positions, path = self.places[aliases[alias]]
            self.sink.add("RR202", f"alias '{alias}' of {aliases[alias]} is also the id of an entity",
                          positions.of(*path, "alias"), hint="an alias must differ from every id")
            del aliases[alias]
        return entities, kinds, aliases

    def parse(self, files: list[str], positions: dict, broken: set, base: Path | None = None) -> list:
        from ..dsl.parser import parse_rules
        defs = []
        for rel in files:
            entry = positions.get(rel, Pos(rel, 0, 0))
            text, shown = self.read(rel, entry, base)
            if text is None:
                broken.update(("game", "score"))  # it may have held them: no follow-on RR107
            else:
                module = parse_rules(text, shown, self.sink, cached=not self.texts)
                self.sources[shown] = text
                defs += module.definitions
                broken |= module.broken
                self.files.append((rel, entry, shown, module))
        return defs

    def constants(self, defs, names: Names, compiler: Compiler, run) -> None:
        """Compute the rules' constants in order, each seeing the ones before it."""
        from_yaml = set(names.constants)
        for d in defs:
            if isinstance(d, n.ConstDef) and d.name not in names.broken:
                if d.name in from_yaml:
                    self.sink.add("RR103", f"constant '{d.name}' is already defined in the YAML "
                                  "constants", d.pos, hint="rename one of them")
                    continue
                if any(isinstance(x, n.Var) and x.name in names.broken for x in n.walk(d.expr)):
                    names.broken.add(d.name)   # computed from a broken one: said already
                    continue
                errors = len(self.sink.errors)
                fn = compiler.expr(d.expr, _empty_scope())
                if len(self.sink.errors) > errors:  # said already (an undefined name...)
                    names.broken.add(d.name)
                    continue
                try:
                    names.constants[d.name] = check_storable(fn(run, {}))
                except Exception as err:  # a constant that cannot be computed at load
                    names.broken.add(d.name)
                    why = "values nested too deeply to work with" if isinstance(err, RecursionError) else err
                    self.sink.add("RR312" if isinstance(err, OverLimit) else "RR302",
                                  f"constant '{d.name}' cannot be computed: {why}", d.pos)


def _names(defs: list, comps: dict, entities: dict, aliases: dict, kinds: dict, broken: set) -> Names:
    """Every name the rules may use: constants, variables, entities (and aliases), kinds, and
    the definitions by kind."""
    names = Names(constants=dict(comps.get("constants", {})),
                  variables=set(comps.get("variables", {})),
                  entities={**{i: i for i in entities}, **aliases},
                  kinds=kinds, broken=broken)
    for d in defs:
        if isinstance(d, n.FuncDef):
            names.functions[d.name] = d
        elif isinstance(d, n.ProcDef):
            names.procedures[d.name] = d
        elif isinstance(d, n.ActionDef):
            names.actions[d.name] = d
        elif isinstance(d, n.HandlerDef):
            names.events.setdefault(d.event, []).append(d)
        elif isinstance(d, n.EndDef):
            names.ends.add(d.name)
    return names


_BOARDS: dict = {}   # (offset, blocked edges, each hex's id and listed neighbours) -> (board, problems)


def _board(hexes: dict, offset: str | None, blocked: tuple) -> tuple[Board, list]:
    """build_board, once per process for the same hexes, neighbours, blocked edges and layout
    (every variant of a ruleset has the same board): the board is shared, so nothing may change it."""
    key = (offset, blocked, tuple((h, tuple(r.get("neighbours") or ())) for h, r in hexes.items()))
    found = _BOARDS.get(key)
    if found is None:
        found = keep(_BOARDS, key, build_board(hexes, offset, blocked), 64)
    return found


def _empty_scope():
    from ..compile.statements import _Scope
    return _Scope(set())


def _unalias(value, aliases: dict):
    if isinstance(value, str):
        return aliases.get(value, value)
    if isinstance(value, list):
        return [_unalias(v, aliases) for v in value]
    if isinstance(value, dict):
        return {k: _unalias(v, aliases) for k, v in value.items()}
    return value


def _secret_fields(meta: dict) -> frozenset:
    """The fields ruleset.yaml's ``secret`` names (of any kind): a bot's imagined copy of a game
    draws them afresh, so a derived value notes their reads though no rule writes them (a
    malformed ``secret``, which the schema refuses, names none)."""
    secret = meta.get("secret")
    if not isinstance(secret, dict):
        return frozenset()
    return frozenset(f for fields in secret.values() if isinstance(fields, list) for f in fields if isinstance(f, str))
