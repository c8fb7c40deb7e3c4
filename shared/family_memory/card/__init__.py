"""The family's own changes to its memory (seed section 10): add, edit, forget,
forget a group (count first), and the evidence and lineage views.

Every change goes through the write protocol under the family's lease, so it
never overwrites formation or a dream pass, and produces a change record whose
actions say exactly what happened: add -> ADD; edit -> SUPERSEDE (the old
memory) + ADD (the new one); forget -> RETRACT + a suppression rule.
"""
