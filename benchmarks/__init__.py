"""Hearth's benchmarks: `make bench` (or `python -m benchmarks`) prints one table."""
