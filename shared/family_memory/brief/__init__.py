"""The brief: what the agent starts every conversation with (seed section 6).

``compile`` builds it from the active memories, ``render`` turns it into the
prompt block, ``load`` reads it with a conditional fetch and drops expired
lines, ``patch`` removes or replaces a line the moment a memory is forgotten
or edited, and ``sources`` gathers a compile's inputs from the store.
"""
