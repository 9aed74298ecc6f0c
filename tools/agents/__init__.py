"""Adapters to agent libraries: PettingZoo (``pettingzoo_env``, imported as ``railrules.pettingzoo``)
and OpenSpiel (``openspiel_game``, imported as ``railrules.openspiel``), both on one fixed-size
encoding (``encoding``; ``railrules observe`` lists its slices). Also: ``example_bot`` (a bot of
your own for ``--bots``), ``train_maskable_ppo`` (an sb3-contrib example) and ``adapter_speed``
(steps per second through each adapter). The libraries are the optional extra ``agents``:
pip install ".[agents]".

May import: the interpreter, :mod:`..common`, :mod:`..bots`, :mod:`..pictures`, :mod:`..lab`.
"""
