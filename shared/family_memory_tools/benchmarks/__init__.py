"""Benchmarks: commands that print figures and the machine they ran on."""
