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

Facts join them for two kinds of task, read in a second filtered pass: a meal brings what lifts
or narrows a food rule ("Kamsi can have ice cream now") and the allergy kit of the people at the
table ("Do-hyun has an EpiPen"); a question about medicines ("what does dad take tonight"), or
a task that names one ("add obinna's folic acid to the shopping list"; a shopping list "for next
week" names none), brings what the people it involves take ("Stan's metoprolol is now 50 mg at 8 am and 8 pm");
a question of childcare ("who can watch rosie?") brings who looks after the children ("Chloe
next door is the only babysitter the family uses", a relationship).

They go ahead of ordinary candidates, within the lookup's item and token caps: the people the
message names first, hard rules before soft, then by the index's similarity.
"""

from __future__ import annotations

import functools
import re
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from family_memory.domain.memory import MemoryType, Strength
from family_memory.domain.text import normalise_for_match
from family_memory.formation.relations import ADULT_RELATIONS, CHILD_RELATIONS, KIN_WORDS
from family_memory.formation.text_similarity import STOPWORDS, content_tokens, content_words
from family_memory.ports.catalog import CatalogRow
from family_memory.retrieval.word_patterns import PatternSet, TextWords

#: Memory types that carry rules.
RULE_TYPES = frozenset({MemoryType.CONSTRAINT, MemoryType.DIRECTIVE})
#: What the filtered pass reads: the rules, and preferences, since a meal must also respect what
#: someone will not eat ("Maddie hates mushrooms").
POOL_TYPES = RULE_TYPES | {MemoryType.PREFERENCE}
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
        r"thanksgiving|easter|cafe|café|ice cream|fruit|sweet|breakfast|abendbrot|sabzi|jollof|roast|feed|"
        r"(?:book|reserve|get) (?:us )?a table|day trip|train|flight|road trip|sleeping over|sleep over|hosting|"
        # Whether someone may have something: "can idris have haribo", "is noor allowed to eat that".
        r"can (?!you\b|u\b|we\b|i\b)[\w'-]+ (?:have|eat|drink)|allowed (?:to )?(?:have|eat|drink))\b",
        re.I,
    ),
    "booking": re.compile(
        r"\b(?:book|booking|reserve|reservation|schedule|appointment|appt|sign (?:\w+ )?up|register|buy|purchase|"
        r"order|pay|paying|payment|tickets?|arrange|set (?:that|it|this) up|set up|cancel|subscribe|spend|"
        r"instalments?|installments?|finance|loan|credit|deposit|quote|hire|spread (?:the )?(?:cost|payments?)|"
        r"afford|cost|costs|price|prices|"
        # Finding a venue is booking one: "find somewhere nice to take ma maw for her lunch".
        r"find (?:us |me |them )?(?:somewhere|a place|a venue|a restaurant|a cafe|a café)|"
        r"somewhere (?:nice|to eat|to go))\b",
        re.I,
    ),
    "driving": re.compile(
        r"\b(?:drive|driving|drives|pick (?:\w+ )?up|pickup|pick-up|drop (?:\w+ )?off|drop-off|ride|rides|lift|"
        r"car|van|school run|collect|taxi|uber|lyft|ola|cab|auto|rickshaw|grab|bolt|carpool|motorway|trip|outing|"
        r"take (?:him|her|them|\w+) to)\b",
        re.I,
    ),
    "messaging": re.compile(
        r"\b(?:send|text|message|email|e-mail|post|reply|invite|invitations?|share|group chat|whatsapp|call|"
        r"phone|remind|tell)\b",
        re.I,
    ),
    "care": re.compile(
        r"\b(?:sitter|babysit\w*|nanny|childcare|watch (?:the )?kids|look after|mind (?:the )?kids|sleepover|"
        # "who can watch rosie?", "who could mind the twins".
        r"who (?:can|could|will|would) (?:watch|mind|look after|take care of|have) (?!the (?:game|match|film|movie))|"
        r"sleeping over|sleep over|leave (?:him|her|them)|need to know|staying with|stays with|camp|school trip)\b",
        re.I,
    ),
    "screens": re.compile(
        r"\b(?:tablet|ipad|phone|phones|screen|screens|screen time|tv|telly|youtube|games?|gaming|console|switch|"
        r"xbox|playstation|ps5|roblox|minecraft|fortnite|tiktok|instagram|snapchat|laptop|computer)\b",
        re.I,
    ),
    "medical": re.compile(
        r"\b(?:gp|doctor|doctors|dr|dentist|appointment|prescription|pharmacy|chemist|hospital|clinic|infection|"
        r"sick|ill|unwell|fever|medicine|medicines|meds|medication|antibiotics?|vaccin\w*|jab|check-?up|a&e|er|"
        r"pills?|doses?|refills?|inhaler|"
        # "what does dad take tonight", "has she taken her morning ones".
        r"what (?:does|do|did|is|has) [\w'-]+(?: [\w'-]+)? (?:take|taking|taken)\b(?! (?:to|along|with us))|"
        r"(?:take|taking|taken) (?:[\w'-]+ )?(?:tonight|"
        r"this morning|in the morning|at night|with (?:breakfast|dinner|food))|"
        r"urgent care|surgery|operation|pain|painkillers?|ibuprofen|paracetamol|tylenol|advil|"
        # Packing for a journey: what the travellers take goes in the bag ("what should I pack for
        # mummy ji and papa for the train"); not a packed lunch.
        r"pack(?:ing)?\b[^.?!]{0,60}?\b(?:train|flight|plane|trip|journey|holiday|travel|travelling|traveling|"
        r"overnight|sleepover|weekend away))\b",
        re.I,
    ),
}
#: The rules each kind of task must respect: whoever looks after a child needs their food and
#: medical rules too.
_TASK_TOPICS: dict[str, frozenset[str]] = {
    "food": frozenset({"food"}),
    "booking": frozenset({"booking"}),
    "driving": frozenset({"driving"}),
    "messaging": frozenset({"messaging"}),
    "care": frozenset({"care", "food", "medical"}),
    "medical": frozenset({"medical"}),
    "screens": frozenset({"screens"}),
}
_RULE_TOPICS: dict[str, re.Pattern[str]] = {
    "food": re.compile(
        r"\b(?:allerg\w*|anaphyla\w*|epipen|vegetarian|vegan|pescatarian|halal|kosher|jain|gluten|coeliac|celiac|"
        r"dairy|lactose|milk|nuts?|peanuts?|tree nuts?|eggs?|shellfish|fish|sesame|soy|wheat|diabet\w*|sugar|"
        r"sugary|diet|dietary|eat|eats|eating|food|meat|pork|beef|chicken|caffeine|spicy|salt|salty|sodium|"
        r"potassium|fast|fasting|ramadan|onion|garlic|grapefruit|kiwi|alcohol|drink|drinks|caffeine|cholesterol|"
        r"snack|snacks|sweets|dessert|meal|meals|cook|cooking|kitchen|intoleran\w*|gelatine|gelatin|renal|kidney|"
        r"seafood|prawns?|shrimp|crab|lobster|clams?|octopus|squid|mussels?|oysters?|crayfish|feke|mayo|mayonnaise|"
        r"honey|butter|cheese|cream|yoghurt|yogurt|oats|bread|rice|noodles|jaggery|gud|stevia|juice|fruit|"
        r"vegetables?|veg|onions?|mushrooms?|tomato(?:es)?|strawberr(?:y|ies)|banana|mango|pineapple|citrus|"
        r"oranges?|pomelo|lamb|mutton|bacon|ham|sausages?|lard|spice|chilli|chili|packaged|maggi|tiffin|lunchbox)\b",
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
    "screens": re.compile(
        r"\b(?:tablet|ipad|phone|phones|screen|screens|screen time|tv|telly|youtube|games?|gaming|console|device|"
        r"devices|internet|wifi|wi-fi|social media|laptop|computer)\b",
        re.I,
    ),
    "medical": re.compile(
        r"\b(?:allerg\w*|anaphyla\w*|epipen|penicillin|antibiotics?|ibuprofen|aspirin|paracetamol|medication|"
        r"medicine|meds|inhaler|asthma|diabet\w*|insulin|sickle|epilep\w*|seizures?|heart|blood pressure|"
        r"condition|doctor|surgery|operation|pregnan\w*|crisis|crises)\b",
        re.I,
    ),
}
#: A fact that lifts or narrows a food rule: what someone may have after all.
_ALLOWANCE = re.compile(
    r"\b(?:no longer (?:allergic|intolerant|lactose|vegetarian|vegan|coeliac|celiac|diabetic|on)|"
    r"(?:can|may) (?:now |still |also )?(?:have|eat|drink)|is (?:fine|ok|okay) (?:with|to have)|outgr[eo]w\w*|"
    r"allowed (?:to have|to eat)?)\b",
    re.I,
)
#: The tasks whose lookup also reads the family's facts: a meal (what lifts a food rule, the
#: allergy kit), a question about medicines (what someone takes, and when), childcare (who
#: looks after the children).
FACT_TASKS = frozenset({"food", "medical", "care"})
#: What that facts pass reads: facts, and relationships (who the babysitter is).
FACT_TYPES = frozenset({MemoryType.FACT, MemoryType.RELATIONSHIP})
#: Who looks after the children: "Chloe next door is the only babysitter the family uses".
_CAREGIVER = re.compile(
    r"\b(?:babysit\w*|sitters?|nanny|nannies|childminders?|au pair|minds? (?:the )?(?:kids|children|baby)|"
    r"looks? after (?:the )?(?:kids|children|baby|twins)|watch(?:es)? (?:the )?(?:kids|children|baby|twins))\b",
    re.I,
)
#: A fact about a medicine someone takes or carries: "Stan's metoprolol is now 50 mg at 8 am",
#: "Dadaji takes metformin after breakfast", "Do-hyun has an EpiPen". Not "takes the bus".
_MEDICINE = re.compile(
    r"\b(?:\d+(?:\.\d+)? ?(?:mg|mcg|ml)|doses?|tablets?|pills?|puffs?|inhalers?|epipens?|epi-pens?|"
    r"auto-?injectors?|antihistamines?|insulin|medication|medicines?|meds|prescri\w+|"
    # Two medicines too: "takes folic acid and Paludrine every morning".
    r"takes (?!the\b|a\b|an\b|over\b|part\b|care\b|turns\b)[\w'-]+(?: [\w'-]+)?(?: and [\w'-]+(?: [\w'-]+)?)? "
    r"(?:every|each|at|after|before|with|twice|once|daily|in the morning|at night|morning|night))\b",
    re.I,
)
#: What a meal's allergic guest needs on hand: the allergy kit, not the food rule.
_ALLERGY_KIT = re.compile(r"\b(?:epipens?|epi-pens?|auto-?injectors?|antihistamines?)\b", re.I)
#: A preference that keeps something off someone's plate.
_REFUSES = re.compile(
    r"\b(?:hates?|dislikes?|won't eat|will not eat|doesn't eat|does not eat|don't eat|do not eat|can't stand|"
    r"never eats?|refuses?|not (?:a fan|keen)|doesn't like|does not like|no longer eats?|stopped eating)\b",
    re.I,
)
_FIRST_PERSON = re.compile(r"\b(?:i|i'm|i've|me|my|mine)\b", re.I)
_EVERYONE = re.compile(
    r"\b(?:everyone|everybody|all of us|the family|whole family|family|we|us|our|the kids|kids|the children|"
    r"children|the boys|the girls|the twins|guests|people|friends)\b",
    re.I,
)


#: "my mum", "ma maw", "my wee sister": a relation of the speaker, by any word for it (``KIN_WORDS``).
_KIN_CLASS = {**{w: w for w in (*ADULT_RELATIONS, *CHILD_RELATIONS)}, **KIN_WORDS}
_KIN_SAID = re.compile(
    r"\b(?:my|ma|me|mah)\s+(?:wee |old |little |big )?("
    + "|".join(re.escape(f) for f in sorted(_KIN_CLASS, key=len, reverse=True))
    + r")\b"
)


def kin_of_speaker(
    kin: Iterable[str], rows: Iterable[CatalogRow], names: dict[str, frozenset[str]], speaker: frozenset[str]
) -> frozenset[str]:
    """The people a message names by the speaker's kin ("ma maw", "my wife"): the others of a
    relationship on file that calls them that of the speaker ("Morag, known as Gran, is Stuart's
    mother" for Stuart's "ma maw"), in any of the kin words for the relation."""
    relations = {_KIN_CLASS[k] for k in kin}
    forms = [f for f, relation in _KIN_CLASS.items() if relation in relations]
    mine = [n for n, ids in names.items() if ids & speaker and len(n) > 1]
    if not mine:
        return frozenset()
    pattern = re.compile(
        rf"\b(?:{'|'.join(re.escape(n) for n in mine)})['’]s (?:{'|'.join(re.escape(f) for f in forms)})\b"
    )
    found: set[str] = set()
    for row in rows:
        mine_too = row.type is MemoryType.RELATIONSHIP and bool(speaker & set(row.applies_to))
        if mine_too and pattern.search(normalise_for_match(row.summary)):
            found |= set(row.applies_to) - speaker
    return frozenset(found)


def kin_said(message: str) -> list[str]:
    """The words by which the message names someone by the speaker's kin ("ma maw": maw)."""
    return _KIN_SAID.findall(normalise_for_match(message))


@dataclass(frozen=True)
class MustKnow:
    row: CatalogRow
    why: str  # "food rule for Noor", "shares 'grapefruit'"
    rank: tuple[int, ...]


def tasks_of(message: str) -> set[str]:
    """The kinds of task a message is about ("food", "booking", ...)."""
    return set(_tasks_of(message))


#: A lookup reads the message's tasks twice (whether to add the facts pass, and in ``must_know``):
#: remembered by the message's text for the few messages of the moment.
@functools.lru_cache(maxsize=64)
def _tasks_of(message: str) -> frozenset[str]:
    # Read off the message's words (``word_patterns``): the answer each pattern's ``search`` gives
    # (``tests/unit/test_retrieval_units.py`` checks it against ``search``).
    return _TASK_PATTERNS.found(message)


_TASK_PATTERNS = PatternSet(_TASKS)


#: Allergies that are not to a food: "allergic to penicillin" is no food rule.
_NOT_FOOD = re.compile(
    r"\b(?:penicillin|amoxicillin|antibiotics?|sulfa|ibuprofen|aspirin|latex|pollen|hay ?fever|cats?|dogs?|"
    r"dust|mites|bees?|wasps?|stings?|plasters?|nickel|perfume|grass)\b",
    re.I,
)
_ALLERGY_WORD = re.compile(r"^(?:allerg\w*|anaphyla\w*|epipen)$", re.I)


def rule_topics(row: CatalogRow) -> frozenset[str]:
    """What kinds of task a rule governs ("food", "booking", ...), read off its words."""
    return _read_rule(row.about, row.summary, row.when_to_use).topics


@dataclass(frozen=True, slots=True)
class _Reading:
    """What ``must_know`` reads off a row's words."""

    topics: frozenset[str]
    words: frozenset[str]
    #: The summary lifts or narrows a rule ("no longer lactose intolerant"): ``_ALLOWANCE``.
    allows: bool
    #: The summary keeps something off someone's plate ("hates mushrooms"): ``_REFUSES``.
    refuses: bool
    #: The summary says what someone takes or carries ("50 mg at 8 am"): ``_MEDICINE``; and that
    #: is the allergy kit ("has an EpiPen"): ``_ALLERGY_KIT``.
    medicine: bool
    allergy_kit: bool
    #: The summary says who looks after the children ("the only babysitter"): ``_CAREGIVER``.
    caregiver: bool


#: A row's words are read on every lookup its rule pass meets it: cached by the text itself, so an
#: edit (new text) is read afresh and nothing stale can be returned. Keyed by the three fields (a
#: row's strings keep their hashes; a joined text would be hashed anew on every lookup).
@functools.lru_cache(maxsize=16384)
def _read_rule(about: str, summary: str, when_to_use: str) -> _Reading:
    """A rule's topics, its content words and what its summary says, from its about, summary and
    when to use."""
    said = _RULE_PATTERNS.read(summary)
    words = _RULE_PATTERNS.join([_RULE_PATTERNS.read(about), said, _RULE_PATTERNS.read(when_to_use)])
    return _Reading(
        _topics_read(words),
        content_words(words.text),
        _RULE_PATTERNS.search(said, "allows"),
        _RULE_PATTERNS.search(said, "refuses"),
        _RULE_PATTERNS.search(said, "medicine"),
        _RULE_PATTERNS.search(said, "allergy_kit"),
        _RULE_PATTERNS.search(said, "caregiver"),
    )


def _topics_of(text: str) -> frozenset[str]:
    """``_topics_searched(text)``, read off the text's words (``word_patterns``)."""
    return _topics_read(_RULE_PATTERNS.read(text))


def _topics_read(words: TextWords) -> frozenset[str]:
    food = _RULE_PATTERNS.matches_at(words, "food")
    if food is None:
        return _topics_searched(words.text)
    topics = {topic for topic in _RULE_TOPICS if topic != "food" and _RULE_PATTERNS.search(words, topic)}
    # The food words the search would find are those where ``food`` matches (a match that runs on
    # over the next word, "tree nuts", is no allergy word, so what it covers cannot change ``all``).
    text = words.text
    if food and not (all(_allergy_word_at(text, start, word) for start, word in food) and _NOT_FOOD.search(text)):
        topics.add("food")
    return frozenset(topics)


def _allergy_word_at(text: str, start: int, word: str) -> bool:
    """Whether the food pattern's match at ``start`` (where ``word`` begins) is an allergy word.
    Such a match is one whole word, so a word that is none cannot begin one."""
    if not _ALLERGY_WORD.match(word):
        return False
    match = _RULE_TOPICS["food"].match(text, start)
    return match is not None and _ALLERGY_WORD.match(match.group(0)) is not None


def _topics_searched(text: str) -> frozenset[str]:
    # The food words are read in full (an allergy alone may be to no food); a search says the rest.
    food_words = {m.group(0) for m in _RULE_TOPICS["food"].finditer(text)}
    topics = {topic for topic, pattern in _RULE_TOPICS.items() if topic != "food" and pattern.search(text)}
    if food_words and not (all(_ALLERGY_WORD.match(w) for w in food_words) and _NOT_FOOD.search(text)):
        topics.add("food")
    return frozenset(topics)


#: The rule topics and what ``_read_rule`` asks of a summary, read off a row's words at once.
_RULE_PATTERNS = PatternSet(
    {
        **_RULE_TOPICS,
        "allows": _ALLOWANCE,
        "refuses": _REFUSES,
        "medicine": _MEDICINE,
        "allergy_kit": _ALLERGY_KIT,
        "caregiver": _CAREGIVER,
    }
)


@functools.lru_cache(maxsize=1024)
def _words_of(text: str) -> frozenset[str]:
    return content_words(text)


#: A rule's about in comparison form, for telling two rules of one slot apart (cached by the text).
_folded = functools.lru_cache(maxsize=16384)(normalise_for_match)


#: After a name, what makes the food theirs alone: "noor's lunch", "rosie's daycare snacks".
_WHOSE_FOOD = r"'s (?:\w+ ){0,2}(?:lunch|lunches|lunchbox|snacks?|tiffin|breakfast|food|meals?|bottle|formula)\b"


def people_named(message: str, names: dict[str, frozenset[str]], after: str = r"(?:'s)?") -> set[str]:
    """Entity ids of the people (and pets) a message names, by any name the family uses for them
    (``after``: what must follow the name)."""
    folded = normalise_for_match(message).replace("’", "'")
    found: set[str] = set()
    for name, entity_ids in names.items():
        # The name's own letters must be there before its pattern can match: most names are not.
        if len(name) > 1 and name in folded and _name_pattern(name, after).search(folded):
            found |= entity_ids
    return found


@functools.lru_cache(maxsize=4096)
def _name_pattern(name: str, after: str) -> re.Pattern[str]:
    return re.compile(rf"(?<!\w){re.escape(name)}{after}(?!\w)")


def must_know(
    message: str,
    rows: Iterable[tuple[CatalogRow, int]],
    names: dict[str, frozenset[str]],
    speaker: frozenset[str] = frozenset(),
    kin: Sequence[str] | None = None,
) -> list[MustKnow]:
    """The rules among ``rows`` (each with its place in the filtered pass) that bear on
    ``message``, most pressing first. ``names``: every name the family uses, to the entity ids;
    ``speaker``: the entity of the member who sent it ("I", "me": their rules concern them);
    ``kin``: ``kin_said(message)`` when the caller has it already.
    A directive is an instruction to the assistant, so it concerns whoever the task is for;
    a constraint concerns the people it applies to."""
    tasks = _tasks_of(message)
    named = people_named(message, names) | (speaker if _FIRST_PERSON.search(message) else frozenset())
    if speaker and (kin := kin_said(message) if kin is None else kin):
        # "take ma maw for her lunch" by Stuart: the mother his relationships on file name.
        rows = list(rows)
        named |= kin_of_speaker(kin, (row for row, _ in rows), names, speaker)
    says_everyone = bool(_EVERYONE.search(message))
    everyone = not named or says_everyone
    # Whose food it is matters only for a meal.
    eaters = people_named(message, names, _WHOSE_FOOD) if "food" in tasks else set()
    shared_meal = "food" in tasks and not (eaters and eaters >= named)
    if shared_meal and named and not says_everyone:
        # Who plans a meal for the people it names eats it too ("plan the food for kabir's
        # party, dadaji and mummy ji will be there"); "all of us" already ranks everyone alike.
        named |= speaker
    name_words = {w for name in names for w in _words_of(name)}
    message_words = set(content_tokens(message)) - name_words  # a name alone ties nothing to a rule
    food = "food" in tasks
    found: list[tuple[MustKnow, tuple[str, str, tuple[str, ...]]]] = []
    #: The tasks a rule's topics govern, once per distinct set of topics (rows share a few).
    governs: dict[frozenset[str], set[str]] = {}
    for row, place in rows:
        facts = _facts_of(row)
        if facts is None:
            continue
        reading = facts.reading
        # What no message can make this row bear on is passed over before the message's part is read.
        if facts.fact and not (reading.allows or reading.medicine or reading.caregiver):
            continue
        if facts.preference and not (food and reading.refuses):
            continue
        for_named = bool(facts.applies & named)
        topics = reading.topics
        # A meal is shared: whoever eats it, every food rule of the household bears on it, unless
        # the message says whose food it is ("Noor's lunch").
        involved = for_named or facts.household or everyone or (shared_meal and "food" in topics)
        if facts.fact:
            # A fact that lifts or narrows a food rule ("Kamsi is no longer lactose intolerant", "Rosalie
            # can have egg baked into muffins") bears on a meal as the rule it changes would.
            if food and "food" in topics and involved and reading.allows:
                found.append((MustKnow(row, "food allowance", (0 if for_named else 1, 0, 1, 1, place)), facts.slot))
            elif (
                # What someone takes bears on a question about medicines, and on any task that names the
                # medicine ("add obinna's folic acid to the shopping list"); the allergy kit on a meal.
                involved
                and reading.medicine
                and ("medical" in tasks or (food and reading.allergy_kit) or _names_medicine(message_words, row))
            ):
                found.append((MustKnow(row, "medicine", (0 if for_named else 1, 1, 1, 2, place)), facts.slot))
            elif "care" in tasks and involved and reading.caregiver:
                # Who may look after them is what the task asks: with the rules it governs, soft.
                found.append((MustKnow(row, "caregiver", (0 if for_named else 1, 0, 1, 1, place)), facts.slot))
            continue
        governed = governs.get(topics)
        if governed is None:
            governed = governs[topics] = {task for task in tasks if _TASK_TOPICS[task] & topics}
        if facts.preference:
            # A preference is no rule: only what someone will not eat, for a meal, after the rules.
            if "food" in governed and involved:
                found.append((MustKnow(row, "food preference", (0 if for_named else 1, 1, 1, 2, place)), facts.slot))
            continue
        why = ""
        if involved and governed:
            task = sorted(governed)[0]
            why = f"{task} rule" + (" for someone the message names" if for_named else "")
        elif (for_named or facts.household or not named) and (
            shared := sorted((message_words & reading.words) - _WEAK)
        ):
            why = f"shares {', '.join(shared[:3])!r}"
        if not why:
            continue
        # The people the message names first; then the rules the task governs (not those that only
        # share a word), hard before soft, a constraint (an allergy) before a house rule.
        rank = (0 if for_named else 1, 0 if governed and involved else 1, facts.soft, facts.house_rule, place)
        found.append((MustKnow(row, why, rank), facts.slot))
    # Two rules of one slot (the same about, type and people: "Viliami's peanut allergy" said twice)
    # are one rule to the task: the more pressing is shown, the other is a read_memory away.
    chosen: list[MustKnow] = []
    slots: set[tuple[str, str, tuple[str, ...]]] = set()
    for m, slot in sorted(found, key=lambda found: found[0].rank):
        if slot not in slots:
            slots.add(slot)
            chosen.append(m)
    return chosen


@dataclass(frozen=True, slots=True)
class _RowFacts:
    """What ``must_know`` reads off one row that no message changes."""

    reading: _Reading
    applies: frozenset[str]
    #: A household rule (it applies to no one in particular) or a directive: it concerns everyone.
    household: bool
    fact: bool  # a fact or relationship (``FACT_TYPES``), read by the facts pass
    preference: bool
    soft: int  # 0 for a hard rule
    house_rule: int  # 0 for a constraint
    #: Rules of one slot are one rule to the task: the about in comparison form, the type, the people.
    slot: tuple[str, str, tuple[str, ...]]


#: ``_RowFacts`` by the row object itself, kept with the row (so its id is not reused while the
#: entry lives). A row is frozen; a write is a new row (the catalog parses the new text into a new
#: object), so an entry can never describe data other than its own row's.
_ROW_FACTS: dict[int, tuple[CatalogRow, _RowFacts]] = {}
_ROW_FACTS_KEPT = 16384
_ROW_FACTS_LOCK = threading.Lock()


def _facts_of(row: CatalogRow) -> _RowFacts | None:
    """The row's ``_RowFacts``; None for a type ``must_know`` never shows."""
    kept = _ROW_FACTS.get(id(row))
    if kept is not None and kept[0] is row:
        return kept[1]
    if row.type not in POOL_TYPES and row.type not in FACT_TYPES:
        return None
    facts = _RowFacts(
        reading=_read_rule(row.about, row.summary, row.when_to_use),
        applies=frozenset(row.applies_to),
        household=not row.applies_to or row.type is MemoryType.DIRECTIVE,
        fact=row.type in FACT_TYPES,
        preference=row.type is MemoryType.PREFERENCE,
        soft=0 if row.strength is Strength.HARD else 1,
        house_rule=0 if row.type is MemoryType.CONSTRAINT else 1,
        slot=(_folded(row.about), row.type.value, tuple(sorted(row.applies_to))),
    )
    with _ROW_FACTS_LOCK:
        if len(_ROW_FACTS) >= _ROW_FACTS_KEPT:
            del _ROW_FACTS[next(iter(_ROW_FACTS))]  # the oldest kept (a dict keeps insertion order)
        _ROW_FACTS[id(row)] = (row, facts)
    return facts


#: The words of a medicine fact that say when or how it is taken, not what it is: a shopping list
#: "for next week" or a breakfast does not name Obinna's folic acid.
_WHEN_TAKEN = frozenset(
    content_tokens(
        "takes take taking taken needs needed every each morning mornings night nights evening evenings bedtime "
        "breakfast lunch dinner tea supper meal meals food daily twice once week weekly month monthly with after "
        "before school water dose doses half"
    )
)


def _names_medicine(message_words: set[str], row: CatalogRow) -> bool:
    """Whether a message names what a medicine fact says someone takes: a word of substance of its
    summary beyond when and how it is taken ("folic", "paludrine", "metoprolol")."""
    return bool((message_words & _words_of(row.summary)) - _WEAK - _WHEN_TAKEN)


#: Words too common to tie a message to a rule on their own.
_WEAK = frozenset(
    content_tokens(
        "always never anything something everything thing things time day days week today tomorrow please "
        "need want make get go going can could would should will family kid kids child children home house "
        "one two first next good new like love know think"
    )
)


_TITLES = frozenset({"mr", "mrs", "ms", "miss", "dr", "dr.", "mr.", "mrs.", "ms.", "prof"})


def names_of(entities: Sequence[tuple[str, Sequence[str]]]) -> dict[str, frozenset[str]]:
    """``{comparison form of a name: entity ids}`` from (entity id, names) pairs (first names too)."""
    out: dict[str, set[str]] = {}
    for entity_id, names in entities:
        for name in names:
            folded = normalise_for_match(name)
            for form in {folded, folded.split()[0] if folded.split() else ""}:
                # "The Okafors" is not called "the", nor "Dr. Oh" "dr".
                if len(form) > 1 and form not in STOPWORDS and form not in _TITLES:
                    out.setdefault(form, set()).add(entity_id)
    return {name: frozenset(ids) for name, ids in out.items()}


NameBook = Callable[[str], dict[str, frozenset[str]]]
