"""Pictures of a board: the board model (what is drawn), text maps, SVG and PNG.

May import: the interpreter and :mod:`..common`.
"""
