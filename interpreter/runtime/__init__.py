"""What generated rule code and the engine share at run time (the floor of the interpreter)."""
