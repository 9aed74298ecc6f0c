"""Writing a ruleset: lint and its fixes, the language server, `doc`, `new`, `code` (the Python
the interpreter writes), `codes` (the diagnostic codes explained) and the scenario tests
(`railrules test`).

May import: the interpreter, :mod:`..common`, :mod:`..bots`, :mod:`..pictures`.
"""
