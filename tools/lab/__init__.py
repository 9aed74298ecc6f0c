"""Measuring a ruleset: simulate, compare (arms, statistics, sequential stopping, reports, null
comparisons), tune, tournament, coverage, bench, and the runner that plays many games in
processes or on a cluster.

May import: the interpreter, :mod:`..common`, :mod:`..bots`, :mod:`..pictures`, :mod:`..author`
(bench times lint).
"""
