"""What every room of tools/ shares: the files railrules writes for the user (:mod:`.outputs`),
the tables the figure commands print (:mod:`.tables`), diagnostics rendered for a terminal or a
file (:mod:`.diagnostics`), the garbage-collector guard for long work (:mod:`.heap`) and what
the verbs share when they run (:mod:`.verbs`: exit codes, usage errors, outputs checked first).

May import: the interpreter only.
"""
