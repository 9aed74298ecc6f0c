"""The arms of a comparison: the base ruleset, other ruleset folders, the base's variants, and
constant overrides.

``--set NAME=VALUE`` is a variant made on the spot: a YAML file holding only ``constants:
{NAME: VALUE}``, written to a folder that lives as long as the comparison. So an override is
checked exactly like a variant (a constant that does not exist is RR204), it travels to worker
processes like any ruleset (by path and content hash), and ``--set NAME=1,2,3`` is a sweep: one
arm per value.
"""
from __future__ import annotations

import contextlib
import difflib
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import yaml

from railrules.interpreter import load_ruleset
from railrules.interpreter.dsl import nodes as n

if TYPE_CHECKING:
    from railrules.interpreter.data.ruleset import Ruleset


class ArmError(ValueError):
    """A variant, an override or a metric that a comparison cannot use, said plainly with its
    diagnostic code (RR501 an arm, RR502 a metric)."""

    def __init__(self, message: str, code: str = "RR501"):
        super().__init__(f"error {code} {message}")
        self.code = code


@dataclass
class Arm:
    label: str          # "base", a variant's name, a folder's name, or "NAME=VALUE"
    ruleset: Ruleset
    setting: tuple | None = None   # (NAME, value) of an arm made by --set


def parse_value(text: str):
    """A command-line value read as YAML: 30, true, "text", [1, 2]."""
    try:
        return yaml.safe_load(text)
    except ValueError:   # a number of more digits than Python reads (4,300)
        raise ArmError(f"cannot read the value '{text[:20]}...': a number of {len(text)} characters "
                       "(the rules take whole numbers up to 10^18)") from None
    except yaml.YAMLError:
        raise ArmError(f"cannot read the value '{text}' (write it as in YAML: 30, true, \"text\")") from None


def _type(value) -> str:
    return {bool: "true/false", int: "a whole number", str: "text", list: "a list",
            dict: "a map", type(None): "none"}.get(type(value), type(value).__name__)


def overrides(base, sets: list[str]) -> list[tuple[str, object]]:
    """``NAME=V1,V2`` items -> (NAME, value) pairs, one per value, each checked against the base
    ruleset's constant of that name (it must exist and the value must have its type). ``NAME``
    may name an entry of a map constant: ``prices.3=50``."""
    out = []
    for item in sets:
        name, eq, values = item.partition("=")
        name = name.strip()
        if not eq or not name or not values.strip():
            raise ArmError(f"--set '{item}': write NAME=VALUE, or NAME=V1,V2,... for a sweep")
        root, *keys = name.split(".")
        if root not in base.constants:
            close = difflib.get_close_matches(root, sorted(base.constants), n=1)
            hint = f"; did you mean '{close[0]}'?" if close else ""
            raise ArmError(f"--set: {base.name} has no constant '{root}'{hint}")
        if any(isinstance(d, n.ConstDef) and d.name == root for d in base.definitions):
            raise ArmError(f"--set: '{root}' is computed by the rules (const {root} = ...); only the "
                           "constants of components.yaml can be set")
        old = entry(base.constants[root], keys, name)
        for text in _split(values):
            value = parse_value(text)
            if type(value) is not type(old) and not (isinstance(old, dict) and isinstance(value, dict)):
                raise ArmError(f"--set {name}={text}: {name} is {_type(old)} (now {old!r}), "
                               f"not {_type(value)}")
            out.append((name, value))
    return out


def _key(mapping: dict, key: str, name: str):
    """The key of ``mapping`` written ``key`` on the command line (a text or a number)."""
    for k in mapping:
        if str(k) == key:
            return k
    raise ArmError(f"--set: {name}: the map has no entry '{key}' (it has {', '.join(map(str, mapping))})")


def entry(value, keys: list, name: str):
    """The entry of a constant that ``keys`` (``prices.3`` -> ["3"]) name."""
    for key in keys:
        if not isinstance(value, dict):
            raise ArmError(f"--set: {name}: only the entries of a map can be set, and this is {_type(value)}")
        value = value[_key(value, key, name)]
    return value


def setting_value(ruleset, name: str):
    """The value ``NAME`` or ``NAME.KEY`` has in ``ruleset``."""
    root, *keys = name.split(".")
    return entry(ruleset.constants[root], keys, name)


def with_entry(value, keys: list, new, name: str):
    """A copy of a constant with the entry ``keys`` names set to ``new``."""
    if not keys:
        return new
    k = _key(value, keys[0], name)
    return {**value, k: with_entry(value[k], keys[1:], new, name)}


def _split(values: str) -> list[str]:
    """``30,35,40`` -> three values; a value in brackets keeps its commas (``[1, 2],[3]``)."""
    parts, depth, cur = [], 0, ""
    for ch in values:
        depth += ch in "[{"
        depth -= ch in "]}"
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    return [p.strip() for p in parts + [cur] if p.strip()]


class Arms:
    """The arms of one comparison; a context manager, as overrides live in a temporary folder."""

    def __init__(self, ruleset: str, variants: list[str], sets: list[str], folders: tuple[str, ...] | list[str] = ()):
        self.ruleset, self.variants, self.sets, self.folders = ruleset, variants, sets, list(folders)
        self._folder: tempfile.TemporaryDirectory[str] | None = None

    def __enter__(self) -> list[Arm]:
        base = load_ruleset(self.ruleset)
        arms = [Arm("base", base)]
        for folder in self.folders:   # other ruleset folders, paired game by game with the base
            label = Path(folder).name or folder
            arms.append(Arm(label if label not in {a.label for a in arms} else folder, load_ruleset(folder)))
        for v in self.variants:
            arms.append(Arm(Path(v).stem, load_ruleset(self.ruleset, v)))
        pairs = overrides(base, self.sets)
        if pairs:
            self._folder = temp = tempfile.TemporaryDirectory(prefix="railrules-set-")
        for i, (name, value) in enumerate(pairs):
            label = f"{name}={yaml.safe_dump(value, default_flow_style=True).strip().removesuffix('...').strip()}"
            path = Path(temp.name) / f"set{i + 1}_{name.replace('.', '_')}.yaml"
            root, *keys = name.split(".")
            constant = with_entry(base.constants[root], keys, value, name)
            path.write_text(yaml.safe_dump({"description": f"--set {label}", "constants": {root: constant}}),
                            encoding="utf-8")
            arms.append(Arm(label, load_ruleset(self.ruleset, str(path)), (name, value)))
        for a in arms:
            declared = a.ruleset.meta.get("start_player")
            if declared is not None and declared not in a.ruleset.variables:
                raise ArmError(f"{a.ruleset.root / 'ruleset.yaml'}: start_player names '{declared}', "
                               "which is no variable of components.yaml")
        labels = [a.label for a in arms]
        if len(set(labels)) != len(labels):
            raise ArmError(f"the same arm twice: {', '.join(labels)}")
        return arms

    def __exit__(self, *exc) -> None:
        if self._folder is not None:
            self._folder.cleanup()


@contextlib.contextmanager
def together(ruleset: str, values: dict):
    """One arm with every constant of ``values`` (NAME or NAME.KEY -> value) set at once, as one
    variant made on the spot (``--set`` makes one arm per setting)."""
    base = load_ruleset(ruleset)
    overrides(base, [f"{k}={v}" for k, v in values.items()])   # each exists and takes such values
    constants: dict = {}
    for name, value in values.items():
        root, *keys = name.split(".")
        constants[root] = with_entry(constants.get(root, base.constants[root]), keys, value, name)
    label = ", ".join(f"{k}={v}" for k, v in values.items()) or "base"
    with tempfile.TemporaryDirectory(prefix="railrules-set-") as temp:
        path = Path(temp) / "together.yaml"
        path.write_text(yaml.safe_dump({"description": f"--set {label}", "constants": constants}), encoding="utf-8")
        yield Arm(label, load_ruleset(ruleset, str(path)) if values else base)
