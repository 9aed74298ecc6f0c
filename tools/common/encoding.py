"""Fixed-size numbers for agent libraries (PettingZoo, OpenSpiel): an action space and an
observation vector for any ruleset, in plain Python (the adapters turn them into arrays).

Both layouts are made once per (ruleset, variant, players) from the ruleset itself: its options
and parameters (from the rules), its kinds and entities, players and variables (from the data).
What the data cannot tell — which kind of value a parameter or a list field holds — is learned
from a few seeded random games played when the layout is made (``samples``, deterministic).

**Actions.** Every option name of the rules (an ``action`` or a ``choose`` option, in the order
of the rule files) gets a block of indices: the product of its parameters' value tables, first
parameter slowest. A parameter's table is: every entity of each kind it was seen to take (in
the ruleset's order), then the whole numbers 0..largest (the largest seen, or the largest whole
number in the starting state, whichever is greater), then the strings it was seen to take
(sorted), then false, true and none when seen. ``index(action)`` and ``action_at(i)`` convert;
a legal action whose value is outside the tables (a bid above the largest number) has no
index: it is left out of the mask and counted (``unmapped``). ``labels()`` lists every index's
label.

**Observations.** From ``game.view(player)`` (secret fields of others read ``hidden``): first
the observing seat and the seat to move (one-hot over the players; all zero when nobody is to
move), and whether the game is over; then each variable (sorted by name), then each entity of
each kind (players first, then the ruleset's kinds in order), each field sorted by name. A
field or variable takes (a field no sampled game changed, such as the board's fixed data, is
left out: it tells nothing about the state):
  - a number, true/false or none: 1 slot (true 1, false and none 0);
  - an entity or a string: 1 slot, its place in that field's table + 1 (0: none or unknown);
  - a list: one slot per value of the field's table (how many times it holds it), and one
    more: the list's length;
  - a map: one slot per key of the field's table (its number; 1/0 for other values);
  - hidden from this player: every slot -1.
``describe()`` lists the slots with what each one holds; ``slices()`` the slices (one per part of
the header and per field or variable) with what each encodes: ``railrules observe RULESET``
prints them.
"""
from __future__ import annotations

import json
import random
from dataclasses import dataclass, field

from railrules.interpreter.dsl.nodes import walk
from railrules.interpreter.dsl import nodes as n


@dataclass
class Table:
    """The values one slot group can take, in order; learned from what was seen."""
    kinds: list = field(default_factory=list)       # entity kinds, in the ruleset's order
    largest: int = -1                               # whole numbers 0..largest (-1: none seen)
    strings: set = field(default_factory=set)
    others: list = field(default_factory=list)      # False, True, None when seen

    def see(self, value, kind_of: dict) -> None:
        if isinstance(value, bool) or value is None:
            if value not in self.others:
                self.others.append(value)
        elif isinstance(value, int):
            self.largest = max(self.largest, value)
        elif isinstance(value, str) and value in kind_of:
            if kind_of[value] not in self.kinds:
                self.kinds.append(kind_of[value])
        elif isinstance(value, str):
            self.strings.add(value)

    def values(self, ids_of: dict, kind_order: list, floor: int = 0) -> list:
        """The table: entities, then 0..max(largest, floor) if numbers were seen, strings, others."""
        out: list = []
        for kind in sorted(self.kinds, key=kind_order.index):
            out += ids_of[kind]
        if self.largest >= 0:
            out += range(max(self.largest, floor) + 1)
        out += sorted(self.strings)
        out += [v for v in (False, True, None) if v in self.others]
        return out


def _key(value):
    """A value as a dictionary key that keeps 1, True and '1' apart."""
    return (type(value).__name__, value)


_MADE: dict = {}   # (ruleset folder, variant, content hash, players, samples, seed) -> Encoding


def encoding(ruleset, players: int, samples: int = 8, seed: int = 1) -> "Encoding":
    """The encoding of a ruleset for a number of players, made once per process."""
    key = (str(ruleset.root), ruleset.variant, ruleset.hash, players, samples, seed)
    if key not in _MADE:
        _MADE[key] = Encoding(ruleset, players, samples, seed)
    return _MADE[key]


class Encoding:
    """The action space and observation layout of one ruleset, variant and player count."""

    def __init__(self, ruleset, players: int, samples: int = 8, seed: int = 1):
        self.ruleset, self.players = ruleset, players
        start = ruleset.new_game(players, seed)
        state = start.view(None)
        self.seats = list(state["kinds"]["players"])
        self.kind_order = ["players"] + [k for k in ruleset.kinds if k != "players"]
        self.ids_of = {k: list(ruleset.kinds[k]) for k in self.kind_order if k != "players"}
        self.ids_of["players"] = self.seats
        self.kind_of = {i: k for k, ids in self.ids_of.items() for i in ids}
        largest = max([v for v in _leaves(state["entities"]) + _leaves(state["globals"])
                       if isinstance(v, int) and not isinstance(v, bool)], default=0)
        self.options = _option_names(ruleset)
        params: dict = {name: [] for name in self.options}
        fields: dict = {}
        self._first = json.loads(json.dumps(_whole(start)))
        self._changed: set = set()   # (kind or "globals", field) that some sampled state changed
        for step, game in enumerate(_sample_games(ruleset, players, samples, seed)):
            if step % 8 == 0 or game.is_over:   # the shapes of values: every 8th state is enough
                self._see_state(_whole(game), fields)
            for action in game.legal_actions():
                tables = params.setdefault(action.name, [])
                while len(tables) < len(action.args):
                    tables.append(Table())
                for t, v in zip(tables, action.args):
                    t.see(v, self.kind_of)
        self._action_layout(params, largest)
        self._observation_layout(fields)

    # ------------------------------------------------------------------ actions
    def _action_layout(self, params: dict, largest: int) -> None:
        self.blocks = []   # (option name, [value list per parameter], first index)
        self._where: dict = {}
        size = 0
        for name in params:
            tables = [t.values(self.ids_of, self.kind_order, largest) for t in params[name]]
            self.blocks.append((name, tables, size))
            self._where[name] = (size, [{_key(v): i for i, v in enumerate(vs)} for vs in tables],
                                 [len(vs) for vs in tables])
            count = 1
            for vs in tables:
                count *= len(vs)
            size += count
        self.size = size

    def index(self, action) -> int | None:
        """The index of an action, or None when a value of it is outside the tables."""
        where = self._where.get(action.name)
        if where is None:
            return None
        first, places, lengths = where
        if len(action.args) != len(places):
            return None
        i = 0
        for value, place, length in zip(action.args, places, lengths):
            at = place.get(_key(value))
            if at is None:
                return None
            i = i * length + at
        return first + i

    def action_at(self, index: int):
        """The action an index stands for (legal or not)."""
        from railrules.interpreter import Action
        if not 0 <= index < self.size:
            raise IndexError(f"action index {index} is outside 0..{self.size - 1}")
        for name, tables, first in reversed(self.blocks):
            if index >= first:
                rest, args = index - first, []
                for vs in reversed(tables):
                    rest, at = divmod(rest, len(vs))
                    args.append(vs[at])
                return Action(name, tuple(reversed(args)))
        raise IndexError(index)  # unreachable: the first block starts at 0

    def labels(self) -> list[str]:
        return [self.action_at(i).label for i in range(self.size)]

    def legal(self, game, seat: str | None = None) -> tuple[list[int], int]:
        """The indices of the legal actions (of ``seat``, by default the current player's),
        ascending, and how many legal actions have none."""
        out, unmapped = [], 0
        for action in game.legal_actions(seat):
            i = self.index(action)
            if i is None:
                unmapped += 1
            else:
                out.append(i)
        return sorted(out), unmapped

    # ------------------------------------------------------------------ observations
    def _see_state(self, view: dict, fields: dict) -> None:
        first = self._first
        for name, value in view["globals"].items():
            self._see_value(fields.setdefault(("globals", name), {}), value)
            if value != first["globals"].get(name):
                self._changed.add(("globals", name))
        for entity, record in view["entities"].items():
            was = first["entities"].get(entity, {})
            for f, value in record.items():
                self._see_value(fields.setdefault((record.get("kind"), f), {}), value)
                if value != was.get(f):
                    self._changed.add((record.get("kind"), f))

    def _see_value(self, shape: dict, value) -> None:
        """Note the shape of a value: scalar, single (an entity or string), list or map."""
        if isinstance(value, list):
            table = shape.setdefault("list", Table())
            for v in value:
                if isinstance(v, str):
                    table.see(v, self.kind_of)
        elif isinstance(value, dict):
            table = shape.setdefault("map", Table())
            for k in value:
                table.see(k, self.kind_of)
        elif isinstance(value, str):
            shape.setdefault("single", Table()).see(value, self.kind_of)
        else:
            shape.setdefault("scalar", True)

    def _observation_layout(self, fields: dict) -> None:
        self.slots: list[Slot] = []
        n = len(self.seats)
        self.header = 2 * n + 1
        for key in sorted(k for k in fields if k[0] == "globals" and k in self._changed):
            self._add_field("globals", key[1], fields[key])
        for kind in self.kind_order:
            names = sorted({f for (k, f) in fields if k == kind and (k, f) in self._changed})
            for entity in self.ids_of[kind]:
                for f in names:
                    self._add_field(entity, f, fields[(kind, f)])
        self.width = self.header + sum(s.width for s in self.slots)

    def _add_field(self, owner: str, name: str, shape: dict) -> None:
        form = "list" if "list" in shape else "map" if "map" in shape else "single" if "single" in shape else "scalar"
        table = shape[form].values(self.ids_of, self.kind_order) if form != "scalar" else []
        if form in ("list", "map"):
            table = [v for v in table if isinstance(v, str)]
        slot = Slot(owner, name, form, table)
        slot.secret = name in (self.ruleset.meta.get("secret") or {}).get(self.kind_of.get(owner), ())
        # a public variable or field the rules set from a secret (lint's RR116): hidden from all
        slot.leaked = ("variable" if owner == "globals" else "field", name) in self.ruleset.secrecy.get("state", ())
        self.slots.append(slot)

    def slices(self) -> list["Slice"]:
        """Every slice of the observation vector in order (they cover it exactly): its place, what
        it is and how it encodes it. ``observe`` fills the header, then ``self.slots`` in order."""
        n = len(self.seats)
        out = [Slice(0, n, "observer", f"1 at the observing seat's place in {self.seats}, else 0"),
               Slice(n, 2 * n, "to move", f"1 at the place of the seat to move in {self.seats} (all 0: nobody)"),
               Slice(2 * n, 2 * n + 1, "game over", "1 once the game is over, else 0")]
        for slot in self.slots:
            at = out[-1].stop
            out.append(Slice(at, at + slot.width, f"{slot.owner}.{slot.name}", slot.encodes()
                             + ("; -1 in each number when hidden from the observer" if slot.secret else "")))
        return out

    def observe(self, game, player: str | None) -> list[float]:
        """The observation vector of ``player`` (None: an onlooker), ``width`` numbers."""
        # the state is read, never copied: a secret field is hidden slot by slot, as game.view
        # hides it (a view copies the whole state: most of the time of an observation)
        view = game.state
        out = [0.0] * self.header
        n = len(self.seats)
        if player in self.seats:
            out[self.seats.index(player)] = 1.0
        if view["turn"] in self.seats and not view["result"]:
            out[n + self.seats.index(view["turn"])] = 1.0
        out[2 * n] = 1.0 if view["result"] is not None else 0.0
        ents, glob = view["entities"], view["globals"]
        for slot in self.slots:
            if slot.leaked or (slot.secret and game.hidden(slot.owner, slot.name, player)):
                out += slot.encode("hidden")
                continue
            value = glob.get(slot.name) if slot.owner == "globals" else ents.get(slot.owner, {}).get(slot.name)
            out += slot.encode(value)
        return out

    def observe_seats(self, game, seats: list) -> dict:
        """Seat -> its observation vector, for several seats at once: without a secret slot the
        seats' vectors differ only in the observer's place, so the rest is encoded once."""
        if any(slot.secret for slot in self.slots) or not seats:
            return {p: self.observe(game, p) for p in seats}
        first = self.observe(game, seats[0])
        out = {}
        for p in seats:
            vector = list(first)
            vector[:len(self.seats)] = [1.0 if p == q else 0.0 for q in self.seats]
            out[p] = vector
        return out

    def describe(self) -> list[str]:
        """What each slot of the observation holds, in order."""
        out = [f"observer is {p}" for p in self.seats] + [f"{p} to move" for p in self.seats] + ["game over"]
        for s in self.slots:
            what = f"{s.owner}.{s.name}"
            if s.form == "list":
                out += [f"{what} holds {v}" for v in s.table] + [f"{what} length"]
            elif s.form == "map":
                out += [f"{what}[{v}]" for v in s.table]
            elif s.form == "single":
                out.append(f"{what} (1 + its place in {s.table})")
            else:
                out.append(what)
        return out


@dataclass
class Slice:
    """A part of the observation vector: ``vector[start:stop]`` holds ``name``, as ``encodes`` says."""
    start: int
    stop: int
    name: str
    encodes: str


class Slot:
    """One field's (or variable's) part of the observation: its form, table and width."""

    def __init__(self, owner: str, name: str, form: str, table: list):
        self.owner, self.name, self.form, self.table = owner, name, form, table
        self.secret = False     # a field the ruleset declares secret (hidden from other players)
        self.leaked = False     # set from a secret by rules that leak it (hidden from every seat)
        self.place = {v: i for i, v in enumerate(table)}
        self.width = len(table) + 1 if form == "list" else len(table) if form == "map" else 1

    def encodes(self) -> str:
        """What the slot's numbers say, in words (as :meth:`encode` writes them)."""
        if self.form == "list":
            return f"a list: how many times it holds each of {self.table}, then its length"
        if self.form == "map":
            return f"a map: its value at each of {self.table} (a number; 1 for another value, 0 if absent)"
        if self.form == "single":
            return f"1 + its place in {self.table} (0: none or another value); a number as itself"
        return "a number as itself (true 1, false and none 0)"

    def encode(self, value) -> list[float]:
        form = self.form
        if value == "hidden" and "hidden" not in self.place:
            return [-1.0] * self.width
        if form == "scalar" or (form == "single" and not isinstance(value, str)):
            return [_number(value)]
        if form == "single":
            return [float(self.place.get(value, -1) + 1)]
        out = [0.0] * self.width
        if form == "list":
            if isinstance(value, list):
                place = self.place
                for v in value:
                    at = place.get(v) if isinstance(v, str) else None
                    if at is not None:
                        out[at] += 1.0
                out[-1] = float(len(value))
        elif isinstance(value, dict):
            for i, k in enumerate(self.table):
                if k in value:
                    v = value[k]
                    out[i] = 1.0 if isinstance(v, (str, list, dict)) else _number(v)
        return out


def _number(value) -> float:
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, (int, float)):
        return float(value)
    try:
        return float(value)       # a Fraction
    except (TypeError, ValueError):
        return 0.0


def _whole(game) -> dict:
    """The variables and entities with nothing hidden (read, never changed): a layout must
    make room for secret fields too."""
    return {"globals": game.state["globals"], "entities": game.state["entities"]}


def _leaves(x) -> list:
    if isinstance(x, dict):
        return [v for y in x.values() for v in _leaves(y)]
    if isinstance(x, list):
        return [v for y in x for v in _leaves(y)]
    return [x]


def _option_names(ruleset) -> list[str]:
    """Every option and action name of the rules, in the order of the rule files."""
    out: list[str] = []
    for d in ruleset.definitions:
        for node in walk(d):
            if isinstance(node, (n.Option, n.ActionDef)) and node.name not in out:
                out.append(node.name)
    return out


def _sample_games(ruleset, players: int, games: int, seed: int):
    """Every state of ``games`` seeded random games (the layouts learn value kinds from them)."""
    for g in range(games):
        game = ruleset.new_game(players, seed + g)
        pick = random.Random(seed + g)
        while True:
            yield game
            if game.is_over:
                break
            game.apply(pick.choice(game.legal_actions()))
