"""The core's tests: one module per section or topic of sections 1-23 (tests/README.md)."""
