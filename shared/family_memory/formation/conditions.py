"""Conditions, ended states, paired values and assistant proposals (part of the support check,
``formation/support.py``; DESIGN invariant 2, issue 10 section 2).

A summary can keep the turn's words and still claim more than the family said. This module
refuses four such classes; each rule reads only the quoted turns (and, for the last, the turns
cited around them) and is conservative: when the clause structure is unclear it says nothing.

- **A dropped condition.** A clause of the quoted sentence states a rule or plan under a
  condition: "Y only if X", "Y unless X", "Y as long as / so long as / provided (that) /
  providing X", "Y except when/if X", "Y if X", or "if X(,) Y". When the summary restates the
  main clause Y (at least half of its content words, two or more) and keeps nothing of X (no
  conditional word: if, unless, when, provided, except, only, ...; no content word of X), the
  summary drops the condition. A condition of a refusal or a ban ("don't mention them if she's
  talking to you") is not read: without it the rule is stricter, not looser. A condition of
  another clause ("we're off to the lake on sunday, and if it rains the kids can watch a film")
  binds only that clause, and a trailing condition binds only the stretch since the last comma
  ("she's mad about horses, she'd ride every day if we let her"). Not read: "even if" (a
  concession), "as if", "if you let her" (given the chance), a condition on the listener
  ("if you're ever trying to reach him then", "in case you need it": it frames advice), and "if" after
  ask/wonder/see/check/know/sure (an indirect question). Limits: a condition said in another
  sentence or turn ("only when it's dry. they can walk then") is not seen.
- **A flipped state.** The turn says a state ended: "no longer X", "stopped X", "quit X",
  "used to X" (not "is used to", "got used to"), "not/n't X any more/anymore". When the summary
  restates X (at least half of its content words) and says nothing of the end (no negation, no
  past-tense or ending word: stopped, left, used to, gave up, former, was, ...), it states as
  current what the turn says is over. It does not judge what the summary says of the new state.
- **A swapped pair.** A sentence of the quoted turns gives parallel parts, each naming one known
  person ("ama takes the 7:10 bus, kofi the 7:40"; "peanuts for ayo, eggs for tobi"; "lena's at
  st anne's and max is at hillcrest"). A summary clause naming one of those people that holds a
  word only another person's part says, and no word only their own part says, gives that
  person the other's value (times, amounts, foods, places, activities alike; kin words are
  not values, and the value must be the other's own word, not a sense of it). A part that
  points back ("kai does too", "same for kai") or says nothing of its own is not read.
- **An assistant's proposal not taken up.** An assistant turn proposes ("how about", "maybe",
  "you could", "would you like", "shall I", "I'd suggest", ...), and the summary's distinctive
  words (content words, not names; two or more) are held in that turn but in no word of the family's (the
  user turns cited or before them, and what the family said earlier). When the family's next
  turn neither accepts (``support._AFFIRM`` without ``support._DECLINE``, or "good idea", "will
  do", "book it") nor takes up a word of the summary, the summary states a suggestion as the
  family's plan. With no reply cited the rule says nothing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from family_memory.domain.text import normalise_for_match
from family_memory.formation import paraphrase
from family_memory.formation import support as _s

# --- shared pieces --------------------------------------------------------------------------

_SENTENCE = re.compile(r"[.!?\n]+(?!\d)")


def _fold(text: str) -> str:
    return normalise_for_match(text).replace("’", "'")


def _substance(text: str) -> list[str]:
    """Content words that carry a claim (not generic, filler or clock words)."""
    return [
        w
        for w in dict.fromkeys(_s._content(_s._tokens(text)))
        if w not in _s.GENERIC and w not in _s.FILLER and w not in {"am", "pm", "only"}
    ]


def _share(words: Sequence[str], pool: Sequence[str]) -> list[str]:
    return [w for w in words if _s._held(w, pool)]


# --- 1. dropped conditions -----------------------------------------------------------------

#: Where one clause of a sentence ends and a coordinated one begins.
_COORDINATE = re.compile(
    r"[;:]|,\s*(?:and|but|so|then|or)\b|\s(?:but|so(?! long as)|otherwise|whereas|while)\b|,\s*(?=if not\b)"
)
#: A condition after its main clause: "Y only if X", "Y unless X".
_TRAILING = re.compile(
    r"\b(?:only if|only when|but only if|unless|as long as|so long as|provided(?: that)?|providing(?: that)?|"
    r"on condition that|except (?:when|if)|except on|(?<!even )(?<!as )(?<!ask )(?<!asked )(?<!wonder )"
    r"(?<!wondering )(?<!see )(?<!check )(?<!know )(?<!sure )if)\b",
    re.I,
)
#: A condition that follows its main clause after a "but": "... but only if her brother's with her".
_AFTER_ITS_MAIN = re.compile(r"^\W*(?:only if|unless|as long as|so long as|provided)\b", re.I)
#: A condition before its main clause: "if X, Y"; its end is a comma or the main clause's subject.
_LEADING = re.compile(r"^\W*(?:only if|if|unless|as long as|so long as|provided(?: that)?)\b\s*", re.I)
_MAIN_SUBJECT = re.compile(
    r"\s(?:then|we|we'll|we're|i|i'll|i'm|they|they'll|he|he'll|she|she'll|you|you'll|it's|the kids|"
    r"[a-z]+ (?:can|will|could|may|has|have|gets?|goes?))\b",
    re.I,
)
#: The summary keeps a condition by a word of condition (or of the condition's own words).
_KEPT = re.compile(
    r"\b(?:if|unless|when|whenever|provided|providing|as long as|so long as|except|only|but not|not when|"
    r"depending|depends|weather permitting|on condition|otherwise|in case|assuming|subject to|allowed to \w+ if)\b",
    re.I,
)
#: Not a condition of the claim: a concession, a manner, an idiom of "given the chance".
_EXCLUDED_IF = re.compile(
    r"\b(?:even if|as if|if so|if possible|if needed|if any|what if|"
    r"(?:if|when) (?:you|we|they|i) let (?:her|him|them|me|us)|if (?:you|u)\b[^,;.!?]*|"
    r"in case (?:you|u)\b[^,;.!?]*|if (?:she|he|they) (?:gets?|had|has) the chance)\b",
    re.I,
)


def _conditioned_clauses(text: str) -> list[tuple[str, str]]:
    """(main clause, condition) for each conditioned clause of ``text``."""
    out: list[tuple[str, str]] = []
    for sentence in _SENTENCE.split(_fold(text)):
        previous = ""
        for clause in _COORDINATE.split(sentence):
            clause = _EXCLUDED_IF.sub(" ", clause).strip()
            if not clause:
                continue
            after_main, previous = previous, clause
            lead = _LEADING.match(clause)
            if lead and after_main and _AFTER_ITS_MAIN.match(clause):
                # "harper can walk to the bus stop on her own now but only if her brother's with
                # her": the condition of the clause before the "but", up to its comma.
                out.append((after_main, clause[lead.end() :].split(",")[0]))
                continue
            if lead:
                rest = clause[lead.end() :]
                comma = rest.find(",")
                subject = _MAIN_SUBJECT.search(rest, 3)
                cut = comma if comma >= 0 else (subject.start() if subject else -1)
                if cut > 0:
                    out.append((rest[cut:].strip(" ,"), rest[:cut]))
                continue
            trailing = _TRAILING.search(clause)
            if trailing and trailing.start() > 0:
                # The main clause is the stretch since the last comma: "she's mad about horses, she'd
                # ride every day if we let her" conditions the riding, not the horses.
                # The condition runs to its comma: "only if his sugar reading is below 140, doctor
                # was very clear" does not make the doctor a word of the condition.
                condition = clause[trailing.end() :].split(",")[0]
                out.append((clause[: trailing.start()].rsplit(",", 1)[-1], condition))
    return out


def dropped_condition(summary: str, quoted: str) -> str | None:
    """The condition of a quoted clause the summary restates without it, as a reason, or None."""
    if _KEPT.search(_fold(summary)):
        return None
    ours = _s._tokens(summary)
    for main, condition in _conditioned_clauses(quoted):
        if _s._negated(main):
            continue  # a refusal or a ban without its condition errs on the side of caution
        main_words = _substance(main)
        held = _share(main_words, ours)
        if len(held) < 2 or len(held) * 2 < len(main_words):
            continue
        # A word of the condition kept in the summary's own form ("not smoked fish"); not a sense
        # of it ("drive" is said of a "car", yet keeps nothing of "if the car's fixed").
        condition_words = _substance(condition)
        # A word the main clause says too ("cheese except when it's blue cheese") keeps nothing.
        main_stems = {_s._stem(w) for w in main_words}
        condition_words = [w for w in condition_words if _s._stem(w) not in main_stems]
        stems = {_s._stem(w) for w in ours}
        if not condition_words or any(_s._stem(w) in stems for w in condition_words):
            continue
        return f"the summary drops the turn's condition ('{' '.join(condition.split()[:8])}')"
    return None


# --- 2. ended states -----------------------------------------------------------------------

_ENDED = re.compile(
    r"\b(?:no longer|stopped|quit|(?<!is )(?<!are )(?<!am )(?<!'m )(?<!'re )(?<!'s )(?<!be )(?<!been )"
    r"(?<!get )(?<!got )(?<!getting )(?<!was )(?<!were )used to)\s+(?P<state>[^,;:.!?]+)",
    re.I,
)
_NOT_ANYMORE = re.compile(
    r"\b(?:not|no|never|\w+n't|dont|doesnt|isnt|arent)\s+(?P<state>[^,;:.!?]+?)\s+(?:any ?more)\b", re.I
)
#: Where an ended state's words end: "no longer needs the inhaler since she started the tablets".
_STATE_END = re.compile(r"\b(?:since|because|cos|after|now|and|but|so|as|when|though|although|not)\b", re.I)
#: The summary says the state ended (or did not hold): a negation, an ending word, a past form.
_SAYS_ENDED = re.compile(
    r"\b(?:stopped|stops|quit|quits|used to|gave up|given up|give up|left|leaves|ended|ends|finished|former|"
    r"formerly|previously|no more|no longer|any ?more|dropped|came off|come off|weaned|until|was|were|had|did|"
    r"outgrown|outgrew|past|free|without|avoids?)\b",
    re.I,
)


def _ended_states(text: str) -> list[tuple[str, str]]:
    """(ended state, the turn's words outside its clause) for each state the turn says ended."""
    states: list[tuple[str, str]] = []
    folded = _fold(text)
    for pattern in (_ENDED, _NOT_ANYMORE):
        for match in pattern.finditer(folded):
            state = _STATE_END.split(match.group("state"))[0]
            if not state.strip() or _STOPPED_PLACE.match(match.group(0)):
                continue
            opening = max(folded.rfind(mark, 0, match.start()) for mark in ",;:.!?\n")
            outside = folded[: opening + 1] + " " + folded[match.start("state") + len(state) :]
            states.append((state, outside))
    return states


#: "stopped" of a journey, not of a state: "we stopped at the services", "stopped by grandma's".
_STOPPED_PLACE = re.compile(r"stopped (?:at|by|off|in|for|to|over|on|outside|near)\b|no longer than\b", re.I)


def flipped_state(summary: str, quoted: str) -> str | None:
    """A state the quoted turn says ended that the summary states as current, as a reason, or None.
    The summary must claim nothing but the state: a word of it the turn says elsewhere ("stopped
    the blue inhaler, now he takes the brown one" -> "takes the brown inhaler") is about what
    came after."""
    folded = _fold(summary)
    if _SAYS_ENDED.search(folded) or _s._negated(folded) or _s._PAST_VERB.search(folded):
        return None
    ours = _s._tokens(summary)
    for state, outside in _ended_states(quoted):
        words = _substance(state)
        held = _share(words, ours)
        if not words or not held or len(held) * 2 < len(words):
            continue
        state_tokens = _s._tokens(state)
        if any(paraphrase.antonyms(w, t) for w in ours for t in state_tokens):
            continue  # the ended state's opposite, said as current: "no longer scared" -> "fine with"
        if any(_s._held(w, _s._tokens(outside)) and not _s._held(w, state_tokens) for w in _substance(summary)):
            continue
        return f"the turn says '{' '.join(state.split()[:6])}' ended; the summary states it as current"
    return None


# --- 3. swapped pairs ----------------------------------------------------------------------

_PAIR_PART = re.compile(r"[;]|[,:](?!\d)|\s[—–-]\s|\b(?:and|but|while|whereas|plus)\b", re.I)
_POINTS_BACK = re.compile(r"\b(?:too|also|as well|same|either|them|ditto|both)\b", re.I)


#: A name after these words is not whose the part is: "piano on weds with mrs iyer".
_NOT_OWNER = frozenset({"with", "by", "from", "to", "at", "and", "mrs", "mr", "ms", "dr", "coach", "miss"})


#: Kin words say whom a person is to another ("our son viliami", "mike's daughter"): who is
#: whose is the binding checks' business, not a paired value.
_KIN_WORDS = _s._KIN | _s._RELATIONS


def _person_of(part: str, people: dict[str, str]) -> str | None:
    tokens = _s._tokens(part)
    found = {people[w] for n, w in enumerate(tokens) if w in people and (n == 0 or tokens[n - 1] not in _NOT_OWNER)}
    return next(iter(found)) if len(found) == 1 else None


def swapped_pair(summary: str, quoted: str, names: Sequence[str]) -> str | None:
    """A person of a summary clause given the value only another person's parallel part holds."""
    people = {w: name for name in names for w in _s._tokens(name) if len(w) > 1 and w not in _s.GENERIC}
    if not people:
        return None
    ours = [(p, _s._tokens(part)) for part in _PAIR_PART.split(summary) if (p := _person_of(part, people))]
    if not ours:
        return None
    for sentence in _SENTENCE.split(_fold(quoted)):
        parts: dict[str, list[str]] = {}
        person: str | None = None
        for part in _PAIR_PART.split(sentence):
            # A part naming no one goes on with the person before it: "rohan has swim, and piano".
            person = _person_of(part, people) or person
            if person is None:
                continue
            if _POINTS_BACK.search(part):
                parts = {}
                break
            words = [w for w in _substance(part) if w not in people and w not in _KIN_WORDS] + [
                w for w in _s._tokens(part) if w[0].isdigit()
            ]
            parts.setdefault(person, []).extend(words)
        if len(parts) < 2:
            continue
        only = {
            p: [w for w in words if not any(_s._held(w, others) for q, others in parts.items() if q != p)]
            for p, words in parts.items()
        }
        for person, tokens in ours:
            if person not in only or not only[person]:
                continue
            if _share(only[person], tokens):
                continue
            stems = {_s._stem(w) for w in tokens}
            for other, words in only.items():
                taken = [w for w in words if other != person and _s._stem(w) in stems]
                if taken:
                    return f"the turn gives {taken[0]} to {other}, not {person}"
    return None


# --- 4. assistant proposals ----------------------------------------------------------------

_PROPOSAL = re.compile(
    r"\b(?:how about|what about|maybe|perhaps|you could|you might|could try|why not|i'd suggest|i would suggest|"
    r"i suggest|i recommend|i'd recommend|would you like|shall i|should i|want me to|do you want|"
    r"you may want|consider|one option|an option|could be fun|might be)\b",
    re.I,
)
_TAKEN = re.compile(
    r"\b(?:(?:great|good|nice|lovely|brilliant) idea|will do|(?:i'll|we'll|he'll|she'll|they'll) do (?:that|it)|"
    r"book(?:ing)? (?:it|her|him|them)|let's do|go for it|sounds (?:good|great|perfect))\b",
    re.I,
)


def proposal_not_taken(
    summary: str,
    turns: Sequence[tuple[str, str]],
    names: Sequence[str],
    family_text: str = "",
) -> str | None:
    """``turns``: (role, text) in order, the cited turns and those before them."""
    name_words = {w for name in names for w in _s._tokens(name)}
    family_pool = _s._tokens("\n".join([family_text, *(text for role, text in turns if role == "user")]))
    ours = [w for w in _substance(summary) if w not in name_words and not _s._held(w, family_pool)]
    if not ours:
        return None
    for n, (role, text) in enumerate(turns):
        if role != "assistant" or not _PROPOSAL.search(_fold(text)):
            continue
        theirs = _share(ours, _s._tokens(text))
        if len(theirs) < 2:
            continue  # one word may be a paraphrase the assistant happens to share ("cake" for "sponge")
        reply = next((t for r, t in turns[n + 1 :] if r == "user"), None)
        if reply is None:
            continue
        folded = _fold(reply)
        if (_s._AFFIRM.search(folded) and not _s._DECLINE.search(folded)) or _TAKEN.search(folded):
            continue
        substance = _substance(summary) + [w for w in _s._tokens(summary) if w[0].isdigit()]
        if _share(substance, _s._tokens(reply)) and not _s._DECLINE.search(folded):
            continue  # the reply takes the matter up in words of its own ("it's at 5 actually")
        return f"'{theirs[0]}' is only the assistant's suggestion; the family did not take it up"
    return None


def condition_problems(
    summary: str,
    quoted: str,
    turns: Sequence[tuple[str, str]],
    names: Sequence[str],
    family_text: str = "",
) -> list[str]:
    """The problems of the four rules above (``quoted``: the quoted turns' text)."""
    found = [
        dropped_condition(summary, quoted),
        flipped_state(summary, quoted),
        swapped_pair(summary, quoted, names),
        proposal_not_taken(summary, turns, names, family_text),
        diet_overreach(summary, quoted),
        done_before_it_happens(summary, quoted),
    ]
    return [p for p in found if p]


# --- 5. a diet the turns say less than; a change stated as done before it is ------------------

_DIET = re.compile(r"\b(?:vegetarian|vegan|veggie|pescatarian|plant[- ]based)\b", re.I)
_MEATS = r"(?:meat|chicken|fish|beef|lamb|pork|mutton|goat|turkey|ham|bacon|sausages?|seafood|prawns?|shrimp)"
#: A meat the turns say is still eaten: "rest of the week chicken fish all fine", "chicken an fish
#: still good tho".
_MEAT_EATEN = re.compile(
    rf"\b{_MEATS}\b(?:[\s,&/]+(?:and |an |n |or )?{_MEATS}\b)*"
    r"[\s,]+(?:all |is |are |still |also )*(?:fine|good|ok|okay|allowed)\b"
    rf"|\b(?:still|can|does|do)\s+(?:eats?|have|has)\s+{_MEATS}\b",
    re.I,
)
#: A diet of some meals or days, not of the person: "vegetarian meals on Mondays", "veggie dinners".
_DIET_OF_MEALS = re.compile(
    r"\b(?:vegetarian|vegan|veggie|pescatarian|plant[- ]based) (?:meals?|food|dinners?|lunch(?:es)?|days?|options?)\b"
    r"|\bon (?:mon|tues|wednes|thurs|fri|satur|sun)days\b",
    re.I,
)
#: Meats a pescatarian eats.
_PESCATARIAN_EATS = re.compile(r"^(?:fish|seafood|prawns?|shrimp)$", re.I)


def diet_overreach(summary: str, quoted: str) -> str | None:
    """A diet the summary gives that the turns say less than: "we are doing veg on mondays ...
    rest of the week chicken fish all fine" is no "the whole family is vegetarian", nor "mi done
    wid pork ... chicken an fish still good" "Shanice is vegetarian"."""
    diet = _DIET.search(summary)
    if not diet or _s._negated(summary) or _DIET_OF_MEALS.search(summary):
        return None  # "eats vegetarian meals on Mondays; chicken and fish are fine on other days"
    if re.search(rf"\b{_MEATS}\b", summary, re.I):
        return None  # the summary says which meat is still eaten
    folded = _fold(quoted)
    for match in _MEAT_EATEN.finditer(folded):
        meats = re.findall(_MEATS, match.group(0), re.I)
        if diet.group(0).lower() == "pescatarian" and all(_PESCATARIAN_EATS.match(m) for m in meats):
            continue
        return f"the turns say {' and '.join(meats)} is still eaten; the summary says {diet.group(0).lower()}"
    return None


#: A summary that says the change has happened: "has already quit", "has started", "has left".
_DONE = re.compile(r"\b(?:already|has (?:now )?(?:quit|left|started|stopped|moved|finished|given up))\b", re.I)
#: A turn that says it will: "im quitting after the season ends", "gonna", "will", "after".
_TO_COME = re.compile(
    r"\b(?:(?:i'm|im|i am|she's|shes|he's|hes|they're|we're) (?:quitting|leaving|starting|stopping|moving|finishing)"
    r"|going to|gonna|will|'ll|after the|once the|next (?:week|month|year|term|season))\b",
    re.I,
)


def done_before_it_happens(summary: str, quoted: str) -> str | None:
    """A change the turn says is to come that the summary says is done: "told coach im quitting
    after the season ends in nov" is not "Zoe has already quit soccer"."""
    folded = _fold(quoted)
    if _TO_COME.search(summary) or re.search(r"\b(?:from|starting)\b", summary, re.I):
        return None  # "has moved from Wednesdays to Thursdays ... from next week" says when
    if _DONE.search(summary) and _TO_COME.search(folded) and not re.search(r"\b(?:already|just)\b", folded):
        return "the turn says it is to come; the summary says it is done"
    return None
