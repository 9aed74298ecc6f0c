"""Lint checks run on a loaded ruleset (``railrules lint``), one function per file.

Each has the signature ``check_x(ruleset, sink) -> None``: ``check_`` reports errors,
``lint_`` warnings. They run after a clean load, in the order of :data:`CHECKS`.
"""
from .check_board import check_board
from .check_conserve import check_conserve
from .check_references import check_references
from .check_types import check_types
from .check_yaml_uses import check_yaml_uses
from .lint_citations import lint_citations
from .lint_coverage import lint_coverage
from .lint_unreachable import lint_unreachable

CHECKS = [check_board, check_references, check_types, check_yaml_uses, lint_unreachable, lint_citations, lint_coverage]
RUNNING_CHECKS = [check_conserve]  # these start a game: only for a ruleset that loaded cleanly


def run_checks(ruleset, sink, runnable: bool = True) -> None:
    """``runnable``: the ruleset loaded cleanly; a game is started only if the checks before
    found no error either (a game would only fail again where they point)."""
    for check in CHECKS:
        check(ruleset, sink)
    if runnable and not sink.errors:
        for check in RUNNING_CHECKS:
            check(ruleset, sink)
