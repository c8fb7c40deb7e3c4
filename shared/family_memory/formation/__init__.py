"""Formation: from a finished conversation to cited, reconciled memories.

The pipeline, one module per step:

- ``intake``: a transcript is validated and stored once at ``sessions/{id}.json``.
- ``extraction`` (the port), ``offline`` (the rule-based extractor), supplied
  candidates, and the Bedrock adapter in ``adapters/aws``: proposals, each with
  the turns and the verbatim quote that support it.
- ``validation``: checks by code, not judgment; every rejection is kept with
  its reason in ``candidates/{session_id}.json`` (``document``).
- ``reconcile``: each accepted candidate against what the family already has
  (``similar``, ``suppressions``, ``entities``, ``decisions``), applied through
  the write protocol under the family's lease.
- ``service``: the functions the handlers and the CLI call; ``replay`` runs a
  family's history through the same path.
"""
