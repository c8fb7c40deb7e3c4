"""Benchmarks: commands that print figures and the machine; not tests."""
