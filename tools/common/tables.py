"""The tables the figure commands print (compare, coverage): one table, two faces.

A :class:`Table` is plain data: a title, a header, rows of text cells and notes under it.
:func:`plain` writes it as aligned text (what tests, pipes and files get); :func:`show` prints
it with rich's colours and borders when the output is a terminal and rich is installed
(``pip install ".[terminal]"``), and as plain text otherwise.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass, field


@dataclass
class Table:
    title: str
    header: list
    rows: list = field(default_factory=list)
    notes: list = field(default_factory=list)     # lines under the table
    right: tuple = ()                              # indices of right-aligned (number) columns
    marked: set = field(default_factory=set)       # indices of rows to highlight


def plain(t: Table) -> str:
    rows = [t.header] + t.rows
    widths = [max(len(r[i]) for r in rows) for i in range(len(t.header))]

    def line(r):
        return "  ".join(c.rjust(w) if i in t.right else c.ljust(w)
                         for i, (c, w) in enumerate(zip(r, widths))).rstrip()
    return "\n".join([t.title, "", *map(line, rows), *([""] + t.notes if t.notes else [])])


def show(t: Table, file=None) -> None:
    file = file or sys.stdout
    try:
        if not file.isatty():
            raise ImportError
        from rich import box
        from rich.console import Console
        from rich.table import Table as RichTable
    except ImportError:
        print(plain(t), file=file)
        return
    table = RichTable(title=t.title, box=box.SIMPLE_HEAVY, title_justify="left")
    for i, name in enumerate(t.header):
        table.add_column(name, justify="right" if i in t.right else "left", overflow="fold")
    for k, row in enumerate(t.rows):
        table.add_row(*row, style="bold yellow" if k in t.marked else None)
    console = Console(file=file, highlight=False)
    console.print(table)
    for note in t.notes:
        console.print(note, markup=False)
