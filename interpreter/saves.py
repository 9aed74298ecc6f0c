"""The save file: its format, written (:func:`save_text`) and read from its text
(:func:`read_save`, then :func:`game_of_save`; from a file, :func:`load_save`), and what a save or a log may hold: strict JSON,
and values of the types its ruleset gives them.

A save file is one JSON object: ``format`` (:data:`SAVE_FORMAT`), the ``ruleset``'s name, the
``path`` of its folder, its ``variant``, the ``fingerprints`` of its definitions (to say what
changed), whether the state is what its history gives (``replayable``) and the game's
``state`` (:meth:`Game.to_json`). Which ruleset folder a save is loaded with is the caller's
choice (the command's: the one given, the folder it names, the shipped one of its name).

A save comes from a file anyone may have edited. Before a game is made of it:

- :func:`~railrules.interpreter.runtime.strict_json.read_json` (on the runtime floor, so that
  the engine can use it) parses strictly: no NaN or Infinity (not JSON, and a game could not write
  them back), no key given twice (which one would count?), no nesting deeper than
  :data:`MAX_DEPTH` (no RecursionError later, in the parser or the engine);
- :func:`check_types` checks the state against a schema derived from the ruleset: every value
  plain JSON data without fractions of numbers, each entity's ``id`` and ``kind`` its own, and
  every field and variable within the limits of a value a rule stores (a text's length, lists
  nested, values counted) and of the type of its starting value (a number stays a whole number,
  true/false stays true/false, a string a string, a list a list, a mapping a mapping; any of
  them may become none, and a value that starts as none may become anything); ``cash`` is never
  below 0 (``pay`` keeps it so) except on an entity marked ``unlimited``; the history is a list
  of actions the ruleset defines.

Whether the history's actions are legal when replayed, and give this very state, is checked by
replaying them (:func:`replayed`, in :func:`game_of_save`), unless the save
says it holds a position set up outside its history (``"replayable": false``). Every refusal is
BadSave (RR304) and names the field, but one: a field or variable whose type the rules prove
(:mod:`railrules.interpreter.compile.proven`) holding a value of another type, which the fast
code would not test (:func:`first_misfit`, RR314; a scenario's ``set:`` is checked the same way).
"""
from __future__ import annotations

import json
from typing import NamedTuple

from .compile.proven import is_proven, is_row, loop_items, row_items
from .errors import BadSave, Diagnostic, Pos
from .runtime.governor import check_storable
from .runtime.strict_json import read_json, refuse
from .runtime.values import MAX_STORED, RuleFault

SAVE_FORMAT = "railrules-save-1"


# ------------------------------------------------------------------ the file
def save_text(game, replayable: bool | None = None) -> str:
    """A save's text: the ruleset, variant and state, and whether the state is what its history
    gives from its seed (false for a position set up with ``Game.execute``): when it is, loading
    the save replays it to check it (:func:`game_of_save`). ``replayable``: that answer, when the
    caller knows it (a game that was replayable stays so as actions are applied and undone);
    else :func:`replays` finds it, by replaying the history."""
    if replayable is None:
        replayable = replays(game)
    return json.dumps({"format": SAVE_FORMAT, "ruleset": game.ruleset.name,
                       "path": str(game.ruleset.root), "variant": game.ruleset.variant,
                       "fingerprints": game.ruleset.fingerprints, "replayable": replayable,
                       "state": json.loads(game.to_json())})


class SaveFile(NamedTuple):
    """A save file read: what names its ruleset, and the game's state (checked by the game)."""
    ruleset: str
    path: object           # the folder it was saved from (a string, if the file is sound)
    variant: str | None
    fingerprints: object   # each definition's fingerprint (a mapping, if the file is sound)
    replayable: bool
    state: object


def read_save(text: str, where: str = "<save>") -> SaveFile:
    """The parts of a save file's text (strict JSON, :data:`SAVE_FORMAT`, a ruleset named);
    BadSave (RR304) when it is not a save."""
    try:
        data = read_json(text, where)
        if not isinstance(data, dict) or data.get("format") != SAVE_FORMAT:
            raise ValueError("not a railrules save file")
        name, variant, state = data["ruleset"], data.get("variant"), data["state"]
        if not isinstance(name, str) or not (variant is None or isinstance(variant, str)):
            raise ValueError("its ruleset must be a name and its variant a name or none")
    except BadSave:
        raise
    except (ValueError, KeyError, AttributeError, TypeError) as err:
        raise BadSave(Diagnostic("RR304", f"cannot use the save: {err}", Pos(where, 1, 1))) from None
    return SaveFile(name, data.get("path"), variant, data.get("fingerprints"),
                    data.get("replayable") is not False, state)


def game_of_save(save: SaveFile, ruleset, where: str = "<save>", set_up: bool = False, tell=None):
    """The game of a save read, with ``ruleset`` (the one it names, or one given): BadSave
    saying which rules changed if the ruleset is no longer the one the game was saved with;
    the state checked (:meth:`Game.from_json`) and replayed (:func:`replayed`). A save that says
    its position was set up outside its history (``"replayable": false``) cannot be checked so:
    it is loaded only with ``set_up`` (by a caller who trusts the file: anyone can write that
    word into an edited save).

    ``tell``: a function given what loading did. With it, a save whose rules changed since it
    was made is loaded as its history gives under today's rules (:func:`replayed_under`), and
    ``tell`` is told which rules changed and whether the game came out as the save has it."""
    from .engine.game import Game
    state = save.state
    if isinstance(state, dict) and state.get("hash") not in (None, ruleset.hash) \
            and isinstance(save.fingerprints, dict):
        if save.ruleset != ruleset.name:   # rules given for it: another game's, not changed ones
            raise BadSave(Diagnostic(
                "RR304", f"the save is a game of {save.ruleset}, not of {ruleset.name}", Pos(where, 1, 1),
                hint=f"load it with the rules of {save.ruleset}, or name none: the save says where they are"))
        changed = describe_changes(ruleset.changed_since(save.fingerprints))
        if tell is None or not save.replayable:
            raise BadSave(Diagnostic(
                "RR304", f"the rules changed since this game was saved: {changed}",
                Pos(where, 1, 1), hint="load it with the rules it was saved with: name their folder"))
        return replayed_under(ruleset, state, where, changed, tell)
    if not save.replayable and not set_up:
        raise BadSave(Diagnostic(
            "RR304", "the save holds a position set up outside its history (\"replayable\": false), "
            "which replaying cannot check: it is not loaded here", Pos(where, 1, 1),
            hint="a game set up with Game.execute is loaded with load_save(path, set_up=True), "
                 "for a file you trust"))
    try:
        game = Game.from_json(ruleset, json.dumps(state))
        return replayed(game, where) if save.replayable else game
    except BadSave as err:   # placed in the file, whatever part of the check refused it
        raise BadSave([Diagnostic(d.code, d.message, Pos(where, 0, 0), d.severity, d.hint)
                       for d in err.diagnostics]) from None


def load_save(path, ruleset_path: str | None = None, set_up: bool = False, tell=None):
    """The game of a save file, with its ruleset (:func:`find_ruleset`); ``set_up`` and ``tell``
    as :func:`game_of_save`. BadSave (RR304) when the file cannot be read or is no sound save."""
    from pathlib import Path
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise BadSave(Diagnostic("RR304", f"cannot use the save: {err}", Pos(str(path), 1, 1))) from None
    return load_save_text(text, str(path), ruleset_path, set_up, tell)


def load_save_text(text: str, where: str, ruleset_path: str | None = None, set_up: bool = False,
                   tell=None):
    """The game of a save file's text (``where``: what to call it in messages), with the ruleset
    :func:`find_ruleset` finds; ``set_up`` and ``tell`` as :func:`game_of_save`."""
    saved = read_save(text, where)
    return game_of_save(saved, find_ruleset(saved.ruleset, saved.path, saved.variant, ruleset_path), where,
                        set_up, tell)


def find_ruleset(name: str, saved_in, variant, given: str | None = None):
    """The ruleset a save or log was made with: the one ``given``, else the folder it names if
    that folder still holds a ruleset of its name, else the shipped ruleset of its name. (A
    caller that must read no file a save names, the browser's table, loads with its own ruleset
    through :func:`game_of_save`.)"""
    from pathlib import Path

    from . import load_ruleset   # the public face's (data/ calls this module's checks)
    if given:
        return load_ruleset(given, variant)
    if isinstance(saved_in, str) and (Path(saved_in) / "ruleset.yaml").is_file():
        ruleset = load_ruleset(saved_in, variant)
        if ruleset.name == name:
            return ruleset
    return load_ruleset(name, variant)


def describe_changes(changed: list) -> str:
    """'changed def x; new entity y ...', at most 12 of them."""
    if not changed:
        return "the content differs, but no definition or piece of data did (file layout?)"
    return "; ".join(changed[:12]) + (f"; and {len(changed) - 12} more" if len(changed) > 12 else "")


# ------------------------------------------------------------------ what a state may hold

_KINDS = {type(None): "none", bool: "true/false", int: "a whole number", str: "a string",
          list: "a list", dict: "a mapping"}


def _kind(value) -> str:
    return _KINDS.get(value.__class__) or f"a {type(value).__name__}"


def _fine(x, limit: int) -> bool:
    """Whether ``x`` is plain game data: JSON without fractional numbers, whole numbers within
    ``limit`` (the quick walk; :func:`_plain` says where it is not)."""
    t = x.__class__
    if t is str or t is bool or x is None:
        return True
    if t is int:
        return -limit <= x <= limit
    if t is list:
        return all(_fine(v, limit) for v in x)
    if t is dict:
        return all(_fine(v, limit) for v in x.values())
    return False


def _plain(value, path: str) -> str | None:
    """Why ``value`` is not plain game data, naming where in it; None when it is."""
    if _fine(value, MAX_STORED):
        return None
    todo = [(value, path)]
    while todo:
        x, at = todo.pop()
        if _fine(x, MAX_STORED):
            continue
        if isinstance(x, list):
            todo.extend((v, f"{at}[{i}]") for i, v in enumerate(x))
        elif isinstance(x, dict):
            todo.extend((v, f"{at}.{k}") for k, v in x.items())
        elif isinstance(x, int) and not isinstance(x, bool):
            return f"{at} holds a value a game cannot: {x} is beyond ±{MAX_STORED}"
        else:
            return f"{at} holds a value a game cannot: {_short(x)} is {_kind(x)} (whole numbers only)"
    return None


def _typed(value, start, at: str) -> str | None:
    """Why ``value`` cannot be a value of what started as ``start``, or None: plain game data,
    within the limits of a value a rule stores (:func:`check_storable`: a text's length, how
    deep lists nest, how many values), of the kind it starts as."""
    if not _fine(value, MAX_STORED):
        return _plain(value, at)
    try:
        check_storable(value)
    except (RuleFault, ValueError) as err:
        return f"{at} holds a value a game cannot: {err}"
    if value is None or start is None or value.__class__ is start.__class__:
        return None
    if _kind(value) != _kind(start):
        return f"{at}: {_short(value)} is {_kind(value)}; it must be {_kind(start)} (or none), as it starts"
    return None


def check_types(ruleset, state: dict, where: str = "<save>") -> None:
    """BadSave (RR304) naming the first field, variable or action that the ruleset's schema
    refuses. The state has the shape of a game's (its keys, entities and fields are checked
    before this)."""
    start = ruleset.start
    for e, record in state["entities"].items():
        base = start["player"] if e in state["kinds"]["players"] else start["entities"][e]
        kind = "players" if e in state["kinds"]["players"] else base.get("kind")
        if record.get("id") != e:
            raise refuse(f"entities.{e}.id: {_short(record.get('id'))} is not the entity's own id {e}", where)
        if kind is not None and record.get("kind") != kind:
            raise refuse(f"entities.{e}.kind: {_short(record.get('kind'))}; {e} is of kind {kind}", where)
        for field, value in record.items():
            why = _typed(value, base.get(field, _PLAYER_SEATING.get(field)), f"entities.{e}.{field}")
            if why:
                raise refuse(why, where)
        cash = record.get("cash")
        if isinstance(cash, int) and not isinstance(cash, bool) and cash < 0 and not record.get("unlimited"):
            raise refuse(f"entities.{e}.cash: {cash} is below 0, which paying never makes", where)
    for name, value in state["globals"].items():
        why = _typed(value, start["globals"].get(name), f"globals.{name}")
        if why:
            raise refuse(why, where)
    for i, frame in enumerate(state["stack"]):
        why = _plain(frame.get("L"), f"stack[{i}].locals") if isinstance(frame, dict) else None
        if why:
            raise refuse(why, where)
    why = first_misfit(state, ruleset.proven)
    if why:
        raise BadSave(Diagnostic("RR314", why, Pos(where, 0, 0), hint=MISFIT_HINT))
    names = _action_names(ruleset)
    for i, action in enumerate(state["history"]):
        if not isinstance(action, list) or not action or not isinstance(action[0], str):
            raise refuse(f"history[{i}] holds a value a game cannot: {_short(action)} is not an "
                         "action ([NAME, value...])", where)
        if action[0] not in names:
            raise refuse(f"history[{i}]: {_short(action[0])} is no action or option of {ruleset.name}", where)
        why = _plain(action, f"history[{i}]")
        if why:
            raise refuse(why, where)
        if any(v.__class__ in (list, dict) for v in action[1:]):   # an action's values are single values
            raise refuse(f"history[{i}] holds a value a game cannot: {_short(action)} is not an action "
                         "([NAME, value...])", where)


MISFIT_HINT = "give it a value of the type the rules store there (or none)"
_PROVEN = {"int": int, "bool": bool, "str": str, "list": list, "map": dict}


def first_misfit(state: dict, proven: dict) -> str | None:
    """Why the first field, variable or paused rule's local of ``state`` whose type the rules
    prove (``proven``, ``Ruleset.proven``) holds a value of another type does not fit, or None:
    the one check of what comes from outside the rules. Any of them may be none."""
    entities = state["entities"]

    def misfit(value, t: str, at: str) -> str | None:
        if value is None or value.__class__ is _PROVEN.get(t):
            return None
        if t.startswith("entity:") and value.__class__ is str and \
                (entities.get(value) or {}).get("kind") == t[7:]:
            return None
        if is_row(t) and value.__class__ is list:   # a row: as many items, each of its own type
            types = row_items(t)
            if len(value) != len(types):
                return f"{at}: {_short(value)} is not a list of {len(types)} items, the only kind the rules store there"
            return next((why for i, (x, y) in enumerate(zip(value, types))   # (an item only none yet: anything)
                         if is_proven(y) and (why := misfit(x, y, f"{at}[{i}]"))), None)
        if t.startswith("list:") and value.__class__ is list:   # a list, each item of its type
            return next((why for i, x in enumerate(value) if (why := misfit(x, t[5:], f"{at}[{i}]"))), None)
        if t.startswith("map:") and value.__class__ is dict:   # a map, each value of its type
            return next((why for k, x in value.items() if (why := misfit(x, t[4:], f"{at}[{k!r}]"))), None)
        what = f"the id of an entity of kind {t[7:]}" if t.startswith("entity:") else _WORDS[t.split(":", 1)[0][:4]]
        return f"{at}: {_short(value)} is not {what}, the only type the rules store there"
    fields = proven.get("fields", {})
    for e, record in entities.items():
        for field, t in fields.get(record.get("kind"), {}).items():
            why = field in record and misfit(record[field], t, f"entities.{e}.{field}")
            if why:
                return why
    for name, t in proven.get("variables", {}).items():
        why = name in state["globals"] and misfit(state["globals"][name], t, f"globals.{name}")
        if why:
            return why
    units = proven.get("locals", {})
    for i, frame in enumerate(state["stack"]):
        values = frame.get("L") if isinstance(frame, dict) else None   # (a damaged frame: RR304)
        if not isinstance(values, dict) or not isinstance(frame.get("c"), str):
            continue
        types = units.get(frame["c"], {})
        for name, t in types.items():
            why = name in values and misfit(values[name], t, f"stack[{i}].locals.{name}")
            if why:
                return why
        loops = proven.get("loops", {}).get(frame["c"], {})
        lists = proven.get("lists", {}).get(frame["c"], ())
        for slot, value in values.items():   # a loop's hidden local: what it gives its variable
            if slot[:1] == "$" and slot[1:2].isdigit() and slot.rpartition("@")[2] in lists and \
                    not (value.__class__ is list and len(value) == 2 and value[0].__class__ is list):
                return f"stack[{i}].locals.{slot}: {_short(value)} is not a loop over a list, the only loop the rules make there"
            var, items = loop_items(slot, value, loops)
            for x in items if var in types else ():
                why = misfit(x, types[var], f"stack[{i}].locals.{slot}")
                if why:
                    return why
    return None


_WORDS = {"int": "a whole number", "bool": "true/false", "str": "a string", "list": "a list", "map": "a mapping"}
_PLAYER_SEATING = {"id": "", "kind": "", "name": "", "seat": 0}   # what every player record has


def _action_names(ruleset) -> set:
    """The names an action of this ruleset can have: its actions' and options' names."""
    from .checks.lint_coverage import rules_of
    return {r["name"] for r in rules_of(ruleset) if r["kind"] in ("action", "option")}


def replayed(game, where: str = "<save>"):
    """The game a save's history gives, played again from its seed: a new game object (as a
    clone: an empty log, nothing to undo). BadSave (RR304) at the first action of the history
    that is not legal when replayed, or naming the first field whose saved value is not what
    the history gives (the paused rules' frames are taken from the replay, not the file). In an
    open round of secret choices, the commitments made so far (not in the history until the
    reveal) are made again after it, in the order they were made."""
    from .engine.commitments import open_round
    state = game.state
    found = open_round(game.ruleset.program, state)
    fresh = _replay(game.ruleset, state, found[1]["commits"] if found is not None else {}, where)
    _same_state(state, fresh.state, where)
    return fresh.clone()


def replayed_under(ruleset, state, where: str, changed: str, tell):
    """The game a save's history gives under ``ruleset``, rules that changed since the save was
    made (``changed`` says how): BadSave (RR304) at the first action no longer legal; else the
    game, and ``tell`` is told it was replayed and whether it came out as the save has it. The
    commitments made so far in an open round of secret choices are made again after it."""
    if not (isinstance(state, dict) and isinstance(state.get("history"), list)
            and all(isinstance(state.get(k), int) for k in ("players", "seed"))):
        raise refuse("the save's 'history', 'players' or 'seed' is missing or damaged", where)
    stack = state.get("stack")
    top = stack[-1].get("locals") if isinstance(stack, list) and stack and isinstance(stack[-1], dict) else None
    top = top if isinstance(top, dict) else {}
    commits: dict = next((v["commits"] for v in top.values() if isinstance(v, dict)
                    and isinstance(v.get("commits"), dict) and isinstance(v.get("seats"), list)), {})
    try:
        fresh = _replay(ruleset, state, commits, where)
    except BadSave as err:
        raise BadSave(Diagnostic(
            "RR304", f"the rules changed since this game was saved ({changed}), and its history no "
            f"longer replays under them: {err.diagnostics[0].message}", Pos(where, 1, 1),
            hint="load it with the rules it was saved with: name their folder")) from None
    try:
        _same_state(state, fresh.state, where, ("stack", "hash", "format"))
        outcome = "the game is the same as the save's"
    except BadSave as err:
        outcome = f"the game differs from the save's: {err.diagnostics[0].message}"
    made = len(state["history"])
    tell(f"{where}: the rules changed since this game was saved ({changed}), so it was replayed "
         f"under today's rules ({made} decision{'' if made == 1 else 's'}), and {outcome}")
    return fresh.clone()


def _replay(ruleset, state: dict, commits: dict, where: str):
    """A new game of ``ruleset`` with the players and seed of ``state``, its history applied and
    then ``commits`` (seat -> action, an open round's, in the order made); BadSave (RR304) at the
    first that is not legal."""
    from .errors import RailrulesError
    actions = [(f"history[{i}]", a, None) for i, a in enumerate(state["history"])] \
        + [(f"the commitment of {seat}", action, seat) for seat, action in commits.items()]
    try:
        fresh = ruleset.new_game(state["players"], state["seed"])
    except RailrulesError as err:
        raise refuse(f"cannot start its game again: {err.diagnostics[0].message}", where) from None
    for at, action, seat in actions:
        try:
            fresh.apply(action, player=seat)
        except RailrulesError as err:
            raise refuse(f"{at}: {_short(action)} is not legal when the game is replayed from its "
                         f"seed: {err.diagnostics[0].message}", where) from None
    return fresh


def _same_state(saved: dict, state: dict, where: str, besides=("stack",)) -> None:
    """BadSave naming the first value of ``saved`` (all but ``besides``) that ``state`` differs in."""
    now = json.loads(json.dumps(state))
    for key, value in saved.items():
        if key not in besides:
            _same(value, now.get(key), key, where)


def replays(game) -> bool:
    """Whether the game is what its history gives from its seed: false for a position set up
    with ``Game.execute`` (a scenario's), whose save cannot be checked by replaying it."""
    try:
        replayed(game)
    except BadSave:
        return False
    return True


def _same(saved, replay, at: str, where: str) -> None:
    """BadSave naming the first place where ``saved`` differs from ``replay`` (bounded depth:
    both passed :func:`depth_check` or were made by the engine)."""
    if isinstance(saved, dict) and isinstance(replay, dict):
        for k in sorted(set(saved) | set(replay), key=str):
            _same(saved.get(k, _MISSING), replay.get(k, _MISSING), f"{at}.{k}", where)
    elif isinstance(saved, list) and isinstance(replay, list) and len(saved) == len(replay):
        for i, (a, b) in enumerate(zip(saved, replay)):
            _same(a, b, f"{at}[{i}]", where)
    elif saved.__class__ is not replay.__class__ or saved != replay:
        raise refuse(f"{at}: the save holds {_short(saved)}, but its history gives "
                     f"{_short(replay)} when the game is replayed from its seed", where)


_MISSING = object()


def _short(value) -> str:
    """A value as JSON, cut at 60 characters."""
    if value is _MISSING:
        return "nothing"
    try:
        text = json.dumps(value)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
