"""The HTTP API's routes, one Powertools ``Router`` per audience.

- ``agent``: what the assistant's backend calls on every conversation and turn: the
  brief (a conditional fetch), the turn-level lookup, the read tools and their specs.
- ``card``: the family's memory card: list, show, evidence, lineage, add, edit,
  forget, forget a group.
- ``sessions``: session end.

``schema`` holds every request and response model (the OpenAPI document is
generated from them, ``docs/openapi.json``); ``shared`` what every router uses.
The resolver that includes them, its error table and its body hardening are in
``app/api.py``. A route parses nothing by hand: its path, query, header and body
parameters are typed, validated by Powertools before it runs, and it calls one
service function and returns one response model.
"""
