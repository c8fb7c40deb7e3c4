"""Standing instructions and household rules: the offline extractor's hard directives.

A hard rule is an instruction to the assistant or a standing household rule,
said by a member in so many words:

- "always …", "never …", "don't …" / "do not …" followed by an action the
  assistant or the household takes ("always check with me before booking",
  "never give the kids caffeine", "don't book anything for Emi on Tuesday
  mornings"), optionally after a condition ("after a night shift, don't
  message Linh before 2");
- "check with me before …", "call me …", "from now on …", "house rule: …";
- "no <thing> for/before/on/except … " ("no tablet for Idris before school");
- "only A or B may …", "X must not …", "X isn't allowed to …";
- an instruction with a standing marker ("remind Khoa every night at 9 …").

Small talk that merely starts with those words is not a rule: "Never thought of
that!", "Always a pleasure", "Always the way", "Don't get me started", "Don't
even ask", a joke ("lol", "haha", an eye-roll). The word after "always",
"never" or "don't" must be an action (the verbs below), the action needs an
object, and a rule about one day ("don't book anything on Friday") is a request,
not a standing rule. A rule that leans on a word pointing elsewhere ("don't
mention it to him yet", "don't book anything those mornings") is formed only
when the pronoun resolves to one person (people.py); "it", "that", "those"
never do, so such a rule is not formed.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from family_memory.domain.memory import Authority, Durability, MemoryType, Sensitivity, Strength
from family_memory.formation.candidate import EntityHint
from family_memory.formation.offline.people import OPAQUE, PRONOUNS, Subject
from family_memory.formation.offline.text import (
    SMALL_TALK,
    name_first_person,
    rests_on_passing_state,
    sentence_case,
    short,
)
from family_memory.formation.offline.timing import is_recurring, one_day_dates, thing_subject

if TYPE_CHECKING:
    from family_memory.formation.offline.extractor import Run
    from family_memory.formation.offline.text import Clause

#: Actions an instruction or a household rule is about.
ACTIONS = frozenset(
    """book schedule reschedule plan arrange organise organize send share forward post message text email
    e-mail call ring phone contact remind tell mention say suggest recommend offer order buy get add put
    include invite cc copy reply respond use pay spend charge give serve feed let leave make cook pack check
    ask confirm bring pick drop sign enrol enroll wake disturb interrupt show accept agree approve allow
    take drive go answer list write translate keep assume cancel move change open read notify update tag
    address refer label set double-check doublecheck run start finish skip purchase promise expect talk
    discuss forget commit volunteer lend permit water walk wash clean lock unlock close turn switch wear
    brush bathe dress clear empty fill tidy""".split()  # noqa: SIM905
)
#: What follows "don't" / "never" in a phrase that is not an instruction.
_IDIOM = re.compile(
    r"^(?:even\b|ever\s+again\b|get\s+\w+\s+started\b|start\b|talk\s+to\s+(?:me|us)\b|remind\s+me\b(?!\s+\w)|"
    r"tell\s+me\b(?!\s+(?:before|first|when|if|about))|ask\s+me\b(?!\s+(?:before|first))|ask\b(?!\s+(?:the|him|her|them|anyone|anybody|for|before|[A-Z]))|worry\b|forget\b|mind\b|bother\b|"
    r"know\b|think\b|care\b|judge\b|laugh\b|blame\b|get\s+me\s+wrong\b|be\b|apologi[sz]e\b|sweat\b|"
    r"mention\s+it\b|say\s+(?:that|it)\b|make\s+me\b|let\s+me\s+forget\b|want\b|need\b|have\b|feel\b|"
    r"get\s+(?:it|why|how|what)\b)",
    re.I,
)
_LEAD = re.compile(
    r"^(?P<cond>(?:(?:when|whenever|after|before|on|during|while|until|if)\s[^,]{3,60}?"
    r"(?:,\s+|\s+(?=(?:please|pls|plz|don['’]?t|dont|do\s+not|never|always)\s))))?"
    r"(?:(?:please|pls|plz|and)\s+)?(?P<lead>always|never(?:\s+ever)?|(?:don['’]?t|dont|do\s+not)(?:\s+ever)?)\s+"
    r"(?P<rest>.+)$",
    re.I,
)
_CHECK = re.compile(
    r"^(?:(?:please|pls|plz)\s+)?(?:(?:check|confirm)\s+with\s+me|ask\s+me)\s+(?:first\s+)?"
    r"before\s+(?P<rest>.+)$",
    re.I,
)
_CALL_ME = re.compile(r"^(?i:(?:please|pls)\s+)?(?i:call|address)\s+me\s+(?:(?i:as)\s+)?(?P<name>[A-ZÀ-Þ][\wÀ-ÿ-]+)")
_FROM_NOW = re.compile(r"^(?:from now on|going forward|in (?:the )?future),?\s+(?P<rest>.+)$", re.I)
_HOUSE_RULE = re.compile(r"^(?:(?:new|our|the|a)\s+)?house\s+rules?(?:\s+(?:is|now))?\s*[:,-]?\s+(?P<rest>.+)$", re.I)
_NO_THING = re.compile(
    r"^no\s+(?P<thing>[\w'’ -]{2,40}?)\s+(?P<q>for|before|after|on|at|in|during|except|unless|until|till|past|"
    r"while|without|in the)\b\s*(?P<rest>.+)$",
    re.I,
)
_NOT_THINGS = re.compile(
    r"^(?:time|money|space|room|that|this|it|anything|much|many|a\s+lot|worries|worry|problem|problems|idea|rush|way|clue|pressure|thanks|need|stress|biggie|chance|wonder|"
    r"doubt|matter|one|more|longer|big deal|fuss|time|news|luck|reason|point|sign|word|answer|reply|plans?|"
    r"school|work|kita|nursery|practice|training|class|classes|lessons?|club)\b",
    re.I,
)
#: A rule about a thing: "the AC must stay at 26 at night", "his water bottle must always go to school".
_THING_MUST = re.compile(
    r"^(?:the|our|his|her|their|[^\W\d_][\w-]*['’]s)\s+(?P<what>[\w -]{2,30}?)\s+(?:must(?:\s+not|n['’]t|\s+never|"
    r"\s+always)?|should\s+(?:always|never))\s+(?P<rest>.+)$",
    re.I,
)
#: A household's standing "we don't do Klarna", "we never use the dryer".
_WE_DONT = re.compile(
    r"^we\s+(?:don['’]?t|do\s+not|never)\s+(?:do|use|allow|buy|accept|sign\s+up\s+for)\s+(?P<what>[\w -]{2,40}?)"
    r"(?:\s+(?:or|and)\s+.+)?$",
    re.I,
)
_HOUSE_RULE_SAID = re.compile(r"\bhouse\s+rules?\b", re.I)
_TOPIC = re.compile(r"^(?:in\s+|for\s+)?[^\W\d_][\w'’-]*(?:\s+[\w'’-]+){0,2},\s+")
_DOCTOR_SAID = re.compile(
    r"^(?:the\s+|our\s+|his\s+|her\s+)?(?:doctor|dr\.?\s+\w+|gp|paediatrician|pediatrician|consultant|specialist|"
    r"dentist|physio|cardiologist|allergist)\s+(?:said|says|told\s+us)\s+(?:that\s+)?(?=no\b|not\b|never\b)",
    re.I,
)
_ONLY = re.compile(r"^only\s+(?P<who>.{2,60}?)\s+(?:may|can|are allowed to|is allowed to|should)\s+(?P<rest>.+)$", re.I)
_MUST = re.compile(
    r"^(?P<modal>\s+(?:must\s+not|mustn['’]?t|must\s+never|must\s+always|must|may\s+only|can\s+only|may\s+not|"
    r"can['’]?t\s+be(?=\s+(?:left|alone|given|fed|around|near|out|outside|in))|cannot\s+be(?=\s+(?:left|alone|given|fed))|"
    r"(?:is|are)\s+not\s+allowed\s+to|(?:is|are)n['’]?t\s+allowed\s+to|(?:is|are)\s+never\s+allowed\s+to|"
    r"(?:is|are)\s+only\s+allowed\s+to|should\s+never|should\s+not|shouldn['’]?t|should\s+no\s+longer|"
    r"(?:is|are)\s+not\s+to|never|(?:has|have|needs?)\s+to(?=\s.*\b(?:every|each|always|a\s+day|a\s+week|at\s+least|"
    r"daily|whenever)\b)))\s+(?P<rest>.+)$",
    re.I,
)
_STANDING = re.compile(
    r"\b(?:every\s+(?:time|single\s+time|night|day|morning|evening|week|weekend)|each\s+time|whenever|always|"
    r"from now on|going forward)\b",
    re.I,
)
#: A rule that carries on from one said before, or leans on a day said before.
_CONTINUES = re.compile(
    r"\b(?:either|too|as well|also|at all)\s*$|\bthe\s+(?:night|day|morning|evening)\s+(?:before|after|of)\b|"
    r"\bthat\s+day\b|\bthose\s+days\b",
    re.I,
)
#: An instruction about how the assistant itself works ("keep your replies short").
_YOUR_WAY = re.compile(r"\byour\s+(?:replies|answers|messages|responses|texts|reminders|summaries|suggestions)\b", re.I)
_ONE_OFF = re.compile(r"\b(?:this\s+time|for\s+now|for\s+once|right\s+now|just\s+this|this\s+one)\b", re.I)
_REPORTED = re.compile(
    r"\b(?:said|says|say|told\s+(?:me|us)|tells\s+(?:me|us))(?:\s+that)?\s+(?:i|we|you|he|she|they|the\s+kids)\b"
    r"(?:['’]re|['’]m|\s+are|\s+am|\s+is)?\s*(?:can|could|may|allowed|should|get\s+to)\b",
    re.I,
)
_GENERIC_OBJECT = frozenset(
    """anything something everything nothing stuff things thing it that this them me us yet again now
    please ever just any""".split()  # noqa: SIM905
)
#: "that" that starts a relative clause or a complement ("anything that costs money").
_RELATIVE_THAT = re.compile(
    r"\bthat\s+(?:is|are|was|has|have|had|costs?|goes|go|contains?|includes?|needs?|takes?|involves?|uses?|"
    r"isn['’]?t|aren['’]?t|doesn['’]?t|don['’]?t|we|they|he|she|i|you|could|would|might|will|can)\b",
    re.I,
)

HARD: dict[str, Any] = {
    "strength": Strength.HARD,
    "authority": Authority.USER_EXPLICIT,
    "confidence": 0.95,
    "durability": Durability.DURABLE,
}


def _instruction_part(rest: str) -> str:
    """The instruction without the asides after it ("..., it's a surprise")."""
    return re.split(r"[,;:(]|\s[-–—]\s", rest, maxsplit=1)[0].strip(" .!")


def _words(text: str) -> list[str]:
    return [w.lower().replace("’", "'") for w in re.findall(r"[\w’'-]+", text)]


def _resolve_people(
    run: Run, clause: Clause, text: str, offset: int, subject: Subject | None = None
) -> tuple[str, list[Subject]] | None:
    return run.people.name_pronouns(text, clause.turn, clause.start + offset, subject)


def _opaque(instruction: str) -> bool:
    """Whether the instruction leans on a word pointing elsewhere ("it", "those mornings", "that")."""
    words = _words(instruction)
    for i, word in enumerate(words):
        if word == "that":
            if _RELATIVE_THAT.search(" ".join(words[i:])) and i > 0:
                continue
            return True
        if word in OPAQUE:
            return True
    return False


def _has_object(instruction: str) -> bool:
    words = _words(instruction)[1:]
    return any(w not in _GENERIC_OBJECT and w not in PRONOUNS and len(w) > 1 for w in words)


def directive(run: Run, clause: Clause) -> bool:
    """Propose the clause's instruction or household rule, if it states one. True when the
    clause is shaped like one ("never …", "always …"), so nothing else is read in it."""
    core = clause.core
    speaker = clause.turn.member_id or ""
    name = run.people.speaker_name(speaker)
    if match := _CALL_ME.match(core):
        called = match.group("name")
        full = run.people.speaker_full_name(speaker)
        run.propose(
            clause,
            type=MemoryType.DIRECTIVE,
            about=f"How to address {name}",
            summary=f"Address {full} as {called}.",
            body=f"{full} asked to be called {called}.",
            when_to_use=f"Greeting or addressing {name}",
            applies_to=[speaker],
            about_member=speaker,
            entities=[EntityHint(name=full, member_id=speaker, aliases=[called])],
            **HARD,
        )
        return True
    if _REPORTED.search(clause.sentence):
        return False  # "dad said I can skip chores": a report, not the family's own rule
    if match := _CHECK.match(core):
        rest = match.group("rest").strip(" .")
        if _rule_ok(run, clause, rest, core.index(rest)) is None:
            return True
        run.propose(
            clause,
            type=MemoryType.DIRECTIVE,
            about=f"Check with {name} before {short(rest, 6)}",
            summary=sentence_case(f"Check with {name} before {rest}"),
            body=sentence_case(f"{name} asked: check with them before {rest}; show the draft and wait for a yes"),
            when_to_use=sentence_case(f"Before {rest}"),
            applies_to=[speaker],
            **HARD,
        )
        return True
    if match := _HOUSE_RULE.match(core):
        return _household_rule(run, clause, match.group("rest"), core.index(match.group("rest")), house=True)
    if match := _FROM_NOW.match(core):
        rest = match.group("rest")
        return _instruction(run, clause, "From now on,", rest, core.index(rest), "")
    if match := _LEAD.match(core):
        lead = match.group("lead").lower()
        word = "Never" if lead.startswith("never") else "Always" if lead == "always" else "Do not"
        cond = match.group("cond") or ""
        return _instruction(run, clause, word, match.group("rest"), match.start("rest"), cond)
    if doctor := _DOCTOR_SAID.match(core):
        # What a doctor told the family is the family's to keep: "the doctor said no swimming for him".
        rest = core[doctor.end() :]
        if _NO_THING.match(rest):
            return _household_rule(run, clause, rest, doctor.end(), house=False, lead=doctor.group(0))
    if _NO_THING.match(core) or _ONLY.match(core):
        return _household_rule(run, clause, core, 0, house=False)
    if (thing := _THING_MUST.match(core)) or (thing := _WE_DONT.match(core)):
        return _household_rule(run, clause, core, 0, house=False, thing=thing)
    if (topic := _TOPIC.match(core)) and (thing := _THING_MUST.match(core[topic.end() :])):
        # "Obinna's room, the AC must stay at 26": the rule, with what it is about first.
        return _household_rule(
            run, clause, core[topic.end() :], topic.end(), house=False, thing=thing, lead=topic.group(0)
        )
    first = _words(core)[:1]
    if first and first[0] in ACTIONS and (_STANDING.search(core) or _YOUR_WAY.search(core)) and not clause.question:
        return _standing_request(run, clause)
    return False


def _rule_ok(
    run: Run,
    clause: Clause,
    rest: str,
    offset: int,
    exclude: frozenset[str] = frozenset(),
    part: str | None = None,
) -> tuple[str, list[Subject]] | None:
    """The rule's words with its pronouns resolved, or None when it is no standing rule. An
    aside after the rule (``part``: the rule without it; "..., he loses it") is dropped when
    its pronoun points nowhere."""
    if SMALL_TALK.search(clause.sentence) or _ONE_OFF.search(rest) or rests_on_passing_state(clause):
        return None
    part = part if part is not None else _instruction_part(rest)
    if _opaque(part):
        return None
    if one_day_dates(part, clause) and not is_recurring(part):
        return None  # "don't book anything on Friday": one day's request
    whole = run.people.name_pronouns(rest, clause.turn, clause.start + offset, exclude=exclude)
    if whole is None and part != rest.strip(" .!"):
        return run.people.name_pronouns(part, clause.turn, clause.start + offset, exclude=exclude)
    return whole


def _instruction(run: Run, clause: Clause, lead: str, rest: str, offset: int, cond: str) -> bool:
    rest = rest.strip(" .!")
    words = _words(rest)
    if _IDIOM.match(rest) or not words:
        return True
    verb = words[1] if words[0] in ("ever", "just", "again") and len(words) > 1 else words[0]
    if verb not in ACTIONS:
        return True  # "Never thought of that", "Always a pleasure": small talk
    part = _instruction_part(rest)
    if not _has_object(part):
        return True  # "Do not wait", "don't book anything yet": no rule to keep
    checked = _rule_ok(run, clause, rest, offset)
    if checked is None or (cond and _opaque(cond)):
        return True
    text, resolved = checked
    speaker = clause.turn.member_id or ""
    name = run.people.speaker_name(speaker)
    text, personal = name_first_person(text, name)
    cond_text = name_first_person(cond.strip(" ,"), name)[0]
    instruction = sentence_case(f"{cond_text}, {lead.lower()} {text}" if cond_text else f"{lead} {text}")
    whose: dict[str, Any] = {"applies_to": [speaker], "about_member": speaker} if personal else {}
    _propose_rule(run, clause, instruction, text, resolved, **whose)
    return True


def _household_rule(
    run: Run,
    clause: Clause,
    rule: str,
    offset: int,
    *,
    house: bool,
    thing: re.Match[str] | None = None,
    lead: str = "",
) -> bool:
    """ "House rule: no tablet before school", "no phones at dinner", "only Jana or Tom may pick up Emil"."""
    rule = rule.strip(" .!")
    if run.people.is_child(clause.turn.member_id or ""):
        return False  # a household rule is the parents' to state; a child's "no phones at dinner" is a report
    if _CONTINUES.search(rule):
        return True  # "no alcohol in cooking either": the rest of a rule said before
    if house and _LEAD.match(rule):
        match = _LEAD.match(rule)
        assert match is not None
        lead = match.group("lead").lower()
        word = "Never" if lead.startswith("never") else "Always" if lead == "always" else "Do not"
        return _instruction(run, clause, word, match.group("rest"), offset + match.start("rest"), "")
    no_thing = _NO_THING.match(rule)
    if no_thing and _NOT_THINGS.match(no_thing.group("thing")):
        return False
    if not (no_thing or _ONLY.match(rule) or house or thing):
        return False
    if thing is not None and _NOT_THINGS.match(thing.group("what")):
        return False
    only = _ONLY.match(rule)
    allowed: frozenset[str] = frozenset()
    part = None
    if only:
        # "only me, tom or oma may pick emil up, plus sven on his fridays": the list is the rule's.
        allowed = frozenset(s.key for s in run.people.mentions(only.group("who"), clause.turn.member_id))
        part = rule[: only.start("rest")] + _instruction_part(only.group("rest"))
    checked = _rule_ok(run, clause, rule, offset, allowed, part)
    if checked is None:
        return True
    text, resolved = checked
    text, _ = name_first_person(text, run.people.speaker_name(clause.turn.member_id or ""))
    summary = sentence_case(f"House rule: {text}" if house else f"{lead}{text}")
    food: dict[str, Any] = {"type": MemoryType.CONSTRAINT, "sensitivity": Sensitivity.HEALTH}
    _propose_rule(run, clause, summary, text, resolved, **(food if run.health_words(text) else {}))
    return True


def person_rule(run: Run, clause: Clause, subject: Subject, rest: str) -> bool:
    """ "Ciarán must not drive on the motorway", "Moose can't be left alone", "the kids are not
    allowed to …": a standing rule about someone."""
    match = _MUST.match(rest)
    if match is None or SMALL_TALK.search(clause.sentence) or _REPORTED.search(clause.sentence):
        return False
    if run.people.is_child(clause.turn.member_id or "") or _CONTINUES.search(rest):
        return False
    action = match.group("rest").strip(" .!")
    if not _has_object("x " + action) or _opaque(_instruction_part(action)):
        return False
    if one_day_dates(action, clause) and not is_recurring(action):
        return False
    offset = clause.core.index(action) if action in clause.core else 0
    checked = _rule_ok(run, clause, action, offset, frozenset({subject.key}))
    if checked is None:
        return False
    text, resolved = checked
    modal = " ".join(match.group("modal").split())
    text, _ = name_first_person(text, run.people.speaker_name(clause.turn.member_id or ""))
    _propose_rule(
        run,
        clause,
        sentence_case(f"{subject.display} {modal} {text}"),
        text,
        resolved,
        type=MemoryType.CONSTRAINT,
        about=short(f"{subject.display}: {modal} {text}", 8, 100),
        when_to_use=f"Plans, bookings or care involving {subject.label}",
        applies_to=list(dict.fromkeys([*subject.applies_to, *_named(resolved)])),
        about_member=subject.about_member,
        entities=[h for h in [subject.hint, *(s.hint for s in resolved)] if h],
    )
    return True


def house_routine(run: Run, clause: Clause) -> bool:
    """ "House rule: no phones on school nights. Phones go in the basket at 8pm every night": a
    household routine said after the family named its house rules, in the same turn, is one of them."""
    said = clause.turn.text[: clause.start]
    named = _HOUSE_RULE_SAID.search(said)
    if not named or run.people.is_child(clause.turn.member_id or ""):
        return False
    core = clause.core
    if not is_recurring(core) or not thing_subject(core) or one_day_dates(core, clause):
        return False
    checked = _rule_ok(run, clause, core, 0)
    if checked is None:
        return False
    text, resolved = checked
    text, _ = name_first_person(text, run.people.speaker_name(clause.turn.member_id or ""))
    # One of the house rules said before it: as sensitive as they are ("no phones on school nights").
    _propose_rule(run, clause, sentence_case(f"House rule: {text}"), text, resolved, context=said[named.start() :])
    return True


def _standing_request(run: Run, clause: Clause) -> bool:
    """ "Remind Khoa every night at 9 to take his preventer": an instruction that holds each time."""
    if SMALL_TALK.search(clause.sentence) or _ONE_OFF.search(clause.core):
        return True
    core = clause.core
    if _opaque(_instruction_part(core)):
        return True
    checked = _resolve_people(run, clause, core, 0)
    if checked is None:
        return True
    text, resolved = checked
    speaker = clause.turn.member_id or ""
    text, personal = name_first_person(text, run.people.speaker_name(speaker))
    _propose_rule(run, clause, sentence_case(text), text, resolved, **({"applies_to": [speaker]} if personal else {}))
    return True


def _named(resolved: list[Subject]) -> list[str]:
    """Whom the people a rule names stand for, each once."""
    return list(dict.fromkeys(s.applies_to[0] for s in resolved if s.applies_to))


def _propose_rule(run: Run, clause: Clause, summary: str, text: str, resolved: list[Subject], **fields: Any) -> None:
    """Propose a hard rule as the speaker said it: ``summary``, the rule's words (``text``,
    pronouns resolved) and the people they name (``resolved``); ``fields`` replace what a
    directive about those people has by default."""
    name = run.people.speaker_name(clause.turn.member_id or "")
    claim: dict[str, Any] = {
        "type": MemoryType.DIRECTIVE,
        "about": short(summary.rstrip("."), 8),
        "summary": summary,
        "body": sentence_case(f"{name} said: {clause.quote}"),
        "when_to_use": sentence_case(f"Whenever this comes up: {short(text, 10)}"),
        "applies_to": _named(resolved),
        "entities": [s.hint for s in resolved if s.hint],
        **HARD,
    }
    run.propose(clause, **{**claim, **fields})
