"""``python -m railrules``: the same as the ``railrules`` command."""
from .tools.cli import main

raise SystemExit(main())
