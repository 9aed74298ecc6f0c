"""Walking the syntax tree: every node below a definition, in source order."""
from __future__ import annotations

from ..dsl import nodes as n


def walk(x):
    """Yield every node in ``x`` (a node, a list, or a tuple), depth first."""
    stack = [x]
    while stack:
        item = stack.pop()
        if isinstance(item, n.Node):
            yield item
            stack.extend(reversed(vars(item).values()))
        elif isinstance(item, (list, tuple)):
            stack.extend(reversed(item))
