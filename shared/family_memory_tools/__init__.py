"""Tools around the service, not the service: the walk-through (``family-memory walkthrough``)
and the benchmarks (``family-memory bench``). They ship in the distribution for the command
line, never in the Lambda layer (``layers/family-memory/Makefile`` leaves this package out,
and no module of ``family_memory`` but the CLI names it)."""
