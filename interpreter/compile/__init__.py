"""The one back end: syntax tree -> Python source of whole code units, a checked mode of the
same generator, every line written through one writer (writer.py), and a dump of what it wrote
(DESIGN: compile/)."""
