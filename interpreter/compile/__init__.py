"""The one back end: syntax tree -> Python source of whole code units, a checked mode of the
same generator, and a dump of what it wrote (DESIGN: compile/)."""
