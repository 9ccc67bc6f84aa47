"""The layers' tests: one module per layer or topic of sections 24-35 (tests/README.md)."""
