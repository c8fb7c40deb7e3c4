"""The offline extractor: a real, modest, rule-based extractor for explicit statements.

It reads only what family members wrote (user turns; never assistant or tool
turns), clause by clause, and proposes a candidate when a clause matches one
of its patterns. Every quote is the clause exactly as written, so validation
finds it in the cited turn. Its declared scope (docs/formation.md, section 2):

- standing instructions and household rules (``rules.py``): "always …",
  "never …", "don't …" + an action, "check with me before …", "call me …",
  "from now on …", "house rule: …", "no tablet before school", "only Jana or
  Tom may pick up Emil", "Ciarán must not drive on the motorway";
- allergies, intolerances, diets and medical food restrictions
  (``health.py``): hard constraints tagged health, in every ordinary phrasing;
- identity and relationships: "my daughter Maya", "our dog Pepper", "my name is …";
- preferences: "we love …", "she prefers …", "my favourite … is …";
- time (``timing.py``): one occasion or a range, with relative dates made
  absolute against the turn's local date; schedules that repeat and
  birthdays, as durable facts.

Who a clause is about comes from ``people.py``: never a sentence-initial
capitalised word, and a pronoun only when it resolves to one person. How a
turn is cut into clauses, and self-corrections, are in ``text.py``.

It is not a language model and does not pretend to be one: it is labelled
"offline rule-based extractor" wherever its output appears, and it misses
anything said less directly. Production extraction uses Bedrock.
"""

from family_memory.formation.offline.extractor import OFFLINE_LABEL, OFFLINE_NAME, OFFLINE_VERSION, OfflineExtractor

__all__ = ["OFFLINE_LABEL", "OFFLINE_NAME", "OFFLINE_VERSION", "OfflineExtractor"]
