"""``from railrules.pettingzoo import env, parallel_env``: PettingZoo's import form.

This folder installs as the package ``railrules.pettingzoo`` (pyproject.toml's package-dir);
it lives in ``tools/agents/import_forms/`` rather than at the checkout's root because the root
is on ``sys.path`` when Python runs from it, and a ``pettingzoo`` folder there would hide the
PettingZoo library.
The environment itself is :mod:`railrules.tools.agents.pettingzoo_env`.
"""
from railrules.tools.agents.pettingzoo_env import RulesEnv, RulesParallelEnv, env, parallel_env

__all__ = ["env", "parallel_env", "RulesEnv", "RulesParallelEnv"]
