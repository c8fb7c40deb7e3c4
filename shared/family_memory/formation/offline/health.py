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
from typing import TYPE_CHECKING, Any

from family_memory.domain.memory import Authority, MemoryType, Sensitivity, Strength
from family_memory.formation.offline.people import OPAQUE, Subject
from family_memory.formation.offline.text import object_of, sentence_case, third_person

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


def constraint(run: Run, clause: Clause, subject: Subject, rest: str) -> bool:
    """Propose the health constraint ``rest`` states of ``subject``; whether one was found."""
    who = subject.display
    base = run.base(subject)
    when_eat = f"Meals, snacks, recipes, restaurants or anything {who} might eat or touch"
    if match := _ALLERGY.match(rest):
        obj = _clean(match.group("obj"))
        if obj is None:
            return False
        run.propose(
            clause,
            about=f"{who}'s allergy to {obj}"[:120],
            summary=sentence_case(f"{who} is allergic to {obj}"),
            when_to_use=when_eat,
            **HEALTH,
            **base,
        )
        return True
    if match := _HAS_ALLERGY.match(rest):
        what = match.group("what")
        obj = _clean(match.group("obj") or "") if match.group("obj") else None
        if what and what.lower().split()[0] in OPAQUE:
            return False
        summary = f"{who} has a {what.strip()} allergy" if what else f"{who} has an allergy to {obj}" if obj else ""
        if not summary:
            return False
        run.propose(
            clause,
            about=f"{who}'s allergy to {(what or obj or '').strip()}"[:120],
            summary=sentence_case(summary),
            when_to_use=when_eat,
            **HEALTH,
            **base,
        )
        return True
    if match := (_INTOLERANT.match(rest) or _HAS_INTOLERANCE.match(rest)):
        what = match.group("what")
        obj = _clean(match.groupdict().get("obj") or "") if match.groupdict().get("obj") else None
        if not (what or obj):
            return False
        word = "intolerance" if "intolerance" in match.group(0).lower() else "intolerant"
        if word == "intolerance":
            summary = f"{who} has a {what} intolerance"
        else:
            summary = f"{who} is {what.lower()} intolerant" if what else f"{who} is intolerant to {obj}"
        run.propose(
            clause,
            about=f"{who}'s intolerance: {what or obj}"[:120],
            summary=sentence_case(summary),
            when_to_use=when_eat,
            **HEALTH,
            **base,
        )
        return True
    if match := _DIET.match(rest):
        diet = " ".join(match.group("obj").lower().split())
        diet = _DIET_WORD.get(diet, diet)
        run.propose(
            clause,
            about=f"{who}'s diet",
            summary=sentence_case(f"{who} is {diet}"),
            when_to_use=f"Planning meals, recipes or restaurants for {who}",
            **HEALTH,
            **base,
        )
        return True
    if match := _CONDITION.match(rest):
        condition = " ".join((match.group("obj") or match.group("gloss")).split())
        run.propose(
            clause,
            about=f"{who}'s diet: {condition}",
            summary=sentence_case(f"{who} has {condition}"),
            when_to_use=f"Planning meals, recipes, treats or restaurants for {who}",
            **HEALTH,
            **base,
        )
        return True
    if match := _HAS_CONDITION.match(rest):
        condition = " ".join(match.group("obj").split())
        run.propose(
            clause,
            type=MemoryType.FACT,
            about=f"{who}'s health: {condition}",
            summary=sentence_case(f"{who} has {condition}"),
            when_to_use=f"Care, activities, outings or meals for {who}",
            authority=Authority.USER_EXPLICIT,
            confidence=0.9,
            sensitivity=Sensitivity.HEALTH,
            **base,
        )
        return True
    if (match := _CANT_MOVE.match(rest)) and not _FOR_NOW.search(match.group("action")):
        action = object_of(match.group("action"))
        run.propose(
            clause,
            about=f"What {who} cannot do: {action}"[:120],
            summary=sentence_case(f"{who} cannot {action}"),
            when_to_use=f"Outings, restaurants, seating or activities for {who}",
            **HEALTH,
            **base,
        )
        return True
    if match := _FASTS.match(rest):
        days = object_of(match.group("days"))
        run.propose(
            clause,
            about=f"{who}'s fast: {days}"[:120],
            summary=sentence_case(f"{who} {_agree(match.group('verb'), subject)} {days}"),
            when_to_use=f"Meals, invitations or plans for {who} on {days}",
            **HEALTH,
            **base,
        )
        return True
    if match := _ON_DIET.match(rest):
        diet = " ".join(match.group("obj").split())
        extra = object_of(match.group("rest"))
        run.propose(
            clause,
            about=f"{who}'s diet",
            summary=sentence_case(f"{who} is on a {diet}{(' ' + extra) if extra else ''}"),
            when_to_use=f"Planning meals, recipes or restaurants for {who}",
            **HEALTH,
            **base,
        )
        return True
    if match := _ONLY_EATS.match(rest):
        obj = " ".join(match.group("obj").split())
        obj = _DIET_WORD.get(obj.lower(), obj)
        cooks = "cook" in match.group(0).lower()
        verb = ("only cooks" if cooks else "only eats") if subject.kind != "household" else "only eats"
        if subject.kind == "household":
            verb = "only cooks" if cooks else "only eats"
        run.propose(
            clause,
            about=f"{who}'s diet",
            summary=sentence_case(f"{who} {verb} {obj}"),
            when_to_use=f"Planning meals, recipes or restaurants for {who}",
            **HEALTH,
            **base,
        )
        return True
    if match := _CANT_HAVE.match(rest):
        neg = " ".join(match.group("neg").lower().replace("’", "'").split())
        verb = " ".join(match.group("verb").lower().split())
        obj = _clean(match.group("obj"))
        if obj is None:
            return False
        modal = (
            "cannot"
            if neg.startswith("can")
            else "must not"
            if neg.startswith(("should", "must", "may"))
            else "is not allowed to"
        )
        if verb not in ("eat", "have", "drink") and not health_words(obj):
            return False  # "can't take the bus": not food
        if verb == "do":
            verb = "have"  # "can't do dairy"
        run.propose(
            clause,
            about=f"What {who} cannot {verb}: {obj}"[:120],
            summary=sentence_case(f"{who} {modal} {verb} {obj}"),
            when_to_use=f"Food or drink for {who}",
            **HEALTH,
            **base,
        )
        return True
    if match := _DOESNT_EAT.match(rest):
        verb = match.group("verb").lower().rstrip("s")
        obj = _clean(match.group("obj"))
        if obj is None:
            return False
        neg = " ".join(match.group("neg").lower().split())
        plural = subject.kind == "household"
        said = "no longer" if neg == "no longer" else "do not" if plural else "does not"
        if neg == "no longer":
            verb = f"{verb}s" if not plural else verb
        summary = sentence_case(f"{who} {said} {verb} {obj}")
        if _diet_food(obj):
            run.propose(
                clause,
                about=f"{who}'s diet: no {obj}"[:120],
                summary=summary,
                when_to_use=f"Planning meals, recipes or restaurants for {who}",
                **HEALTH,
                **base,
            )
        else:
            run.propose(
                clause,
                type=MemoryType.PREFERENCE,
                about=f"{obj[:1].upper()}{obj[1:]} ({subject.label})"[:120],
                summary=summary,
                when_to_use=f"Meals or snacks for {who}",
                strength=Strength.SOFT,
                authority=Authority.USER_IMPLICIT,
                confidence=0.75,
                **base,
            )
        return True
    stopped = _STOPPED.match(rest)
    obj = _WHEN_TAIL.split(object_of(stopped.group("obj")), maxsplit=1)[0] if stopped else ""
    if stopped and _diet_food(obj):
        run.propose(
            clause,
            about=f"{who}'s diet: no {obj}"[:120],
            summary=sentence_case(f"{who} stopped eating {obj}"),
            when_to_use=f"Planning meals, recipes or restaurants for {who}",
            **HEALTH,
            **base,
        )
        return True
    if match := _EPIPEN.match(rest):
        obj = _clean(match.group("obj")) if match.group("obj") else None
        pen = "an EpiPen" if "epi" in match.group("what").lower() else "an auto-injector"
        # "has an EpiPen for peanuts" states the allergy: a hard constraint. A bare "has an EpiPen"
        # is a fact about their care, kept (tagged health) without making a rule of it.
        strength = {} if obj else {"strength": Strength.SOFT}
        run.propose(
            clause,
            about=f"{who}'s EpiPen",
            summary=sentence_case(f"{who} has {pen}" + (f" for {obj}" if obj else "")),
            when_to_use=f"Outings, school, meals or care for {who}: the EpiPen goes too",
            **{**HEALTH, **strength},
            **base,
        )
        return True
    if match := _MEDICATION.match(rest):
        raw_verb = match.group("verb").lower()
        verb = "takes" if "take" in raw_verb else "needs" if "need" in raw_verb else "is on"
        obj = object_of(match.group("obj"))
        # "Pepper needs his pills at 8" is a requirement of their care: hard. "Stan takes Eliquis"
        # and "is on fluoxetine" say what they take: a fact to keep, tagged health, not a rule.
        run.propose(
            clause,
            type=MemoryType.CONSTRAINT,
            about=f"{who}'s medication",
            summary=sentence_case(f"{who} {verb} {obj}"),
            when_to_use=f"Daily routines, reminders or care for {who}",
            strength=Strength.HARD if verb == "needs" else Strength.SOFT,
            authority=Authority.USER_EXPLICIT,
            confidence=0.9,
            sensitivity=Sensitivity.HEALTH,
            **base,
        )
        return True
    return False


def no_food_for(run: Run, clause: Clause) -> bool:
    """ "No nuts for Kai", "no dairy for the baby": a food someone must not have."""
    match = _NO_FOOD_FOR.match(clause.core)
    if match is None or not _diet_food(match.group("obj")):
        return False
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
    obj = " ".join(match.group("obj").split())
    run.propose(
        clause,
        about=f"What {subject.display} cannot have: {obj}"[:120],
        summary=sentence_case(f"No {obj} for {subject.display}"),
        when_to_use=f"Food or drink for {subject.display}",
        **HEALTH,
        **run.base(subject),
    )
    return True
