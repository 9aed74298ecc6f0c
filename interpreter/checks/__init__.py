"""Lint checks run on a loaded ruleset (``railrules lint``), one function per file.

Each has the signature ``check_x(ruleset, sink) -> None``: ``check_`` reports errors,
``lint_`` warnings. They run after a clean load, in the order of :data:`CHECKS`. Each is
imported when the checks run: the loader imports this package for ``check_definitions``,
``library_contract`` and ``check_secrets`` (the engine hides what it finds) alone, and a command
that only plays needs none of the others.
"""
from importlib import import_module

CHECKS = ("check_board", "check_references", "check_types", "check_yaml_uses", "check_secrets",
          "lint_unreachable", "lint_citations", "lint_coverage")
RUNNING_CHECKS = ("check_conserve",)  # these start a game: only for a ruleset that loaded cleanly


def check(name: str):
    """The check function ``name`` of the module of the same name."""
    return getattr(import_module(f".{name}", __name__), name)


def run_checks(ruleset, sink, runnable: bool = True) -> None:
    """``runnable``: the ruleset loaded cleanly; a game is started only if the checks before
    found no error either (a game would only fail again where they point)."""
    for name in CHECKS:
        check(name)(ruleset, sink)
    if runnable and not sink.errors:
        for name in RUNNING_CHECKS:
            check(name)(ruleset, sink)
