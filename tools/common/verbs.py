"""What the verbs' modules share when they run (each verb's ``run(args)``; :mod:`railrules.tools.cli`
holds the table of verbs and the options several share): the exit codes, :class:`Usage`, the
player count asked for, the output files checked before any work, and a run's figures printed."""
from __future__ import annotations

import json
import sys
from pathlib import Path

EXIT_OK, EXIT_FAIL, EXIT_USAGE = 0, 1, 2
STOPPED = 130   # Ctrl-C or --time-limit: the figures are those of the games finished


class Usage(Exception):
    """A usage error found after parsing (exit 2): the message says what to type instead."""


def players(ruleset, wanted: int | None) -> int:
    """The players of a verb's games: ``--players``, or 4 within the game's range."""
    if wanted is None:
        return min(max(4, ruleset.players_min), ruleset.players_max)
    if not ruleset.players_min <= wanted <= ruleset.players_max:
        raise Usage(f"--players: {ruleset.name} is for {ruleset.players_min} to "
                    f"{ruleset.players_max} players, not {wanted}")
    return wanted


def check_outputs(paths: dict, force: bool) -> None:
    """Refuse, before any work, the first of ``{option: path or None}`` that cannot be written:
    one that exists is a usage error (exit 2); one that cannot be written an OutputError (1)."""
    from railrules.tools.common.outputs import OutputExists, check
    try:
        check(paths, force)
    except OutputExists as err:
        raise Usage(str(err)) from None


def check_output(option: str, path: Path | None, force: bool, mine: Path | None = None) -> bool:
    """Refuse, before the game starts, a file the session could not write or would overwrite
    (``mine``: the file this session's game came from, which it may write back). Whether the
    file was there (so --force or ``mine`` allowed it)."""
    import os
    from railrules.tools.common.outputs import OutputError, OutputExists, check
    ours = mine is not None and path is not None and path.resolve() == mine.resolve()
    there = path is not None and os.path.lexists(path)
    try:
        check({option: path}, force or ours)
    except OutputExists as err:
        raise Usage(str(err)) from None
    except OutputError as err:
        raise Usage(f"{option} {path}: {err.why}") from None
    return there


def stopped_early(result: dict) -> bool:
    """Say so when a run of many games stopped early (its figures are the games finished)."""
    if result["partial"]:
        print("stopped early: the figures are those of the games finished", file=sys.stderr)
    return bool(result["partial"])


def figures(result: dict, as_json: bool, table) -> int:
    """Print a run's figures, as one JSON object or as a table; 130 when it stopped early."""
    from railrules.tools.common.tables import show
    if as_json:
        print(json.dumps(result))
    else:
        show(table(result))
    return STOPPED if stopped_early(result) else EXIT_OK
