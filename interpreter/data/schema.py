"""JSON Schema validation of loaded YAML, with errors placed at the offending node."""
from __future__ import annotations

import difflib
import json
import re
from functools import lru_cache
from typing import TYPE_CHECKING

from .. import cache
from ..errors import Sink
from ..paths import schemas_dir
from .yaml_source import Positions, load_yaml
from ..runtime.memo import keep

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator


@lru_cache(maxsize=None)
def _schema(kind: str) -> str:
    return (schemas_dir() / f"{kind}.schema.json").read_text(encoding="utf-8")


@lru_cache(maxsize=None)
def validator(kind: str) -> Draft202012Validator:
    """The schema's validator; a ``$ref`` to another schema file (``variant.schema.json#/...``)
    is found among the schemas."""
    from jsonschema import Draft202012Validator   # about 45 ms: only when data is checked
    from referencing import Registry, Resource
    schemas = [json.loads(p.read_text(encoding="utf-8")) for p in sorted(schemas_dir().glob("*.schema.json"))]
    registry = Registry().with_resources((s["$id"], Resource.from_contents(s)) for s in schemas)
    return Draft202012Validator(json.loads(_schema(kind)), registry=registry)


def validate(data, kind: str, positions: Positions, sink: Sink) -> bool:
    """Check ``data`` against ``schemas/<kind>.schema.json``; report each error at its node."""
    ok = True
    for err in sorted(validator(kind).iter_errors(data), key=lambda e: list(map(str, e.absolute_path))):
        ok = False
        path = tuple(err.absolute_path) + _offending_key(err)
        message, hint = _explain(err)
        where = ".".join(map(str, path)) or "(top level)"
        sink.add("RR004", f"{where}: {message}", positions.of(*path), hint)
    return ok


_CHECKED: dict = {}   # (text, file, kind) -> (data or None, positions, diagnostics)


def load_checked(text: str, file: str, kind: str) -> tuple:
    """A YAML file loaded and checked against ``schemas/<kind>.schema.json``: (data, or None
    when either step found errors; positions; diagnostics). Done once per process for the same
    text (the loader meets ruleset.yaml, the components and the board in every variant): the
    data returned is shared, so nothing may change it."""
    key = (text, file, kind)
    found = _CHECKED.get(key)
    if found is None:
        sink = Sink()
        data, positions = load_yaml(text, file, sink)
        if data is not None and not _accepted(data, kind) and not validate(data, kind, positions, sink):
            data = None
        found = keep(_CHECKED, key, (data, positions, sink.diagnostics), 256)
    return found


def _accepted(data, kind: str) -> bool:
    """Whether the schema accepts the data (``validate`` then says why not). Accepted data
    leaves a mark in the user cache named by the hash of the schema, jsonschema's code and
    the data's exact ``repr``: a ruleset's files are checked once, not at every start (and
    jsonschema is not even imported)."""
    content = (kind, _schema(kind), _referenced(kind), cache.library_code("jsonschema"), repr(data))
    if cache.has("valid", *content):
        return True
    if not validator(kind).is_valid(data):
        return False
    cache.mark("valid", *content)
    return True


@lru_cache(maxsize=None)
def _referenced(kind: str) -> str:
    """The text of the other schemas a schema refers to (``$ref``), which its checks depend on."""
    text = _schema(kind)
    return "".join(_schema(k) for k in sorted(set(re.findall(r'"([a-z]+)\.schema\.json#', text))) if k != kind)


def _offending_key(err) -> tuple:
    """For errors about a mapping's keys, the key itself (so the position is the key's line)."""
    if err.validator == "additionalProperties" and isinstance(err.instance, dict):
        allowed = err.schema.get("properties", {})
        extra = [k for k in err.instance if k not in allowed]
        return (extra[0],) if extra else ()
    if err.validator == "propertyNames" or (err.relative_schema_path and "propertyNames" in err.relative_schema_path):
        return (err.instance,) if isinstance(err.instance, str) else ()
    return ()


def _explain(err) -> tuple[str, str | None]:
    if err.validator == "additionalProperties" and isinstance(err.instance, dict):
        allowed = list(err.schema.get("properties", {}))
        extra = [k for k in err.instance if k not in allowed]
        if extra:
            close = difflib.get_close_matches(extra[0], allowed, n=1)
            hint = f"did you mean '{close[0]}'?" if close else f"allowed keys: {', '.join(allowed)}"
            return f"unknown key '{extra[0]}'", hint
    if err.validator == "required":
        return err.message.replace("is a required property", "is required"), None
    if err.validator == "type":
        want = err.validator_value
        want = " or ".join(want) if isinstance(want, list) else want
        return f"expected {want}, got {json.dumps(err.instance)[:40]}", None
    if err.validator == "pattern" or (err.validator == "propertyNames"):
        return err.message, "names are letters, digits and '_', not starting with a digit"
    return err.message, None
