"""The tests: tests/core the core's, tests/layers the layers', one module per section or
topic (tests/README.md maps them); tests/_testing.py what they share."""
