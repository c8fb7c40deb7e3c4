"""Must-know memories: the rules a task touches reach the agent on that turn (DESIGN invariant 10;
seed 002, "identity and must-know facts are never left to similarity").

A family has few constraints and standing directives (an allergy, a diet, "always check with me
before booking"), and a task can need one that shares no word with it: "what should we bring to
the potluck" needs Noor's sesame allergy. Similarity alone ranks such a rule below the memories
that talk about potlucks. So every turn-level lookup asks the index for the family's current
constraints and directives as well (a small, filtered pass), and keeps those that bear on the
message:

- the message is about a kind of task the rule governs: food (a meal, a recipe, a restaurant, a
  party, a snack, groceries) and the rule is about what someone eats; booking, buying or paying
  and the rule is about bookings or spending; driving, pickups or rides and the rule is about
  them; messages and posts; childcare; and
- the rule concerns someone the message involves: a person it names, or everyone when it names
  no one or says "everyone", "the family", "we", "the kids" (a household rule concerns everyone);
- or the message shares a word of substance with the rule ("can stan have grapefruit juice").

They go ahead of ordinary candidates, within the lookup's item and token caps: the people the
message names first, hard rules before soft, then by the index's similarity.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from family_memory.domain.memory import MemoryType, Strength
from family_memory.domain.text import normalise_for_match
from family_memory.formation.text_similarity import content_tokens
from family_memory.ports.catalog import CatalogRow

#: Memory types that carry rules.
RULE_TYPES = frozenset({MemoryType.CONSTRAINT, MemoryType.DIRECTIVE})
#: How many of the family's rules the filtered pass asks the index for (a family has few).
POOL = 40

_TASKS: dict[str, re.Pattern[str]] = {
    "food": re.compile(
        r"\b(?:eat|eats|eating|food|foods|meal|meals|dinner|dinners|lunch|lunches|breakfast|brunch|supper|snack|"
        r"snacks|recipe|recipes|cook|cooking|bake|baking|baked|cake|cakes|cupcakes?|dessert|desserts|treat|treats|"
        r"restaurant|restaurants|takeout|takeaway|take-away|menu|party|parties|potluck|picnic|bbq|barbecue|braai|"
        r"grocer(?:y|ies)|shopping|shop|supermarket|pack(?:ed)?|lunchbox|tiffin|sweets|candy|chocolate|pizza|"
        r"sandwich(?:es)?|drink|drinks|coffee|juice|iftar|feast|buffet|catering|bake sale|birthday|cater|"
        r"ingredients?|dish|dishes|bring|make for|order in|sleepover|playdate|halloween|christmas|eid|diwali|"
        r"thanksgiving|easter|cafe|café|ice cream|fruit|sweet|breakfast)\b",
        re.I,
    ),
    "booking": re.compile(
        r"\b(?:book|booking|reserve|reservation|schedule|appointment|appt|sign (?:\w+ )?up|register|buy|purchase|"
        r"order|pay|paying|payment|tickets?|arrange|set (?:that|it|this) up|set up|cancel|subscribe|spend|"
        r"instalments?|installments?|finance|loan|credit|deposit|quote|hire)\b",
        re.I,
    ),
    "driving": re.compile(
        r"\b(?:drive|driving|drives|pick (?:\w+ )?up|pickup|pick-up|drop (?:\w+ )?off|drop-off|ride|rides|lift|"
        r"car|van|school run|collect|taxi|uber|carpool|motorway|trip|outing|take (?:him|her|them) to)\b",
        re.I,
    ),
    "messaging": re.compile(
        r"\b(?:send|text|message|email|e-mail|post|reply|invite|invitations?|share|group chat|whatsapp|call|"
        r"phone|remind|tell)\b",
        re.I,
    ),
    "care": re.compile(
        r"\b(?:sitter|babysit\w*|nanny|childcare|watch (?:the )?kids|look after|mind (?:the )?kids|sleepover|"
        r"leave (?:him|her|them))\b",
        re.I,
    ),
}
_RULE_TOPICS: dict[str, re.Pattern[str]] = {
    "food": re.compile(
        r"\b(?:allerg\w*|anaphyla\w*|epipen|vegetarian|vegan|pescatarian|halal|kosher|jain|gluten|coeliac|celiac|"
        r"dairy|lactose|milk|nuts?|peanuts?|tree nuts?|eggs?|shellfish|fish|sesame|soy|wheat|diabet\w*|sugar|"
        r"sugary|diet|dietary|eat|eats|eating|food|meat|pork|beef|chicken|caffeine|spicy|salt|salty|sodium|"
        r"potassium|fast|fasting|ramadan|onion|garlic|grapefruit|kiwi|alcohol|drink|drinks|caffeine|cholesterol|"
        r"snack|snacks|sweets|dessert|meal|meals|cook|cooking|kitchen|intoleran\w*|gelatine|gelatin|renal|kidney)\b",
        re.I,
    ),
    "booking": re.compile(
        r"\b(?:book|booking|bookings|reserve|reservation|appointment|schedule|scheduling|spend|spending|money|"
        r"cost|costs|pay|paying|buy|buying|purchase|price|budget|check with|ask (?:me|first)|approve|cash|"
        r"credit|interest|finance|klarna|debt|loan|mornings?|evenings?|afternoons?|before \d|after \d)\b",
        re.I,
    ),
    "driving": re.compile(
        r"\b(?:drive|driving|drives|car|cars|van|truck|pick ?up|pickup|pick-up|drop ?off|ride|rides|lift|seat|"
        r"booster|motorway|licen[cs]e|learner|passenger)\b",
        re.I,
    ),
    "messaging": re.compile(
        r"\b(?:send|sending|message|messages|text|texts|post|posting|email|emails|group chat|share|sharing|"
        r"mention|tell|call|calls|phone|whatsapp|buzz|notification|notifications|before \d)\b",
        re.I,
    ),
    "care": re.compile(
        r"\b(?:sitter|babysit\w*|nanny|childcare|leave (?:her|him|them)|alone|met|stranger|look after|mind)\b", re.I
    ),
}
_FIRST_PERSON = re.compile(r"\b(?:i|i'm|i've|me|my|mine)\b", re.I)
_EVERYONE = re.compile(
    r"\b(?:everyone|everybody|all of us|the family|whole family|family|we|us|our|the kids|kids|the children|"
    r"children|the boys|the girls|the twins|guests|people|friends)\b",
    re.I,
)


@dataclass(frozen=True)
class MustKnow:
    row: CatalogRow
    why: str  # "food rule for Noor", "shares 'grapefruit'"
    rank: tuple[int, int, int]


def tasks_of(message: str) -> set[str]:
    """The kinds of task a message is about ("food", "booking", ...)."""
    return {task for task, pattern in _TASKS.items() if pattern.search(message)}


def rule_topics(row: CatalogRow) -> set[str]:
    text = " ".join((row.about, row.summary, row.when_to_use))
    return {topic for topic, pattern in _RULE_TOPICS.items() if pattern.search(text)}


def people_named(message: str, names: dict[str, frozenset[str]]) -> set[str]:
    """Entity ids of the people (and pets) a message names, by any name the family uses for them."""
    folded = normalise_for_match(message)
    found: set[str] = set()
    for name, entity_ids in names.items():
        if len(name) > 1 and re.search(rf"(?<!\w){re.escape(name)}(?:'s)?(?!\w)", folded):
            found |= entity_ids
    return found


def must_know(
    message: str,
    rows: Iterable[tuple[CatalogRow, int]],
    names: dict[str, frozenset[str]],
    speaker: frozenset[str] = frozenset(),
) -> list[MustKnow]:
    """The rules among ``rows`` (each with its place in the filtered pass) that bear on
    ``message``, most pressing first. ``names``: every name the family uses, to the entity ids;
    ``speaker``: the entity of the member who sent it ("I", "me": their rules concern them).
    A directive is an instruction to the assistant, so it concerns whoever the task is for;
    a constraint concerns the people it applies to."""
    tasks = tasks_of(message)
    named = people_named(message, names) | (speaker if _FIRST_PERSON.search(message) else frozenset())
    everyone = not named or bool(_EVERYONE.search(message))
    name_words = {w for name in names for w in content_tokens(name)}
    message_words = set(content_tokens(message)) - name_words  # a name alone ties nothing to a rule
    found: list[MustKnow] = []
    for row, place in rows:
        if row.type not in RULE_TYPES:
            continue
        for_named = bool(set(row.applies_to) & named)
        household = not row.applies_to or row.type is MemoryType.DIRECTIVE
        involved = for_named or household or everyone
        topics = rule_topics(row)
        shared = sorted(
            (message_words & set(content_tokens(" ".join((row.about, row.summary, row.when_to_use))))) - _WEAK
        )
        why = ""
        if involved and tasks & topics:
            task = sorted(tasks & topics)[0]
            why = f"{task} rule" + (" for someone the message names" if for_named else "")
        elif shared and (for_named or household or not named):
            why = f"shares {', '.join(shared[:3])!r}"
        if not why:
            continue
        rank = (0 if for_named else 1, 0 if row.strength is Strength.HARD else 1, place)
        found.append(MustKnow(row, why, rank))
    return sorted(found, key=lambda m: m.rank)


#: Words too common to tie a message to a rule on their own.
_WEAK = frozenset(
    content_tokens(
        "always never anything something everything thing things time day days week today tomorrow please "
        "need want make get go going can could would should will family kid kids child children home house "
        "one two first next good new like love know think"
    )
)


def names_of(entities: Sequence[tuple[str, Sequence[str]]]) -> dict[str, frozenset[str]]:
    """``{comparison form of a name: entity ids}`` from (entity id, names) pairs (first names too)."""
    out: dict[str, set[str]] = {}
    for entity_id, names in entities:
        for name in names:
            folded = normalise_for_match(name)
            for form in {folded, folded.split()[0] if folded.split() else ""}:
                if len(form) > 1:
                    out.setdefault(form, set()).add(entity_id)
    return {name: frozenset(ids) for name, ids in out.items()}


NameBook = Callable[[str], dict[str, frozenset[str]]]
