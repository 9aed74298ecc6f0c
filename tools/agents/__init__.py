"""Adapters to agent libraries: PettingZoo (``pettingzoo_env``) and OpenSpiel
(``openspiel_game``), both on one fixed-size encoding (``encoding``). The libraries are the
optional extra ``agents``: pip install ".[agents]"."""
