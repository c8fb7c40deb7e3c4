"""Retrieval: the search index (a projection of the memory files), turn-level
lookup, and the agent's read-only tools."""
