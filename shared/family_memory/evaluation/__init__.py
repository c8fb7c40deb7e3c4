"""``family-memory eval``: the seed's section-13 harness on a labelled set (docs/evaluation.md)."""
