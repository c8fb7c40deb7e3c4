"""Which claims are sensitive: health, finances, and children.

Sensitive memories stay out of the always-on brief. A tag is never lowered
here: when the words of a claim (or the people it applies to) touch one of
these topics and the extractor left it ``normal``, validation raises it and
notes the adjustment. Health wins over finances, finances over minors, when a
claim touches more than one (any tag keeps it out of the brief).

What counts is what the claim says, not every word near it. Validation hands
over the claim's own texts first (``about``, ``summary``, ``body``), then its
``when_to_use``, then its evidence quotes and the extractor's entity hints
(``validation._Check.adjust_sensitivity``; ``CLAIM_TEXTS``). The claim and its
evidence are read; ``when_to_use`` is not: it says in which future situations
the memory helps ("shopping for baby gear", "meal plans on a budget"), nothing
about the claim itself, and reading it tagged a pram minors and a butcher
finances. Precision matters for the brief (an over-tagged memory is hidden
from it) and recall for privacy (an under-tagged one leaks), so the rules
below only set aside words that provably describe something else:

- **health** is a person's: "animal hospital", "animal clinic", "vet clinic"
  and "veterinary ..." are a pet's care, and a claim whose every subject is a
  pet (on file, or called one by the claim: "Moose the dog takes fluoxetine")
  is about the pet, not anyone's health; a
  hospital or clinic someone works at ("works at the hospital", "IT for the
  hospital", "a shift at the clinic") is a workplace.
- **health** is also a claim that names someone the family called a carer (an entity on
  file whose relationship is an aide's, a carer's, a home nurse's: "the aide is Denise"): her
  hours and her absences ("denise is on vacation may 26 to june 5") are someone's care. A
  nanny or a sitter is no carer here: children's care is the minors rule's.
- **minors** is a claim *about* a child. Children are known two ways:
  household members whose role is ``child`` (for a member, the role decides),
  and entities the family has told us are children (an entity whose
  relationship is a child's: "my son Leo" filed Leo as a son). A claim that
  uses a child word ("the kids", "my daughter", "babysitting"), names a child
  or applies to one is ``minors``, except a household-wide claim: one that
  applies to every member of a household of three or more (a dinner rule, a
  takeaway rule, "the family eats together at 6:30") is about the household,
  and is ``minors`` only when its own ``about``, ``summary`` or ``body`` names
  a child or uses a child word.

Reconciliation applies the same judgement once the claim's people are
resolved to entities (``children.tag_minors``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from family_memory.domain.entity import Entity, EntityKind
from family_memory.domain.family import FamilySettings, MemberRole
from family_memory.domain.memory import Sensitivity
from family_memory.domain.text import normalise_for_match
from family_memory.formation.relations import PETS, is_child_relation, is_generic

#: How many of the texts validation passes are the claim's own (about, summary, body);
#: the next is its when_to_use (never read), the rest its quotes and entity hints.
CLAIM_TEXTS = 3
WHEN_TO_USE_AT = 3
#: The smallest household in which a claim applying to every member is a household-wide one.
HOUSEHOLD_WIDE_MIN = 3

_HEALTH = re.compile(
    r"\b(allerg\w*|anaphyla\w*|epipen|medication\w*|medicine\w*|meds|pills?|tablets?|insulin|inhaler|"
    r"prescription\w*|antibiotic\w*|doctor\w*|dentist\w*|orthodont\w*|pediatrician|paediatrician|therap\w*|"
    r"diagnos\w*|asthma\w*|diabet\w*|celiac|coeliac|gluten|lactose|dairy[- ]free|vegetarian|vegan|pescatarian|"
    r"diet|dietary|pregnan\w*|surgery|hospital\w*|clinic|illness|sick|adhd|autis\w*|anxiety|depress\w*|"
    r"migraine\w*|vaccin\w*|injur\w*|physio\w*|dialysis|chemo\w*|health visitor|blood tests?|"
    r"\d+(?:\.\d+)? ?mg)\b"
)
#: Medicines, supplements and specialists by name: what a person takes or sees for their health.
_MEDICINE = re.compile(
    r"\b(?:cardiolog\w*|haematolog\w*|hematolog\w*|neurolog\w*|dermatolog\w*|oncolog\w*|"
    r"rheumatolog\w*|endocrinolog\w*|nephrolog\w*|urolog\w*|gastroenterolog\w*|audiolog\w*|optometrist|"
    r"sickle cell|(?:his|her|their|sickle cell|pain) cris[ie]s|dietitian|dietician|folic acid|vitamins?|"
    r"supplements?|painkillers?|paracetamol|ibuprofen|"
    # The endings of common medicine names ("metoprolol", "atorvastatin"; "lisinopril" but never "april").
    r"\w{2,}(?:olol|[io]pril|sartan|statin|formin|prazole|cillin|mycin|cycline|oxetine|xaban|gatran|dronate)|"
    r"enalapril)\b"
)
#: A medicine by how it is taken: "takes folic acid and paludrine every morning with breakfast",
#: "is on X twice a day". The thing taken opens with no article or pronoun ("takes the bus every
#: morning", "takes her to school every morning" are not medicine), and the timing is a dose's.
_DOSE = re.compile(
    r"\b(?:takes?|taking|took|is on|are on)\s+(?!(?:the|a|an|his|her|their|my|our|your|him|them|us|me|it|"
    r"some|any|turns|care|over|off|part|place|time|charge|lessons?|classes?)\b)[a-z][\w'-]*(?:\s+[\w'-]+){0,4}?"
    r"\s+(?:every|each)\s+(?:morning|night|evening|day)\b.*?(?:\bwith\s+(?:breakfast|food|meals?|dinner|water|milk)\b)|"
    r"\b(?:takes?|taking|took|is on|are on)\s+(?!(?:the|a|an|his|her|their|my|our|your|him|them|us|me|it|"
    r"some|any|turns|care|over|off|part|place|time|charge|lessons?|classes?)\b)[a-z][\w'-]*(?:\s+[\w'-]+){0,4}?"
    r"\s+(?:once|twice|three times|\d times) (?:a|per) day\b"
)
_FINANCES = re.compile(
    r"\b(bank\w*|salary|salaries|income|debts?|loans?|mortgage\w*|credit card\w*|budget\w*|tax|taxes|"
    r"invest\w*|savings|pension\w*|account number|payroll|paycheck|bills|insurance|social security|"
    r"child benefit|my pay|get paid|fees|school fees|instal?ments?|repayments?|refinanc\w*|valuer|valuation)\b|"
    # An amount of money: a currency sign or word beside a number ("$3,100", "400,000 won", "₦650k", "£178").
    r"[$£€₦¥₩]\s?\d|\b\d[\d,.]*\s?(?:k|m|million|thousand)?\s?(?:won|yen|naira|euros?|pounds|dollars|rupees|pesos|"
    r"dinars?|dirhams?|rand|usd|gbp|eur|nzd|aud|cad|inr|krw)\b|"
    # Paying someone by the week or month: "we pay ms. jung 400,000 a month".
    r"\bpa(?:y|ys|id|ying)\s+(?:\w+\.?\s+){0,3}?\d[\d,.]*\s?(?:k|m)?\s+(?:a|per|each|every)\s+(?:week|month|year|hour)\b"
)
_MINORS = re.compile(
    r"\b(daughters?|sons?|kids?|child|children|baby|babies|toddlers?|teens?|teenagers?|grandchild\w*|"
    r"grandkids?|stepdaughters?|stepsons?|preschool\w*|kindergarten|babysit\w*)\b"
)
#: Health words that name a pet's care or a workplace, not anyone's health: blanked before matching.
_NOT_HEALTH = re.compile(
    r"\b(?:animal (?:hospital|clinic)s?|vet(?:erinary)? (?:hospital|clinic|practice|surgery)s?|"
    r"veterinar\w*(?: \w+)?|"
    r"(?:works?|working|worked|job|shifts?|on[- ]call|it|nurse|receptionist|porter|admin)"
    r"(?: (?:at|for|in))(?: (?:the|a))?(?: \w+)? (?:hospital|clinic)s?)\b"
)


def is_child(entity: Entity, family: FamilySettings) -> bool:
    """Whether ``entity`` is one of the household's children. For a household member the
    member's role decides (the family can set it; formation records ``child`` when a
    parent first says "my daughter Maya"); for anyone else, a child's relationship does."""
    member = family.member(entity.member_id) if entity.member_id else None
    if member is not None:
        return member.role is MemberRole.CHILD
    return is_child_relation(entity.relationship)


def child_names(family: FamilySettings, entities: Iterable[Entity] = ()) -> set[str]:
    """Comparison forms of the names (full, first, address-as, id, aliases) of the household's
    children: the members whose role is ``child`` and the ``entities`` that are children."""
    names: set[str] = set()
    for member in family.members:
        if member.role is MemberRole.CHILD:
            names.update({normalise_for_match(member.name), normalise_for_match(member.id)})
            names.add(normalise_for_match(member.name.split()[0]))
            if member.address_as:
                names.add(normalise_for_match(member.address_as))
    for entity in entities:
        if is_child(entity, family):
            forms = [normalise_for_match(n) for n in (entity.name, *entity.aliases, entity.member_id or "")]
            names.update(forms)
            if not is_generic(entity.name, entity.relationship):
                names.add(forms[0].split()[0])  # "Leo Rivera" is also "Leo"
    names.discard("")
    return names


#: A relationship that is someone's care: the aide, a carer, a home nurse (not a childminder's:
#: a nanny or a sitter looks after children, which the minors rule covers).
CARER = re.compile(
    r"\b(?:(?:home|health|personal|care|home care|home health)\s+)?(?:aides?|carers?|care ?givers?|"
    r"care (?:workers?|assistants?)|support workers?|home help|(?:home |district |visiting )?nurses?|psw)\b"
)


def is_carer(entity: Entity) -> bool:
    """Whether the family called ``entity`` someone's carer ("the aide is Denise")."""
    return entity.type is EntityKind.PERSON and bool(CARER.search(normalise_for_match(entity.relationship or "")))


def carer_names(entities: Iterable[Entity] = ()) -> set[str]:
    """Comparison forms of the names (and name-like aliases) of the carers on file: a claim that
    names one ("denise is on vacation may 26 to june 5") tells of someone's care."""
    names: set[str] = set()
    for entity in entities:
        if is_carer(entity):
            for name in (entity.name, *entity.aliases):
                if (
                    name.strip()
                    and not is_generic(name, entity.relationship)
                    and not CARER.search(normalise_for_match(name))
                ):
                    names.add(normalise_for_match(name))
    return names


def _words(text: str) -> set[str]:
    return set(re.findall(r"[^\W_]+", text))


def names_any(text: str, names: Iterable[str]) -> bool:
    """Whether ``text`` (comparison form) holds one of ``names`` (comparison forms) as whole
    words: "seo-yeon's piano" names "seo-yeon"; "mayan" does not name "maya"."""
    words = _words(text)
    for name in names:
        if not name:
            continue
        if name in words:
            return True
        if not name.isalnum() and re.search(rf"(?<![^\W_]){re.escape(name)}(?![^\W_])", text):
            return True
    return False


def member_names(family: FamilySettings) -> dict[str, set[str]]:
    """Each member's names in comparison form (id, full name, first name, address-as)."""
    names: dict[str, set[str]] = {}
    for member in family.members:
        forms = {member.id, member.name, member.name.split()[0], member.address_as or ""}
        names[member.id] = {normalise_for_match(f) for f in forms if f}
    return names


def household_wide(family: FamilySettings, applies_to: Iterable[str]) -> bool:
    """Whether a claim applying to ``applies_to`` applies to every member of a household of
    three or more: a household rule or habit, not a claim about one of its children."""
    if len(family.members) < HOUSEHOLD_WIDE_MIN:
        return False
    named = {normalise_for_match(n) for n in applies_to}
    return all(forms & named for forms in member_names(family).values())


#: A claim whose subject is the household itself: "The family is going to Arran", "We're all ...".
_THE_FAMILY = re.compile(
    r"\bthe (?:whole )?(?:family|household)(?: is| are| was| were| will|'s| has| have)\b|\bwe all\b|\ball of us\b"
)


def the_family_together(claim: str, family: FamilySettings, applies_to: Iterable[str]) -> bool:
    """Whether the claim (comparison form) has the family as a subject and applies to
    every child of the household and an adult: a family holiday or visit, about the household
    even when a grandparent who lives apart is not in it ("The family is going to Arran")."""
    if not _THE_FAMILY.search(claim):
        return False
    named = {normalise_for_match(n) for n in applies_to}
    names = member_names(family)
    children = [m for m in family.members if m.role is MemberRole.CHILD]
    adults = [m for m in family.members if m.role is not MemberRole.CHILD]
    return bool(children) and all(names[m.id] & named for m in children) and any(names[m.id] & named for m in adults)


_PET_WORDS = "|".join(re.escape(p) for p in sorted(PETS, key=len, reverse=True))


def _called_a_pet(name: str, claim: str) -> bool:
    """Whether the claim's own text calls ``name`` a pet: "Moose the dog", "Mochi, our cat",
    "our dog Pepper", "Pepper (dog)", "Moose's vet"."""
    n = re.escape(normalise_for_match(name))
    pet = rf"(?:{_PET_WORDS})"
    owner = r"(?:the|our|my|their|his|her|the family's|\w+'s)"
    patterns = (
        rf"(?<![^\W_]){n},? (?:{owner} )?(?:\w+ )?{pet}(?![^\W_])",
        rf"(?<![^\W_]){n} \({pet}\)",
        rf"(?<![^\W_]){owner} (?:\w+ )?{pet},? {n}(?![^\W_])",
        rf"(?<![^\W_]){n}'s vet(?![^\W_])",
    )
    return any(re.search(p, claim) for p in patterns)


def pets_only(
    applies_to: Sequence[str], entities: Iterable[Entity], claim: str = "", family: FamilySettings | None = None
) -> bool:
    """Whether every subject of the claim is a pet: one on file (by name or alias), or one
    the claim's own text calls a pet ("Moose the dog takes fluoxetine") that is no member
    of ``family`` and no person on file."""
    if not applies_to:
        return False
    known = list(entities)
    pets = {
        normalise_for_match(n) for e in known if e.type is EntityKind.PET for n in (e.name, *e.aliases) if n.strip()
    }
    people = {normalise_for_match(n) for e in known if e.type is EntityKind.PERSON for n in (e.name, *e.aliases)}
    people |= {name for forms in member_names(family).values() for name in forms} if family else set()
    return all(
        (key := normalise_for_match(n)) in pets or (key not in people and _called_a_pet(n, claim)) for n in applies_to
    )


def is_health(
    text: str,
    applies_to: Sequence[str] = (),
    entities: Iterable[Entity] = (),
    claim: str = "",
    family: FamilySettings | None = None,
) -> bool:
    """Whether ``text`` (comparison form) speaks of a person's health. ``claim``: the
    claim's own texts, which may call its subjects pets."""
    if pets_only(applies_to, entities, claim, family):
        return False
    plain = without_other_care(text)
    return bool(_HEALTH.search(plain)) or medicine(plain)


def medicine(text: str) -> bool:
    """Whether ``text`` (comparison form) names a medicine, a supplement or a specialist, or
    tells how something is taken as a dose ("takes folic acid every morning with breakfast")."""
    return bool(_MEDICINE.search(text) or _DOSE.search(text))


def without_other_care(text: str) -> str:
    """``text`` (comparison form) with the words that name a pet's care or a workplace blanked:
    "IT for the hospital" is a job, "the animal hospital" a pet's."""
    return _NOT_HEALTH.sub(" ", text)


def is_finances(text: str) -> bool:
    return bool(_FINANCES.search(text))


def child_words(text: str) -> bool:
    """Whether ``text`` (comparison form) uses a word for a child ("the kids", "my son", "babysitting")."""
    return bool(_MINORS.search(text))


#: The speaker a body opens with ("Maisie said: ..."): who said the claim, not whom it is about.
_SAID_BY = re.compile(r"^[^\W\d_][\w' -]{0,40}? said: ")
_FIRST_PERSON = re.compile(r"\b(?:i|i'm|im|i've|i'll|i'd|me|my|mine|we|we're|we've|we'll|our|ours|us)\b")


def _without_speaker(text: str, has_subjects: bool = True) -> str:
    """``text`` without the speaker a body opens with when the words are not the speaker's own
    ("Maisie said: finn is coming for abendbrot" is about Finn; "Niamh said: we have a blitz
    saturday" is about Niamh too, and keeps her). A claim with no subject of its own keeps its
    speaker too (``has_subjects`` false): it names no one else, so the occasion is the speaker's
    ("Valeria said: the damas dresses have to be picked up this saturday" is a child's errand)."""
    said = _SAID_BY.match(text)
    if said is None or not has_subjects or _FIRST_PERSON.search(text[said.end() :]):
        return text
    return text[said.end() :]


def detect(
    texts: Iterable[str],
    family: FamilySettings,
    applies_to: Iterable[str] = (),
    entities: Iterable[Entity] = (),
) -> Sensitivity | None:
    """The sensitivity the claim calls for, or None when it is an ordinary topic.

    ``texts`` in validation's order: the claim's about, summary and body, its when_to_use
    (not read), then its evidence quotes and entity hints. ``entities`` are the family's
    entities on file: a child among them counts like a child member, a pet among them
    makes a claim about it alone a pet's."""
    texts = list(texts)
    subjects = list(applies_to)
    known = list(entities)
    claim = " ".join(_without_speaker(normalise_for_match(t), bool(subjects)) for t in texts[:CLAIM_TEXTS])
    evidence = " ".join(normalise_for_match(t) for t in texts[WHEN_TO_USE_AT + 1 :])
    text = f"{claim} {evidence}"
    if is_health(text, subjects, known, claim, family):
        return Sensitivity.HEALTH
    if names_any(f"{main_clauses(claim)} {main_clauses(evidence)}", carer_names(known)):
        return Sensitivity.HEALTH
    if is_finances(text):
        return Sensitivity.FINANCES
    if about_a_child(claim, evidence, family, subjects, known):
        return Sensitivity.MINORS
    return None


def about_a_child(
    claim: str, evidence: str, family: FamilySettings, applies_to: Sequence[str], entities: Iterable[Entity] = ()
) -> bool:
    """Whether the claim (its own texts and its evidence, in comparison form) is about a
    child of the household: a child word, a child's name, or a child among its subjects;
    for a household-wide claim, only a child word or a child's name in its own texts."""
    if household_wide(family, applies_to) or the_family_together(claim, family, applies_to):
        return child_words(claim) or names_any(claim, child_names(family, entities))
    if child_words(claim) or child_words(evidence):
        return True
    children = child_names(family, entities)
    if not children:
        return False
    if any(normalise_for_match(name) in children for name in applies_to):
        return True
    if not names_any(f"{claim} {evidence}", children):
        return False
    # None of its subjects is a child: a child named only in an aside after the claim ("never
    # plan anything where dad drives, including picking up maddie", "right after maddie's
    # softball", "the phone buzzing wakes ida") is a detail of a claim about someone else.
    return names_any(f"{main_clauses(claim)} {main_clauses(evidence)}", children)


#: Where a claim's first clause ends and an aside begins: a comma, a semicolon, a dash.
_ASIDE = re.compile(r"\s*(?:[,;]|\s[-–—])\s+")


def main_clauses(text: str) -> str:
    """The first clause of each sentence of ``text``: what the sentence claims, before its asides."""
    sentences = re.split(r"(?<=[.!?])\s+", text)
    return " ".join(_ASIDE.split(sentence, maxsplit=1)[0] for sentence in sentences)
