"""Allergies, intolerances, diets and medical food restrictions: hard constraints, tagged health.

Every ordinary phrasing, typos included, once the clause's subject is known
(people.py: a name, "I", "we", "my son", or a pronoun that resolves):

- "X is allergic to Y", "X's allergic to Y", "X is alergic to Y", "X has a Y
  allergy", "X has an allergy to Y";
- "X is lactose intolerant", "X is intolerant to Y", "X has a Y intolerance";
- "X is vegetarian / vegan / pescatarian / coeliac / diabetic / halal …",
  "X has coeliac disease / diabetes", "X is on a low-salt diet",
  "X only eats halal";
- "X can't have / eat / drink Y", "X isn't allowed Y", "X must not have Y";
  "X doesn't eat Y" when Y is a kind of food people give up (meat, pork,
  dairy, eggs, gluten, …); "X doesn't eat beans" is a dislike, soft;
- "X has an EpiPen (for Y)";
- "no Y for X" when Y is a food ("no nuts for Kai").

Medication ("X takes her pills at 8") is a soft constraint, tagged health.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from family_memory.domain.memory import Authority, MemoryType, Sensitivity, Strength
from family_memory.formation.offline.people import OPAQUE, Subject
from family_memory.formation.offline.text import object_of, rests_on_passing_state, sentence_case, third_person

if TYPE_CHECKING:
    from family_memory.formation.offline.extractor import Run
    from family_memory.formation.offline.text import Clause

_BE = r"(?:\s+(?:is|are|am)|['’](?:s|re|m)|\s+(?:is|are)\s+now)"
_ADVERBS = (
    r"(?:(?:very|severely|really|super|deathly|also|mildly|now|quite|so|badly|seriously|extremely|still|actually|"
    r"properly|highly|slightly|a\s+bit|a\s+little|kind\s+of|kinda|too|officially|definitely)\s+)*"
)
_ALLERGIC = r"(?:a?l{1,2}[ae]r{1,2}[gj]i?(?:c|ck|k|ic|gic)|alergic|allergic|allegic|allergc)"
_ALLERGY_WORD = r"(?:a?l{1,2}[ae]r{1,2}[gj](?:y|ies|ie))"
_ALLERGY = re.compile(rf"^{_BE}\s+{_ADVERBS}{_ALLERGIC}\s+to\s+(?P<obj>.+)$", re.I)
_HAS_ALLERGY = re.compile(
    rf"^\s+(?:has|have|['’]s\s+got|has\s+got|got)\s+(?:an?\s+)?{_ADVERBS}(?:(?:severe|bad|mild|serious|nasty|"
    rf"life-threatening)\s+)?(?:(?!(?:his|her|their|my|the|its|our)\b)(?P<what>[\w -]{{2,30}}?)\s+{_ALLERGY_WORD}"
    rf"(?!\s+(?:clinic|appt|appointment|test|testing|plan|nurse|doctor|specialist|consultant|review|letter|form|"
    rf"meds|medication|action))|{_ALLERGY_WORD}\s+to\s+(?P<obj>.+))\b",
    re.I,
)
_INTOLERANT = re.compile(
    rf"^{_BE}\s+{_ADVERBS}(?:(?P<what>lactose|gluten|dairy|wheat|fructose|histamine|egg|soy)[- ])?"
    rf"(?:intolerant|intollerant|intolerent)(?:\s+to\s+(?P<obj>.+))?\b",
    re.I,
)
_HAS_INTOLERANCE = re.compile(
    rf"^\s+(?:has|have|['’]s\s+got|has\s+got)\s+(?:an?\s+)?{_ADVERBS}(?P<what>[\w -]{{2,30}}?)\s+"
    r"(?:intolerance|intollerance|sensitivity)\b",
    re.I,
)
_DIETS = (
    r"vegetarian|vegitarian|vegeterian|vegatarian|veggie|veg|vegan|pescatarian|pescetarian|gluten[- ]free|"
    r"dairy[- ]free|nut[- ]free|lactose[- ]free|egg[- ]free|diabetic|celiac|coeliac|kosher|halal|jain|teetotal|"
    r"t1d|type\s+[12]\s+diabetic"
)
#: How a summary writes a diet typed short or misspelt ("I'm veg" -> vegetarian).
_DIET_WORD = {
    "veg": "vegetarian",
    "veggie": "vegetarian",
    "vegitarian": "vegetarian",
    "vegeterian": "vegetarian",
    "vegatarian": "vegetarian",
    "pescetarian": "pescatarian",
    "celiac": "coeliac",
}
_DIET = re.compile(rf"^{_BE}\s+{_ADVERBS}(?:(?:a|an|strictly|fully|completely|100%)\s+)*(?P<obj>{_DIETS})\b", re.I)
_CONDITION = re.compile(
    r"^\s+(?:has|have|['’]s\s+got|has\s+got)\s+(?P<obj>(?:coeliac|celiac)(?:\s+disease)?|(?:type\s+[12]\s+)?diabetes|"
    r"pku|phenylketonuria|sickle\s+cell(?:\s+(?:disease|anaemia|anemia))?)\b"
    # "emil has zöliakie, coeliac disease": the name the family uses, then the English one.
    r"|^\s+(?:has|have)\s+[\w-]+,\s+(?P<gloss>(?:coeliac|celiac)\s+disease)\b",
    re.I,
)
#: Conditions people name in plain words: a fact about their health, not a rule.
_HAS_CONDITION = re.compile(
    r"^\s+(?:has|have|['’]s\s+got|has\s+got)\s+(?P<obj>(?:bad\s+|mild\s+|severe\s+)?(?:asthma|reflux|eczema|epilepsy|"
    r"adhd|autism|afib|a-fib|atrial\s+fibrillation|high\s+cholesterol|high\s+blood\s+pressure|low\s+blood\s+pressure|"
    r"hypertension|arthritis|migraines|anaemia|anemia|a\s+heart\s+condition|hay\s+fever|dyslexia|dyspraxia|"
    r"type\s+[12]\s+diabetes)(?:\s+and\s+(?:high\s+cholesterol|high\s+blood\s+pressure|asthma|eczema|reflux))?)\b",
    re.I,
)
#: A restriction of the body: "Halmeoni can't sit on the floor", "Dad can't climb stairs".
_CANT_MOVE = re.compile(
    r"^\s+(?:can['’]?t|cannot|can\s+not|shouldn['’]?t|must\s+not|mustn['’]?t)\s+(?:really\s+)?"
    r"(?P<action>(?:sit|kneel|climb|lift|walk|stand|bend|swim|run|carry|do\s+stairs)\b.+)$",
    re.I,
)
#: A fast kept on set days is a diet: "I keep a fast on tuesdays", "she fasts every Monday".
_FASTS = re.compile(
    r"^\s+(?P<verb>(?:keeps?|kept)\s+a\s+fast|fasts?|is\s+fasting)\s+(?P<days>(?:on\s+|every\s+)(?:mon|tues|wednes|thurs|fri|satur|sun)"
    r"days?\b.*)$",
    re.I,
)
#: A restriction that will pass is not a rule: "can't walk that much yet".
_FOR_NOW = re.compile(r"\b(?:yet|for\s+now|at\s+the\s+moment|right\s+now|this\s+week|today|until\s+\w+)\b", re.I)
_ON_DIET = re.compile(
    rf"^{_BE}\s+{_ADVERBS}on\s+(?:a|an|the)\s+(?P<obj>(?:[\w-]+\s+){{0,3}}?diet)\b(?P<rest>.*)$", re.I
)
_ONLY_EATS = re.compile(
    rf"^\s+(?:only\s+eats?|eats?\s+only|only\s+eat|only\s+cooks?|cooks?\s+only)\s+(?P<obj>(?:{_DIETS})"
    rf"(?:\s+(?:food|meat))?)\b",
    re.I,
)
_CANT_HAVE = re.compile(
    r"^\s+(?P<neg>can['’]?t|cant|cannot|can\s+not|shouldn['’]?t|should\s+not|must\s+not|mustn['’]?t|"
    r"(?:is|are)n['’]?t\s+allowed(?:\s+to)?|(?:is|are)\s+not\s+allowed(?:\s+to)?|may\s+not|must\s+never|"
    r"(?:is|are)\s+not\s+supposed\s+to|(?:is|are)n['’]?t\s+supposed\s+to)\s+(?:really\s+|ever\s+|even\s+)?"
    r"(?P<verb>eat|have|drink|do|touch|take|be\s+around|be\s+near)\s+(?P<obj>.+)$",
    re.I,
)
_DOESNT_EAT = re.compile(
    r"^\s+(?P<neg>doesn['’]?t|does\s+not|don['’]?t|do\s+not|never|won['’]?t|will\s+not|no\s+longer)\s+"
    r"(?P<verb>eat|eats|drink|drinks|touch)\s+(?P<obj>.+)$",
    re.I,
)
_EPIPEN = re.compile(
    r"^\s+(?:has|have|carries|carry|needs|need|['’]s\s+got|has\s+got)\s+(?:an?\s+|(?:her|his|their|two|2)\s+)?"
    r"(?P<what>epi-?pens?|epi\s+pens?|auto-?injectors?)(?:\s+for\s+(?P<obj>.+))?",
    re.I,
)
#: "i stopped eating beef", "she's given up meat": a diet kept from now on.
_STOPPED = re.compile(
    r"^\s+(?:stopped|quit|gave\s+up|has\s+given\s+up|have\s+given\s+up|['’](?:s|ve)\s+given\s+up)\s+"
    r"(?:eating\s+|having\s+)?(?P<obj>.+)$",
    re.I,
)
_WHEN_TAIL = re.compile(r"\s+(?:in|since|after|last|this|at|when|because|from)\b", re.I)
_NO_FOOD_FOR = re.compile(r"^no\s+(?P<obj>[\w ,'’-]{2,40}?)\s+for\s+(?P<who>.+)$", re.I)
_MEDICATION = re.compile(
    r"^(?P<verb>\s+(?:takes|take|needs|need|is on|are on)|['’]s on)\s+(?P<obj>(?:(?:her|his|their|my|its|the)\s+)?"
    r"(?:[\w-]+\s+){0,2}(?:pills?|medication|medicine|meds|insulin|inhaler|antibiotics|tablets?|drops|shots?)\b.*)$",
    re.I,
)
#: Kinds of food a diet gives up: "doesn't eat pork" is a diet; "doesn't eat beans" a dislike.
_FOOD_WORDS = frozenset(
    """meat pork beef lamb mutton chicken poultry fish seafood shellfish prawns prawn shrimp crab lobster dairy milk
    cheese butter cream yoghurt yogurt eggs egg gluten wheat gelatine gelatin alcohol onion onions garlic nuts nut
    peanuts peanut sesame soy soya honey caffeine sugar kiwi strawberries strawberry mushrooms shellfish grapefruit
    octopus squid mustard celery lupin sulphites coconut tomatoes tomato banana bananas potatoes chocolate""".split()  # noqa: SIM905
)

HEALTH: dict[str, Any] = {
    "type": MemoryType.CONSTRAINT,
    "strength": Strength.HARD,
    "authority": Authority.USER_EXPLICIT,
    "confidence": 0.9,
    "sensitivity": Sensitivity.HEALTH,
}


def _agree(verb: str, subject: Subject) -> str:
    """ "keep a fast" said by "I" -> "keeps a fast" of the speaker."""
    first, *rest = verb.split()
    if subject.kind != "household":
        first = third_person(first)
    return " ".join([first, *rest])


def health_words(text: str) -> bool:
    """Whether ``text`` is about food someone must not have."""
    return any(w in _FOOD_WORDS for w in re.findall(r"[a-z]+", text.lower()))


def _clean(obj: str) -> str | None:
    """The allergen or food, or None when it is a pronoun ("allergic to it")."""
    obj = object_of(obj)
    obj = re.sub(r"\s+(?:either|too|as well|also|now|anymore|any more|at all)$", "", obj, flags=re.I).strip()
    words = obj.lower().split()
    if not words or words[0] in OPAQUE or words[0] in ("him", "her", "them", "one", "some"):
        return None
    if words[0] in ("nothing", "none", "anything", "everything", "something"):
        return None  # "allergic to nothing": no constraint
    return obj


def _diet_food(obj: str) -> bool:
    words = [w for w in re.findall(r"[a-z]+", obj.lower()) if w not in ("any", "or", "and", "no", "red", "white")]
    return bool(words) and all(w in _FOOD_WORDS or w in ("products", "food", "foods", "meats") for w in words)


#: A claim's fields (all but the subject's: ``Run.base``).
Claim = dict[str, Any]
#: What one phrasing states of the subject: the claim, or None when the words, shaped like
#: it, state nothing to keep ("allergic to it", "can't take the bus").
Reading = Callable[[re.Match[str], Subject], Claim | None]


def _health(about: str, summary: str, when_to_use: str, **fields: Any) -> Claim:
    """A hard constraint tagged health (unless ``fields`` say otherwise), its summary one sentence."""
    return {**HEALTH, "about": about, "summary": sentence_case(summary), "when_to_use": when_to_use, **fields}


def _eating(who: str) -> str:
    return f"Meals, snacks, recipes, restaurants or anything {who} might eat or touch"


def _meals(who: str) -> str:
    return f"Planning meals, recipes or restaurants for {who}"


def _allergy(match: re.Match[str], subject: Subject) -> Claim | None:
    obj, who = _clean(match.group("obj")), subject.display
    if obj is None:
        return None
    return _health(f"{who}'s allergy to {obj}"[:120], f"{who} is allergic to {obj}", _eating(who))


def _has_allergy(match: re.Match[str], subject: Subject) -> Claim | None:
    what, who = match.group("what"), subject.display
    obj = _clean(match.group("obj") or "") if match.group("obj") else None
    if what and what.lower().split()[0] in OPAQUE:
        return None
    summary = f"{who} has a {what.strip()} allergy" if what else f"{who} has an allergy to {obj}" if obj else ""
    if not summary:
        return None
    return _health(f"{who}'s allergy to {(what or obj or '').strip()}"[:120], summary, _eating(who))


def _intolerance(match: re.Match[str], subject: Subject) -> Claim | None:
    what, who = match.group("what"), subject.display
    obj = _clean(match.groupdict().get("obj") or "") if match.groupdict().get("obj") else None
    if not (what or obj):
        return None
    if "intolerance" in match.group(0).lower():
        summary = f"{who} has a {what} intolerance"
    else:
        summary = f"{who} is {what.lower()} intolerant" if what else f"{who} is intolerant to {obj}"
    return _health(f"{who}'s intolerance: {what or obj}"[:120], summary, _eating(who))


def _diet(match: re.Match[str], subject: Subject) -> Claim:
    diet = " ".join(match.group("obj").lower().split())
    who = subject.display
    return _health(f"{who}'s diet", f"{who} is {_DIET_WORD.get(diet, diet)}", _meals(who))


def _condition(match: re.Match[str], subject: Subject) -> Claim:
    condition = " ".join((match.group("obj") or match.group("gloss")).split())
    who = subject.display
    return _health(
        f"{who}'s diet: {condition}",
        f"{who} has {condition}",
        f"Planning meals, recipes, treats or restaurants for {who}",
    )


def _named_condition(match: re.Match[str], subject: Subject) -> Claim:
    """ "Stan has AFib": a fact about their health (soft), not a rule."""
    condition = " ".join(match.group("obj").split())
    who = subject.display
    return _health(
        f"{who}'s health: {condition}",
        f"{who} has {condition}",
        f"Care, activities, outings or meals for {who}",
        type=MemoryType.FACT,
        strength=Strength.SOFT,
    )


def _restriction(match: re.Match[str], subject: Subject) -> Claim:
    action, who = object_of(match.group("action")), subject.display
    return _health(
        f"What {who} cannot do: {action}"[:120],
        f"{who} cannot {action}",
        f"Outings, restaurants, seating or activities for {who}",
    )


def _fast(match: re.Match[str], subject: Subject) -> Claim:
    days, who = object_of(match.group("days")), subject.display
    keeps = _agree(match.group("verb"), subject)  # "I keep a fast": "Lucía keeps a fast"
    return _health(
        f"{who}'s fast: {days}"[:120], f"{who} {keeps} {days}", f"Meals, invitations or plans for {who} on {days}"
    )


def _on_diet(match: re.Match[str], subject: Subject) -> Claim:
    diet, extra = " ".join(match.group("obj").split()), object_of(match.group("rest"))
    who = subject.display
    return _health(f"{who}'s diet", f"{who} is on a {diet}{(' ' + extra) if extra else ''}", _meals(who))


def _only_eats(match: re.Match[str], subject: Subject) -> Claim:
    obj = " ".join(match.group("obj").split())
    verb = "only cooks" if "cook" in match.group(0).lower() else "only eats"
    who = subject.display
    return _health(f"{who}'s diet", f"{who} {verb} {_DIET_WORD.get(obj.lower(), obj)}", _meals(who))


def _cannot_have(match: re.Match[str], subject: Subject) -> Claim | None:
    neg = " ".join(match.group("neg").lower().replace("’", "'").split())
    verb = " ".join(match.group("verb").lower().split())
    obj, who = _clean(match.group("obj")), subject.display
    if obj is None:
        return None
    modal = (
        "cannot"
        if neg.startswith("can")
        else "must not"
        if neg.startswith(("should", "must", "may"))
        else "is not allowed to"
    )
    if verb not in ("eat", "have", "drink") and not health_words(obj):
        return None  # "can't take the bus": not food
    if verb == "do":
        verb = "have"  # "can't do dairy"
    return _health(f"What {who} cannot {verb}: {obj}"[:120], f"{who} {modal} {verb} {obj}", f"Food or drink for {who}")


def _does_not_eat(match: re.Match[str], subject: Subject) -> Claim | None:
    """ "doesn't eat pork": a diet; "doesn't eat beans": a dislike, soft."""
    verb = match.group("verb").lower().rstrip("s")
    obj, who = _clean(match.group("obj")), subject.display
    if obj is None:
        return None
    neg = " ".join(match.group("neg").lower().split())
    plural = subject.kind == "household"
    said = "no longer" if neg == "no longer" else "do not" if plural else "does not"
    if neg == "no longer":
        verb = f"{verb}s" if not plural else verb
    summary = f"{who} {said} {verb} {obj}"
    if _diet_food(obj):
        return _health(f"{who}'s diet: no {obj}"[:120], summary, _meals(who))
    return {
        "type": MemoryType.PREFERENCE,
        "about": f"{obj[:1].upper()}{obj[1:]} ({subject.label})"[:120],
        "summary": sentence_case(summary),
        "when_to_use": f"Meals or snacks for {who}",
        "strength": Strength.SOFT,
        "authority": Authority.USER_IMPLICIT,
        "confidence": 0.75,
    }


def _given_up(match: re.Match[str]) -> str:
    return _WHEN_TAIL.split(object_of(match.group("obj")), maxsplit=1)[0]


def _stopped_eating(match: re.Match[str], subject: Subject) -> Claim:
    obj, who = _given_up(match), subject.display
    return _health(f"{who}'s diet: no {obj}"[:120], f"{who} stopped eating {obj}", _meals(who))


def _epipen(match: re.Match[str], subject: Subject) -> Claim:
    obj = _clean(match.group("obj")) if match.group("obj") else None
    pen = "an EpiPen" if "epi" in match.group("what").lower() else "an auto-injector"
    who = subject.display
    # "has an EpiPen for peanuts" states the allergy: a hard constraint. A bare "has an EpiPen"
    # is a fact about their care, kept (tagged health) without making a rule of it.
    return _health(
        f"{who}'s EpiPen",
        f"{who} has {pen}" + (f" for {obj}" if obj else ""),
        f"Outings, school, meals or care for {who}: the EpiPen goes too",
        strength=Strength.HARD if obj else Strength.SOFT,
    )


def _medication(match: re.Match[str], subject: Subject) -> Claim:
    raw_verb = match.group("verb").lower()
    verb = "takes" if "take" in raw_verb else "needs" if "need" in raw_verb else "is on"
    obj, who = object_of(match.group("obj")), subject.display
    # "Pepper needs his pills at 8" is a requirement of their care: hard. "Stan takes Eliquis"
    # and "is on fluoxetine" say what they take: a fact to keep, tagged health, not a rule.
    return _health(
        f"{who}'s medication",
        f"{who} {verb} {obj}",
        f"Daily routines, reminders or care for {who}",
        strength=Strength.HARD if verb == "needs" else Strength.SOFT,
    )


class _Phrasing(Protocol):
    def match(self, string: str, /) -> re.Match[str] | None: ...


class _Unless:
    """A pattern whose match does not count when ``exception`` holds of it."""

    def __init__(self, pattern: re.Pattern[str], exception: Callable[[re.Match[str]], bool]) -> None:
        self.pattern, self.exception = pattern, exception

    def match(self, string: str, /) -> re.Match[str] | None:
        found = self.pattern.match(string)
        return None if found is None or self.exception(found) else found


#: Each phrasing, in the order they are tried, and what it states. The first that matches the
#: words after the subject decides, whether or not it states anything to keep.
_READINGS: tuple[tuple[_Phrasing, Reading], ...] = (
    (_ALLERGY, _allergy),
    (_HAS_ALLERGY, _has_allergy),
    (_INTOLERANT, _intolerance),
    (_HAS_INTOLERANCE, _intolerance),
    (_DIET, _diet),
    (_CONDITION, _condition),
    (_HAS_CONDITION, _named_condition),
    # "can't sit on the floor", not a restriction that will pass ("can't walk that much yet").
    (_Unless(_CANT_MOVE, lambda m: bool(_FOR_NOW.search(m.group("action")))), _restriction),
    (_FASTS, _fast),
    (_ON_DIET, _on_diet),
    (_ONLY_EATS, _only_eats),
    (_CANT_HAVE, _cannot_have),
    (_DOESNT_EAT, _does_not_eat),
    # "stopped eating beef", not "gave up smoking".
    (_Unless(_STOPPED, lambda m: not _diet_food(_given_up(m))), _stopped_eating),
    (_EPIPEN, _epipen),
    (_MEDICATION, _medication),
)


def constraint(run: Run, clause: Clause, subject: Subject, rest: str) -> bool:
    """Propose the health constraint ``rest`` states of ``subject``; whether one was found."""
    for phrasing, reading in _READINGS:
        if (match := phrasing.match(rest)) is not None:
            claim = reading(match, subject)
            if claim is None:
                return False
            run.propose(clause, **claim, **run.base(subject))
            return True
    return False


def no_food_for(run: Run, clause: Clause) -> bool:
    """ "No nuts for Kai", "no dairy for the baby": a food someone must not have."""
    match = _NO_FOOD_FOR.match(clause.core)
    if match is None or not _diet_food(match.group("obj")):
        return False
    if rests_on_passing_state(clause):
        return True  # "he's on antibiotics so no dairy for him": for as long as that lasts, unsaid
    who_text = match.group("who").strip(" .!")
    offset = clause.core.index(who_text)
    pronoun = re.match(r"(?i:him|her)\b", who_text)
    if pronoun:
        who = run.people.resolve(pronoun.group(0), clause.turn, clause.start + offset)
        if who is None:
            return False
        subject, after = who, who_text[pronoun.end() :]
    else:
        parsed = run.people.subject(who_text, clause.turn, clause.start + offset)
        if parsed is None:
            return False
        subject, after = parsed
    if after.strip(" .!,") and not re.match(r"^\s*(?:either|too|please|pls|at all|ever)\b", after, re.I):
        return False
    obj, name = " ".join(match.group("obj").split()), subject.display
    claim = _health(f"What {name} cannot have: {obj}"[:120], f"No {obj} for {name}", f"Food or drink for {name}")
    run.propose(clause, **claim, **run.base(subject))
    return True
