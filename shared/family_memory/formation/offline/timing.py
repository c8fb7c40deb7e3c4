"""Facts tied to time: one occasion, a range, a schedule that repeats, a yearly date.

- One occasion ("the dentist is the 24th at 3:30", "Kai's going on the trip on
  the 12th", "pizza night is tonight"): a passing fact valid until the day
  after (formation/dates.py resolves the words against the turn's local date
  in the family's zone). A range ("Nadia is staying March 3 to 17") is valid
  until the day after it ends; "until the 16th" until the 17th.
- A schedule ("every Saturday", "on Tuesdays and Thursdays", "weekday
  afternoons", "Wednesday mornings", "mon to thu"): a durable fact with no
  valid_until; the day it starts ("from next week") is written out without a
  year-pinned date ("from next week (from May 18)").
- A birthday ("Jana's birthday is on the 3rd"): a durable fact, the day named
  without the year.

The clause must say who or what it is about in its own words (a member, a
person the conversation named, "I", "we", a thing: "the dentist appt"), or
through a pronoun that resolves to one person; a fragment with no verb ("April
14 at the orthopedic hospital"), a clause about "it" or "that" ("it's due
monday", "that's enough for tonight"), one about the past ("booked it today",
"landed this afternoon"), one with two different days, and one that only
says when something starts ("she'll be in from the 10th") are left alone.
"""

from __future__ import annotations

import re
from datetime import date, timedelta
from typing import TYPE_CHECKING, Any

from family_memory.domain.memory import Authority, Durability, MemoryType
from family_memory.formation.candidate import EntityHint
from family_memory.formation.dates import MONTHS, DateMention, find_dates, fold_lookalikes, weekday_number
from family_memory.formation.offline.people import OPAQUE, PRONOUNS, Subject
from family_memory.formation.offline.text import last_sentence, name_first_person, sentence_case, short

if TYPE_CHECKING:
    from family_memory.formation.offline.extractor import Run
    from family_memory.formation.offline.text import Clause

_DAY = r"(?:mon|tues|wednes|thurs|fri|satur|sun)day"
_SHORT_DAY = r"(?:mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)"
_RECURRING = re.compile(
    rf"\b(?:every|each)\s+(?:other\s+|second\s+|single\s+|other\s+|third\s+)?(?:day|night|morning|afternoon|evening|"
    rf"week|weekend|month|year|term|time|weekday|weeknight|{_DAY}|{_SHORT_DAY})s?\b"
    rf"|\b{_DAY}s\b|\b(?:week|school)(?:days|nights)\b|\bweekends\b|\bschool\s+(?:nights|days|mornings)\b"
    rf"|\b(?:{_DAY}|weekday|weekend)\s+(?:mornings|afternoons|evenings|nights)\b"
    rf"|\b(?:daily|nightly|weekly|fortnightly|monthly|yearly|annually)\b"
    # A count a schedule can have ("3 times a week"); "100 times a day" is a figure of speech.
    rf"|\b(?:once|twice|(?<![\d.])(?:[1-9]|1[0-2])\s+times|two\s+times|three\s+times)\s+(?:a|per)\s+(?:day|week|month|year)\b"
    rf"|\bon\s+a\s+{_DAY}\b|\b(?:{_DAY}|{_SHORT_DAY})\s*(?:-|to|till|til|thru|through)\s*(?:{_DAY}|{_SHORT_DAY})\b"
    rf"|\bof\s+(?:every|each|the)\s+month\b|(?<!\bin\s)\b(?:a|per)\s+(?:month|week)\b"
    # A list of weekdays is a week's schedule: "mon wed fri", "tuesday and thursday".
    rf"|\b(?:{_DAY}|{_SHORT_DAY})(?:\s*(?:,|and|&|/)?\s*(?:{_DAY}|{_SHORT_DAY})\b)+",
    re.I,
)
#: "next week" as the occasion ("emil is at oma's monday to friday next week"), not as a start.
_WEEK_OCCASION = re.compile(r"(?<!from\s)(?<!starting\s)(?<!as of\s)\b(?:this|next|that)\s+(?:week|weekend)\b", re.I)
#: "this week" / "next week" said with the weekdays it is about ("this week i'm on nights wed and
#: thu", "next week, emil is at oma's monday to friday"): the days of that week.
_WEEK_NAMED = re.compile(r"(?<!from\s)(?<!starting\s)(?<!as of\s)\b(?P<which>this|next)\s+week\b(?!end)", re.I)
_DAY_RUN = re.compile(
    rf"\b(?:{_DAY}|{_SHORT_DAY})\b(?:\s*(?:,|and|&|/|-|to|till|thru|through)?\s*\b(?:{_DAY}|{_SHORT_DAY})\b)*", re.I
)
_DAY_WORD = re.compile(rf"\b(?:{_DAY}|{_SHORT_DAY})\b", re.I)


def week_span(text: str, today: date) -> DateMention | None:
    """The days a clause names within "this week" or "next week" ("this week i'm on nights wed and
    thu", "on nights this week, monday to saturday"): from the first weekday named to the last.
    "next week" is next calendar week (weeks start on Monday; said on a Sunday, the week that starts
    tomorrow); "this week" is the week holding today, and said on a Sunday the one that starts
    tomorrow (the week the speaker has ahead). A weekday of this week already behind today, one
    run of days that is not the only one, or a day before its predecessor: None."""
    week = _WEEK_NAMED.search(text)
    if week is None:
        return None
    runs = [m for m in _DAY_RUN.finditer(text) if not (m.end() <= week.end() and m.start() >= week.start())]
    if len(runs) != 1:
        return None
    run = runs[0]
    days = [weekday_number(w) for w in _DAY_WORD.findall(run.group(0))]
    weekday = today.weekday()
    coming = week.group("which").lower() == "next" or weekday == 6
    monday = today + timedelta(days=7 - weekday) if coming else today - timedelta(days=weekday)
    resolved = [monday + timedelta(days=d) for d in days]
    if resolved[0] < today or resolved != sorted(resolved):
        return None
    return DateMention(run.start(), run.end(), run.group(0), resolved[0], resolved[-1])


_BIRTHDAY = re.compile(
    r"\b(?:birthday|bday|b-day|b'day)\b(?!\s+(?:party|dinner|lunch|cake|present|gift|celebration|plans?|trip|"
    r"outing|sleepover|bbq|picnic))",
    re.I,
)
_BIRTHDAY_IS = re.compile(
    r"\b(?:birthday|bday|b-day|b'day)(?:['’]s|\s+is|\s+falls\s+on)\b|\bis\s+(?:\w+(?:['’]s|s)\s+)(?:birthday|bday)\s*$",
    re.I,
)
_FROM_ONLY = re.compile(r"\b(?:from|starting|since|as of|after)\s+$", re.I)
_UNTIL = re.compile(r"\b(?:until|till|til|through|thru|up to|by)\s+$", re.I)
#: A verb: a clause without one is a fragment ("April 14 at mirae orthopedic hospital").
_VERB = re.compile(
    r"\b(?:is|are|am|was|were|be|been|has|have|had|will|'ll|’ll|going|gonna|coming|comes|come|goes|go|starts?|"
    r"finish(?:es)?|ends?|lands?|arrives?|leaves?|visits?|visiting|staying|stays?|needs?|takes?|taking|gets?|"
    r"plays?|playing|does|do|doing|moving|moves|flies|flying|works?|working|off|due|open|closed|booked|"
    r"scheduled|turns?|can|can't|cannot|must|should|want|wants|picking|collecting|driving|drives|meets?|"
    r"meeting|sees?|seeing|hosting|having|bringing|brings|running|runs|travels?|travelling|traveling|returns?|"
    r"back|joins?|joining|minding|covering|doing)\b|['’](?:s|re|m)\b",
    re.I,
)
_OPENERS = frozenset(
    """it it's its that that's this there there's they they're what which who whoever nothing everything
    anything something these those here here's both one except apart besides unless other for at in on
    to with from by about after before during still also just only then now again even not no never
    always maybe""".split()  # noqa: SIM905
)
#: Verbs that open a clause whose subject is in another sentence ("flies back 2nd april").
_VERB_FIRST = frozenset(
    """flies goes comes leaves lands arrives starts finishes ends gets has is was are were does takes plays works
    stays visits returns moves needs need wants want practises practices heads drives picks drops sleeps eats
    starting finishing leaving going coming landing arriving flying moving staying""".split()  # noqa: SIM905
)
#: A day said with "the" or "that" ("on the friday", "that Saturday") is one named before: elsewhere.
_DEFINITE_DAY = re.compile(r"\b(?:the|that|this\s+one)\s+$", re.I)
#: "one" standing for something said before ("the next one is the 25th", "Seo-yeon's first one").
_ONE = re.compile(
    r"\b(?:first|next|last|this|that|the|new|other|second)\s+one\b|^one\b|"
    r"\b(?:take|takes|took|have|has|get|gets|need|needs|want|wants|buy|bring|brings)\s+one\b",
    re.I,
)
#: An object that points elsewhere: "take it to basketball", "doing it every day", "with them".
_OPAQUE_OBJECT = re.compile(
    r"\b(?:take|taking|takes|do|doing|does|bring|bringing|get|getting|use|using|have|having|make|making|put|"
    r"give|send|tell|ask|need|want|like|love|hate|see|watch|fix|book|cancel|move|moved|miss|skip|keep|leave|"
    r"pick|drop|with|to|for|about|at|from|of|on|without)\s+(?:it|them|those|these|that)\b(?!['’]s)"
    r"|\b(?:has|have|had|got)\s+(?:nothing|anything)\b",
    re.I,
)
_MONEY = re.compile(
    r"\b(?:salary|pay|paid|paycheck|paycheque|wages|pension|rent|mortgage|loan|social security|benefits?|allowance|"
    r"universal credit|direct debit|standing order|bills?|subscription|emi|stipend|payment|payments)\b",
    re.I,
)
#: A date phrase that names a day relative to when it was said ("next week", "tomorrow", "the 14th").
_RELATIVE_WORD = re.compile(
    r"^(?:(?:from|starting|on)\s+)?(?:next|this|coming|tomorrow|tmrw|tmr|2moro|tonight|tonite|today|the)\b", re.I
)
_UNTIL_MONTH = re.compile(
    r"\b(?:until|till|til|through|thru)\s+(?:the\s+end\s+of\s+)?(?P<m>jan(?:uary)?|feb(?:ruary)?|march|apr(?:il)?|"
    r"may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\b(?!\.?\s*\d)",
    re.I,
)
#: "saturday: emil gf, tom no lactose, maisie veggie": a list, not one claim.
_LIST = re.compile(r"^[^:]{1,40}:\s*[^,]+(?:,\s*[^,]+){2,}$")
_STARTS = re.compile(r"\b(?:starts?|starting|begins?|beginning|kicks? off)\s+(?:on\s+)?$", re.I)
#: Words that say only when something lasting begins ("goes into hospital tmrw"): its end is unsaid.
_BEGINS = re.compile(
    r"\b(?:goes|going|go|went)\s+(?:into|in\s+to)\s+(?:the\s+)?hospital\s+(?:on\s+)?$|"
    r"\b(?:is|gets|getting|being)\s+admitted\s+(?:on\s+)?$",
    re.I,
)
#: A clause that says only that nothing changed ("thursday stays the same"): what stays is said elsewhere.
_UNCHANGED = re.compile(
    r"\b(?:stays?|staying|remains?|is|are|['’]s)\s+(?:still\s+)?(?:the\s+same|unchanged|as\s+(?:is|it\s+is|before|usual))"
    r"(?:\s+(?:as\s+before|too|then|btw))?$",
    re.I,
)
#: A rule that follows, with what came before as its reason: ", so never plan anything before 1".
#: ... or in a later sentence of the turn ("Sundays are for church and family. Service is at 10.
#: so never book anything for us on a sunday").
_REASON_FOR_RULE = re.compile(
    r"(?:^\s*,?\s+|[.!?,]\s*)so\s+(?:(?:please|pls|plz)\s+)?(?:never|don['’]?t|dont|do\s+not|no|always|nothing)\b",
    re.I,
)
#: A wish with a repeat word ("I want something different from rice every day"): no schedule.
_WISH = re.compile(
    r"^(?:i|we|he|she|they|[^\W\d_][\w'’-]*?)(?:\s+|(?=['’]d\b))(?:really\s+|just\s+|also\s+)?(?:want|wants|wanna|would\s+like|"
    r"['’]d\s+like|wish|wishes)\b",
    re.I,
)
#: A weekday used of a meal with an obligation ("friday dinner has to be cooked before sunset"):
#: what holds every such day, not on the next one.
_WEEKDAY_HABIT = re.compile(
    rf"\b{_DAY}\s+(?:dinner|lunch|breakfast|tea|supper|meals?)\b.*\b(?:has|have|needs?)\s+to\b|"
    rf"\b{_DAY}\s+(?:dinner|lunch|breakfast|tea|supper|meals?)\s+(?:must|should)\b",
    re.I,
)
_PAST_TODAY = re.compile(
    r"^(?:\w+\s+){0,3}?\w+ed\b|\b(?:i|we|he|she|they|just)\s+\w+ed\b|\b(?:went|got|came|ate|saw|took|made|"
    r"gave|told|said|found|left|met|sent|bought|brought|thought|felt|kept|ran|won|lost|paid|sold|spent|slept|"
    r"woke|wrote|drove|flew|fell|broke|did|had|was|were)\b",
    re.I,
)
_NOT_PAST_ED = frozenset("need bed red seed feed speed shed wed".split())  # noqa: SIM905


_NOT_ROUTINE = r"(?:last|first|next|final|this|that|same|whole|big|special|the|a|one|other|every)\b"
#: A routine named after its day ("Friday is my errand day", "her sabbath is Saturday").
_ROUTINE = re.compile(
    rf"(?:\b(?:sabbath|days?\s+off|(?!{_NOT_ROUTINE})[\w-]+\s+(?:day|night))\s+(?:is|are)\s+(?:on\s+)?{_DAY}\b(?!\s+the\b)"
    rf"|^{_DAY}\s+(?:is|are)\s+(?:my|our|his|her|their|\w+['’]s)?\s*(?:sabbath|day\s+off|"
    rf"(?!{_NOT_ROUTINE})[\w-]+\s+(?:day|night))\b)",
    re.I,
)


def is_recurring(text: str) -> bool:
    """Whether ``text`` speaks of something that repeats ("every Saturday", "Wednesday mornings")."""
    return (bool(_RECURRING.search(text)) and not _WEEK_OCCASION.search(text)) or bool(_ROUTINE.search(text))


def _plans(text: str, today: date) -> list[DateMention]:
    return [m for m in find_dates(text, today) if not m.past]


def one_day_dates(text: str, clause: Clause) -> list[DateMention]:
    """The days ahead ``text`` names ("on Friday", "tomorrow")."""
    return _plans(text, clause.today)


def _past_today(text: str, mention: DateMention) -> bool:
    """ "Booked it today", "landed this afternoon", "Emeka called today": what already happened today."""
    if not re.match(r"(?i:today|tonight|tonite|this\s)", mention.text):
        return False
    match = _PAST_TODAY.search(text)
    if match is None:
        return False
    word = re.findall(r"\w+", match.group(0))[-1].lower()
    return word not in _NOT_PAST_ED


def _human(day: date) -> str:
    return f"{day:%B} {day.day}"


def _annotate(text: str, mentions: list[DateMention], *, iso: bool) -> str:
    """``text`` with each date phrase followed by its date: "(2026-03-12)" for an occasion,
    "(March 12)" for a schedule's start or a yearly date (no year to pin it to)."""
    out, cursor = [], 0
    for m in mentions:
        out.append(text[cursor : m.end])
        if iso:
            named_day = f"{m.first_day:%A}".lower() in m.text.lower() and m.first_day == m.last_day
            described = m.first_day.isoformat() if named_day else m.describe()
            out.append(f" ({'from ' if m.first_day != m.last_day else ''}{described})")
        elif re.search(r"(?i:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)", m.text):
            pass  # "april 22": already the day, and no year to add
        elif m.first_day == m.last_day:
            out.append(f" ({_human(m.first_day)})")
        else:
            out.append(f" ({_human(m.first_day)} to {_human(m.last_day)})")
        cursor = m.end
    out.append(text[cursor:])
    return "".join(out)


def thing_subject(core: str) -> bool:
    """Whether the clause opens with a thing it is about ("the dentist appt is ...", "Pizza night
    is ..."), not a pronoun, a verb or a date fragment."""
    words = re.findall(r"[\w'’-]+", core.lower())
    if len(words) < 3 or not _VERB.search(core):
        return False
    first = words[0].replace("’", "'")
    if first in _VERB_FIRST or first.endswith("ed") or (len(first) == 1 and first not in "ai"):
        return False  # a verb, or a letter standing for a word the clause does not say ("n test")
    return first not in _OPENERS and first not in PRONOUNS and first not in OPAQUE


def dated(run: Run, clause: Clause) -> bool:
    """Propose the clause's dated fact or schedule. True when the clause names a time at all."""
    core = clause.core
    mentions = find_dates(core, clause.today)
    recurring = is_recurring(core)
    if (week := week_span(core, clause.today)) is not None:
        # One stretch of days, not "next week" and each weekday apart ("... monday to friday").
        mentions = [
            m for m in mentions if m.text.lower() != "next week" and not (m.start < week.end and week.start < m.end)
        ]
        mentions = sorted([*mentions, week], key=lambda m: m.start)
    if not mentions and not recurring:
        return False
    if _LIST.match(core) or _UNCHANGED.search(core) or _WEEKDAY_HABIT.search(core):
        return True
    if recurring and _WISH.match(core):
        return True
    if any(m.past for m in mentions):
        return True  # history ("last Friday was pizza night"), not a plan with an end
    if any(_past_today(core, m) for m in mentions):
        return True
    if any(_DEFINITE_DAY.search(core[: m.start]) for m in mentions) or _ONE.search(core):
        return True  # "on the friday", "the next one is the 25th": a day or a thing named before
    if _OPAQUE_OBJECT.search(core):
        return True
    who = _who(run, clause)
    if who is None:
        return True
    subject, text, others = who
    if subject is None and (not thing_subject(core) or _reason_for_rule(clause) or _SUBJECT_ONLY.match(core)):
        return True
    if _consequence_of_schedule(clause):
        return True
    speaker = clause.turn.member_id or ""
    text, first_person = name_first_person(text, run.people.speaker_name(speaker))
    if subject is None and not first_person and not others and _ACTIVITY.match(core):
        owner = _owner(run, clause)
        if owner is None:
            return True  # "the retest is booked" after naming two people: whose is not said
        if owner.kind != "household":
            subject, text = owner, f"{owner.display}'s {_THE.sub('', text)}"
    spans = [m for m in mentions if m.first_day != m.last_day and not _starts(core, m)]
    money = _MONEY.search(core) and any(_day_of_month_only(m) for m in mentions)
    if money:
        if not recurring:
            return True  # "my salary comes in on the 25th": which month's 25th? Said monthly, it is not one day
        text = _monthly(text)
        _schedule(run, clause, subject, text, others)
        return True
    if recurring and not spans:
        if any(_day_of_month_only(m) for m in mentions):
            text = _monthly(text)  # "I get paid on the 28th every month"
        _schedule(run, clause, subject, text, others)
        return True
    if _BIRTHDAY.search(core) and _BIRTHDAY_IS.search(core) and len(mentions) == 1:
        _yearly(run, clause, subject, text, mentions[0], others)
        return True
    if len(mentions) == 1 and _STARTS.search(core[: mentions[0].start]) and _plural_thing(core[: mentions[0].start]):
        _schedule(run, clause, subject, text, others)  # "guitar classes start on the 15th": from then on
        return True
    if _begins_only(core, mentions):
        return True  # "new kindergarten year starts today": when it begins, not how long it lasts
    when = _the_day(core, mentions)
    if when is None or _month_said_before(run, clause, when):
        return True
    _occasion(run, clause, subject, text, when, others)
    return True


_MONTH_NAME = re.compile(
    r"\b(?:jan(?:uary)?|feb(?:ruary)?|march|apr(?:il)?|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|"
    r"nov(?:ember)?|dec(?:ember)?)\b",
    re.I,
)


#: Something one person has, named with no owner ("training is mon wed fri", "the retest is
#: booked for the 25th", "finals are starting"): whose it is comes from the turn.
_OWNED = (
    "training",
    "practice",
    "lessons?",
    "class(?:es)?",
    "club",
    "tuition",
    "re-?test",
    "test",
    "exams?",
    "finals",
    "check-?up",
    r"health\s+check",
    "recital",
    "debate",
)
_ACTIVITY = re.compile(
    rf"^(?:the\s+)?(?:[\w'’-]+\s+){{0,2}}?(?:{'|'.join(_OWNED)})"
    r"(?=\s+(?:is|are|will|starts?|starting|begins?|finish\w*|ends?|runs?)\b|['’]s\b)",
    re.I,
)
#: A school subject and a day ("maths is on the 25th"): what happens then (an exam, a class) is
#: said elsewhere.
_SCHOOL_SUBJECTS = "maths? science english physics chemistry biology history geography".split()  # noqa: SIM905
_SUBJECT_ONLY = re.compile(rf"^(?:the\s+)?(?:{'|'.join(_SCHOOL_SUBJECTS)})(?:\s+(?:is|are)|['’]s)\s", re.I)
_THE = re.compile(r"^the\s+", re.I)
#: A heading that says whom the rest is for ("one for me:", "one for Kai:").
_FOR_WHOM = re.compile(r"^(?:one|another|this one|next one)\s+for\s+(?P<who>[\w'’-]+)\s*:", re.I)


def _owner(run: Run, clause: Clause) -> Subject | None:
    """Whose the clause's activity is: the one the heading names ("one for me:"), else the one
    person the turn named before it ("Ciarán didn't pass ... the retest is booked"), else a child
    speaking of her own ("finals are starting"); the household when nobody is named and an
    adult speaks (the thing stays the subject, as said); None when two people could be meant."""
    speaker = clause.turn.member_id or ""
    if heading := _FOR_WHOM.match(clause.quote):
        who = heading.group("who").lower()
        if who == "me":
            return run.people.speaker(speaker)
        if who == "us":
            return Subject("household", "The family", ())
        named = run.people.named(heading.group("who"), initial=False, lower_loose=True)
        return named if named is not None and named.sure else None
    before = run.people.named_before(clause.turn, clause.start)
    if len(before) == 1:
        return before[0] if before[0].sure else None
    if before:
        return None
    if run.people.is_child(speaker):
        return run.people.speaker(speaker)
    return Subject("household", "The family", ())


def _month_said_before(run: Run, clause: Clause, when: DateMention) -> bool:
    """ "the 11th" after the family named another month in this conversation ("Albufeira, 11th
    to 18th of July"): which month's 11th is theirs to say, not the calendar's to guess. Unless
    the reply to the turn read it back as the calendar does, month and all, and the family let
    that stand ("maddie has the dentist the 24th", after "first practice is april 11", answered
    "dentist on Tuesday, March 24"): the month is then the family's, not a guess."""
    if _MONTH_NAME.search(when.text) or not re.search(r"\d", when.text):
        return False
    for turn in run.transcript.turns:
        if turn.n > clause.turn.n:
            break
        if turn.role.value != "user":
            continue
        text = turn.text if turn.n < clause.turn.n else turn.text[: clause.start]
        for m in find_dates(text, clause.today):
            if _MONTH_NAME.search(m.text) and m.first_day.month != when.first_day.month:
                return not _read_back(run, clause, when)
    return False


#: A family turn that opens by putting the reply right ("no, the 24th of april", "actually ...").
_PUTS_RIGHT = re.compile(r"^\W*(?:no|nope|nah|not|actually|wait|sorry|i meant|i mean|wrong)\b", re.I)


def _read_back(run: Run, clause: Clause, when: DateMention) -> bool:
    """Whether the assistant's reply right after the clause's turn names the same day (or the same
    range) with its month, and the family's next turn does not open by putting it right. The reply's
    words are never the claim; they only show which month the family let stand."""
    turns = run.transcript.turns
    index = next((i for i, t in enumerate(turns) if t.n == clause.turn.n), len(turns))
    reply = turns[index + 1] if index + 1 < len(turns) else None
    if reply is None or reply.role.value != "assistant":
        return False
    said = [m for m in find_dates(reply.text, clause.today) if _MONTH_NAME.search(m.text)]
    if not any(m.first_day == when.first_day and m.last_day == when.last_day for m in said):
        return False
    answer = next((t for t in turns[index + 2 :] if t.role.value == "user"), None)
    return answer is None or not _PUTS_RIGHT.search(answer.text)


def _monthly(text: str) -> str:
    """ "the 28th every month" / "the 28th" in a monthly schedule -> "the 28th of every month", the
    form a reader (and the validator) takes for a day of every month, not one date."""
    text = re.sub(
        r"\b(the\s+\d{1,2}(?:st|nd|rd|th))(?:\s+(?:every|each)\s+month|\s+monthly)\b",
        r"\1 of every month",
        text,
        flags=re.I,
    )
    return re.sub(r"\b(the\s+\d{1,2}(?:st|nd|rd|th))\b(?!\s+of\b)", r"\1 of every month", text, flags=re.I)


def _day_of_month_only(mention: DateMention) -> bool:
    return bool(re.fullmatch(r"(?i:(?:on\s+)?the\s+\d{1,2}(?:st|nd|rd|th))", mention.text))


def _plural_thing(text: str) -> bool:
    """ "guitar classes start", "swim lessons begin", "practice starts": something that goes on."""
    return bool(
        re.search(
            r"\b(?:\w+s|practice|training|term|school|season|club|kindergarten|kita|nursery)\s+(?:will\s+)?"
            r"(?:starts?|starting|begins?|beginning|kicks? off)\b",
            text,
            re.I,
        )
    )


#: What may come before a clause's "I" or "we": the week it is about, or the occasion it is for.
_LEAD = re.compile(
    r"^(?:(?:this|next)\s+week|for\s+(?!(?:now|today|tonight|once|a\s|the\s+(?:moment|time)))[\w'’-]+)\s*,?\s+"
    r"(?=(?:i|we)(?:['’]|\s))",
    re.I,
)


def _who(run: Run, clause: Clause) -> tuple[Subject | None, str, list[Subject]] | None:
    """The clause's subject, its words with every person named ("his echo" -> "Stan's echo",
    "with him" -> "with Sven"), and the other people it names; None when a pronoun points
    nowhere certain."""
    core = clause.core
    subject: Subject | None = None
    lead = re.match(r"(?P<date>[^,]{3,40}?),?\s+(?=[^\W\d_])", core)
    if lead and (find_dates(lead.group("date"), clause.today) or is_recurring(lead.group("date"))):
        # "Saturday we're taking dad to the cemetery", "Tuesdays and thursdays I play pinochle".
        parsed = run.people.subject(core[lead.end() :], clause.turn, clause.start + lead.end())
        if parsed is not None:
            subject = parsed[0]
    if subject is None:
        parsed = run.people.subject(core, clause.turn, clause.start)
        if parsed is not None:
            subject = parsed[0]
    if subject is None and (lead := _LEAD.match(core)):
        # "this week i'm on nights", "for eid we're going to khadija's": the subject after the lead.
        parsed = run.people.subject(core[lead.end() :], clause.turn, clause.start + lead.end())
        if parsed is not None and parsed[0].kind in ("speaker", "member", "household"):
            subject = parsed[0]
            if lead.group(0).lower().startswith(("this", "next")):
                # "this week i'm on nights" is said "Linh is on nights ... this week": no summary
                # opens with "This".
                week = lead.group(0).strip(" ,")
                core = f"{core[lead.end() :]} {week}"
    if subject is None:
        # In a clause about something the extractor cannot name ("hoa's moving into her own
        # flat"), a "her" is that something's: not formed.
        if re.search(r"\b(?:he|she|him|her|his|hers|they|them|their)\b", core, re.I):
            return None
        return None, core, []
    named = (
        None
        if _aside_with_its_own_object(run, clause, subject)
        else run.people.name_pronouns(core, clause.turn, clause.start, subject)
    )
    if named is None:
        # "i have nachhilfe every wednesday at 4 with frau keller, she's nice": the claim without
        # the aside whose pronoun points nowhere certain.
        main = re.split(r",\s+", core, maxsplit=1)[0]
        if main == core or len(main.split()) < 3:
            return None
        if not (find_dates(main, clause.today) or is_recurring(main)):
            return None  # "Blessing is our nanny, she comes on weekdays": the time was in the aside
        named = run.people.name_pronouns(main, clause.turn, clause.start, subject)
        if named is None:
            return None
    text, others = named
    return subject, text, [o for o in others if o.key != subject.key]


def _aside_with_its_own_object(run: Run, clause: Clause, subject: Subject) -> bool:
    """Whether the words after the clause's first comma are a statement of their own about someone
    else that takes a him or her ("maddie has the dentist the 24th at 3:30, I'll take her after
    school", "nadia lands may 8, karim's picking her up"): that object is the first part's subject,
    which the rule for objects ("luis takes her": never the clause's own subject) cannot tell, so
    the claim is the first part alone."""
    main, comma, aside = clause.core.partition(", ")
    if not comma or not re.search(r"\b(?:him|her)\b(?!\s+(?:own\s+)?[\w'’-]+\s+(?:is|are)\b)", aside, re.I):
        return False
    at = clause.start + len(main) + len(comma)
    theirs = run.people.subject(aside, clause.turn, at)
    return theirs is not None and theirs[0].key != subject.key


def _members_in(run: Run, text: str, subject: Subject | None, others: list[Subject]) -> list[str]:
    found = [s.applies_to[0] for s in run.people.mentions(text, None) if s.applies_to and s.kind == "member"]
    found += [s.applies_to[0] for s in others if s.applies_to]
    if subject is not None and subject.applies_to:
        found.insert(0, subject.applies_to[0])
    return list(dict.fromkeys(found))


def _hints(subject: Subject | None, others: list[Subject]) -> list[EntityHint]:
    hints = [s.hint for s in [subject, *others] if s is not None and s.hint is not None]
    return list({h.name: h for h in hints}.values())


def _reason_for_rule(clause: Clause) -> bool:
    """Whether the clause, about no one, is the reason for the rule said next about the same day
    ("sunday mornings are church, so never plan anything before 1 on sundays"): the rule holds it."""
    at = clause.turn.text.find(clause.quote, clause.start)
    after = clause.turn.text[at + len(clause.quote) :] if at >= 0 else ""
    rule = _REASON_FOR_RULE.search(after)
    if rule is None:
        return False
    rest = re.split(r"[.!?]", after[rule.end() :], maxsplit=1)[0]
    days = {d.lower()[:3] for d in re.findall(rf"\b{_DAY}", clause.core, re.I)}
    return bool(days) and bool(days & {d.lower()[:3] for d in re.findall(rf"\b{_DAY}", rest, re.I)})


#: Being away or busy, said of a day ("Thursday evenings I'm out").
_AWAY = re.compile(r"\b(?:out|busy|away|not\s+(?:around|free|home|available|in)|unavailable|tied\s+up)\b", re.I)


def _consequence_of_schedule(clause: Clause) -> bool:
    """Whether the clause, after "so", only says someone is away on the days of the schedule said
    just before ("choir practice is thursdays 7pm, I'm in the choir, so Thursday evenings I'm
    out"): the schedule is the fact, and when it moves the consequence must not stay behind.
    What the free day is for is a fact of its own ("Fridays off, so Friday is my errand day")."""
    before = clause.turn.text[: clause.start]
    if not _AWAY.search(clause.core) or not re.search(r"\bso\s+$", before, re.I):
        return False
    earlier = last_sentence(before)
    days = {d.lower()[:3] for d in re.findall(rf"\b{_DAY}", clause.core, re.I)}
    said = {d.lower()[:3] for d in re.findall(rf"\b{_DAY}", earlier, re.I)}
    return bool(days) and days <= said and is_recurring(earlier)


def _begins_only(core: str, mentions: list[DateMention]) -> bool:
    """Whether the clause's one day is when something lasting begins ("school starts tomorrow",
    "grandpa goes into hospital on friday"): a fact valid for that day alone would end too soon."""
    if len(mentions) != 1 or mentions[0].first_day != mentions[0].last_day:
        return False
    before = core[: mentions[0].start]
    return bool(_STARTS.search(before) or _BEGINS.search(before))


def _the_day(core: str, mentions: list[DateMention]) -> DateMention | None:
    """The one day (or range) the clause is about; None for "from the 10th" alone or two days."""
    ranges = [m for m in mentions if m.first_day != m.last_day]
    if len(ranges) == 1 and len(mentions) == 1:
        return ranges[0]
    if len(mentions) != 1:
        days = {(m.first_day, m.last_day) for m in mentions}
        return mentions[0] if len(days) == 1 else None
    when = mentions[0]
    if _FROM_ONLY.search(core[: when.start]):
        return None  # "she'll be in from the 10th": when it starts, not how long it lasts
    return when


def _occasion(
    run: Run, clause: Clause, subject: Subject | None, text: str, when: DateMention, others: list[Subject]
) -> None:
    core = clause.core
    # The date phrase in the (possibly renamed) text: the same words, found again.
    again = week_span(text, clause.today)
    if again is not None and (again.first_day, again.last_day) == (when.first_day, when.last_day):
        mentions = [again]  # "wed and thu" this week: the days, found again
    else:
        mentions = [m for m in find_dates(text, clause.today) if m.first_day == when.first_day and not m.past]
    stated = _annotate(text, mentions[:1], iso=True) if mentions else text
    phrase = core[when.start : when.end]
    about_match = re.match(rf"^(?P<x>.+?)\s+(?:is|are|will be|'s)\s+(?:on\s+)?{re.escape(phrase)}$", core, re.I)
    if about_match:
        about = about_match.group("x")
    else:
        about = short((core[: when.start] + core[when.end :]).strip(" ,"), 8) or core
    _propose_fact(
        run,
        clause,
        subject,
        others,
        about=_about(subject, about),
        summary=sentence_case(stated),
        body=f"{_said(run, clause)} ({when.describe()}.)",
        when_to_use=f"Plans for {when.describe()}",
        durability=Durability.PASSING,
        valid_until=when.valid_until.isoformat(),
    )


def _until_month(text: str, today: date) -> date | None:
    """The day after a schedule that runs "until June" ends: the first of the next month."""
    match = _UNTIL_MONTH.search(text)
    if match is None:
        return None
    month = MONTHS[fold_lookalikes(match.group("m"))[:3]]
    year = today.year if month >= today.month else today.year + 1
    return date(year + 1, 1, 1) if month == 12 else date(year, month + 1, 1)


def _schedule(run: Run, clause: Clause, subject: Subject | None, text: str, others: list[Subject]) -> None:
    """A repeating schedule: durable, no valid_until, its start (if any) written without a year;
    one that runs "until June" is valid until the first of July."""
    ends = _until_month(clause.core, clause.today)
    ahead = [
        m
        for m in find_dates(text, clause.today)
        if not m.past
        and (_starts(text, m) or _RELATIVE_WORD.match(m.text))
        and not re.match(r"\s+of\s+every\b", text[m.end :], re.I)
    ]
    stated = _annotate(text, ahead, iso=False)
    _propose_fact(
        run,
        clause,
        subject,
        others,
        about=_about(subject, short(re.sub(r"^(?:i|we)\s+", "", clause.core, flags=re.I), 8)),
        summary=sentence_case(stated),
        when_to_use=f"Planning around {short(clause.core, 8)}",
        durability=Durability.SEASONAL if ends else Durability.DURABLE,
        valid_until=ends.isoformat() if ends else None,
    )


def _starts(text: str, mention: DateMention) -> bool:
    """A date phrase in a schedule that says when it starts ("from next week", "starting April 11")."""
    return bool(
        re.search(r"\b(?:from|starting|starts|start|as of|beginning|begins)\s+(?:on\s+)?$", text[: mention.start], re.I)
    )


def _yearly(
    run: Run, clause: Clause, subject: Subject | None, text: str, when: DateMention, others: list[Subject]
) -> None:
    mentions = [m for m in find_dates(text, clause.today) if m.first_day == when.first_day]
    stated = _annotate(text, mentions[:1], iso=False)
    _propose_fact(
        run,
        clause,
        subject,
        others,
        about=f"{subject.display}'s birthday" if subject is not None else short(clause.core, 8),
        summary=sentence_case(stated),
        when_to_use=f"Around {_human(when.first_day)} every year",
        durability=Durability.DURABLE,
    )


def _said(run: Run, clause: Clause) -> str:
    return sentence_case(f"{run.people.speaker_name(clause.turn.member_id or '')} said: {clause.quote}")


def _about(subject: Subject | None, about: str) -> str:
    """What a dated fact is about, with whom it is about first unless it says so already."""
    if subject is not None and subject.kind not in ("household",) and subject.display.lower() not in about.lower():
        about = f"{subject.display}: {about}"
    return short(about, 10, 100)


def _propose_fact(run: Run, clause: Clause, subject: Subject | None, others: list[Subject], **fields: Any) -> None:
    """Propose a fact the clause ties to time, about ``subject`` and naming ``others``: stated
    in passing (user_implicit, 0.8), in the speaker's words unless ``fields`` give a body."""
    claim: dict[str, Any] = {
        "type": MemoryType.FACT,
        "body": _said(run, clause),
        "applies_to": _members_in(run, clause.core, subject, others),
        "about_member": subject.about_member if subject else None,
        "entities": _hints(subject, others),
        "authority": Authority.USER_IMPLICIT,
        "confidence": 0.8,
    }
    run.propose(clause, **{**claim, **fields})
