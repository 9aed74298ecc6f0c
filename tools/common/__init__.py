"""What every room of tools/ shares: the files railrules writes for the user (:mod:`.outputs`),
the tables the figure commands print (:mod:`.tables`), diagnostics rendered for a terminal or a
file (:mod:`.diagnostics`), the garbage-collector guard for long work (:mod:`.heap`), what
the verbs share when they run (:mod:`.verbs`: exit codes, usage errors, outputs checked first)
and the fixed-size numbers a game is given to learners as (:mod:`.encoding`: agent adapters,
learned estimates).

May import: the interpreter only.
"""
