"""Does the cited conversation support the summary? (DESIGN invariant 2; issue 10 section 2.)

The seed's rule is that the quote appears in the cited turn; that says the
family said *something*. This check says the summary says no more than they
did. It reads the cited turns as a whole, the way a careful person checks a
note against a transcript, and refuses a summary that

- names a word of substance the turns do not hold (an invented detail, a
  wrong value: "peanuts" for "shellfish", "Dr. Shah", "strep"), after typos,
  abbreviations and a small family-talk lexicon are normalised ("veg" is
  vegetarian, "tmrw" tomorrow, "the rec" the recreation center, "half 4"
  4:30); generic words a paraphrase uses ("has", "appointment", "family")
  are free, quantifiers ("every", "always") are not;
- has a number, time or date the turns do not ("$6" for "5 bucks", "type 1"
  for "type 2", a date that is not what the turn's words mean on the day they
  were said);
- binds a person to words said of someone else ("noor's allergic to kiwi,
  omar's fine with it" does not make Omar allergic);
- flips the polarity ("doesn't drink" -> "enjoys a drink"), states as fact
  what was a question, a hypothetical ("we might get a dog"), a value the
  speaker took back ("friday, sorry, saturday"), a report of what someone
  else said ("dad said I can"), or a suggestion of the assistant the family
  did not take up;
- turns a one-off into a habit ("we had pizza on friday" -> "every Friday").

Words from other cited turns count where the quoted turn points at them (a
pronoun, "same place", "yes pls", "the earlier one"); an assistant's words
count only when the family's reply takes them up.

It is lexical and deterministic, so it runs in Lambda at no cost per call
(no model, no Titan request). Its two error rates are measured on
``eval/calibration/support.yaml`` (``evaluation/calibration.py``).
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date
from difflib import SequenceMatcher

from family_memory.domain.text import normalise_for_match
from family_memory.formation import (
    calendar_values,
    foreign_words,
    holidays,
    number_words,
    paraphrase,
    quantities,
    senses,
)
from family_memory.formation.dates import WEEKDAY_FORMS, find_dates, past_tense, weekday_number
from family_memory.formation.relations import ADULT_RELATIONS, CHILD_RELATIONS, KIN_WORDS, RELATION_WORDS
from family_memory.formation.text_similarity import STOPWORDS

# --- the lexicon: what family talk abbreviates, and words that mean the same ----------------

#: Typed forms and their full words (each expands to one or more words).
ABBREVIATIONS: dict[str, str] = {
    "appt": "appointment",
    "appts": "appointments",
    "apt": "appointment",
    "tmrw": "tomorrow",
    "tmr": "tomorrow",
    "tmrow": "tomorrow",
    "2moro": "tomorrow",
    "tonite": "tonight",
    "2nite": "tonight",
    "yday": "yesterday",
    "bday": "birthday",
    "b-day": "birthday",
    "pls": "please",
    "fav": "favourite",
    "fave": "favourite",
    "fav's": "favourite",
    "plz": "please",
    "w": "with",
    "w/": "with",
    "b/c": "because",
    "bc": "because",
    "cos": "because",
    "coz": "because",
    "cuz": "because",
    "thx": "thanks",
    "hw": "homework",
    "rn": "right now",
    "nyc": "new york city",
    "xmas": "christmas",
    "uni": "university",
    "sec": "secondary",
    "conf": "conference",
    "resv": "reservation",
    "incl": "including",
    "wknd": "weekend",
    "wknds": "weekends",
    "yr": "year",
    "yrs": "years",
    "wk": "week",
    "wks": "weeks",
    "hr": "hour",
    "hrs": "hours",
    "min": "minutes",
    "mins": "minutes",
    "doc": "doctor",
    "dr": "doctor",
    "ortho": "orthodontist",
    "vax": "vaccination",
    "meds": "medication",
    "med": "medication",
    "pe": "physical education",
    "gp": "doctor",
    **KIN_WORDS,  # "mum", "ma", "nani", "hubby" (relations.py)
    "kid": "child",
    "kids": "children",
    "wean": "child",  # Scots
    "weans": "children",
    "bairn": "child",
    "bairns": "children",
    "comp": "competition",  # "the robotics comp"
    "kiddo": "child",
    "kiddos": "children",
    "footy": "football",
    "veg": "vegetarian",
    "veggie": "vegetarian",
    "gf": "gluten free",
    "df": "dairy free",
    "pb": "peanut butter",
    "rec": "recreation center",
    "uk": "united kingdom",
    "us": "united states",
    "mon": "monday",
    "tue": "tuesday",
    "tues": "tuesday",
    "wed": "wednesday",
    "weds": "wednesday",
    "thu": "thursday",
    "thur": "thursday",
    "thurs": "thursday",
    "fri": "friday",
    "sat": "saturday",
    "sun": "sunday",
    "jan": "january",
    "feb": "february",
    "mar": "march",
    "apr": "april",
    "jun": "june",
    "jul": "july",
    "aug": "august",
    "sep": "september",
    "sept": "september",
    "oct": "october",
    "nov": "november",
    "dec": "december",
    "approx": "about",
    "asap": "soon",
    "hosp": "hospital",
    "bf": "boyfriend",
    "gf's": "girlfriend",
    "ppl": "people",
    "tho": "though",
    "thru": "through",
    "til": "until",
    "till": "until",
    "nite": "night",
    "nxt": "next",
    "b4": "before",
    "u": "you",
    "ur": "your",
    "r": "are",
    "ok": "okay",
    "k": "okay",
    "sth": "something",
    "hols": "holidays",
    "hol": "holiday",
    "vacay": "vacation",
    "brekkie": "breakfast",
    "lunchbox": "lunch",
    "telly": "television",
    "tv": "television",
    "mil": "mother-in-law",
    "fil": "father-in-law",
    "rd": "road",
    "ave": "avenue",
    "ln": "lane",
    "blvd": "boulevard",
    "fortnight": "two weeks",
    "fortnightly": "every two weeks",
    "carsick": "car sick",
    "seasick": "sea sick",
}

#: Words that say the same thing here (each group: any member supports any other).
SYNONYMS: tuple[frozenset[str], ...] = tuple(
    frozenset(group.split())
    for group in (
        "fever temperature",
        "loan mortgage",
        "pay repayment repayments payment payments",
        "nights night-shifts shift shifts",
        "favourite favorite fav fave",
        "dog puppy pup",
        "cat kitten",
        "child children kid kids son daughter",
        "doctor physician",
        "home house",
        "football soccer",
        "swimming swim",
        "allergic allergy",
        "vegetarian veggie",
        "okay ok fine",
        "sick ill unwell",
        "start begin",
        "finish end",
        "buy purchase get",
        "arrive land come",
        "leave depart",
        "stay visit",
        "mother mom mum",
        "father dad",
        "holiday vacation",
        "kindergarten preschool",
        "school class",
        "job work",
        "medication medicine meds tablets pills",
        "car drive",
        "practice training practise",
        "afternoon pm",
        "morning am",
        "money cash",
        "adopted got",
        "promoted promotion",
        "twice two",
        "takeout takeaway takeaways takeouts",
        "broke skint",
        "poorly sick ill unwell",
        "jab shot vaccination vaccine",
        "nappy diaper",
        "flat apartment",
        "biscuit cookie",
        "sweets candy",
        "rubbish trash garbage",
        "autumn fall",
        "maths math",
        "trousers pants",
        "holidays vacation",
        "mark grade",
        "er emergency",
    )
)

#: Generic words a faithful paraphrase may add: they name no new fact.
GENERIC = frozenset(
    """have has had take takes took go goes went attend attends attending get gets got make makes made do does
    need needs want wants like likes use uses keep keeps stay stays come comes came start starts started
    finish finishes run runs running hold holds include includes including allow allowed avoid eat eats
    drink drinks wear wears live lives work works working play plays learn learns sit sits able manage manages
    handle handles help helps look care pick picks drop drops bring brings pay pays cost costs plan plans
    planned planning join joins meet meets give gives gets getting set sets hold serve serves family
    household home people person parent parents adult adults appointment appointments session sessions
    lesson lessons class classes event events time times day days week weeks month months year years morning
    mornings afternoon afternoons evening evenings night nights weekend weekends weekday weekdays plan thing
    things place rule rules routine schedule activity activities trip trips meal meals food dinner lunch
    breakfast snack snacks member members one ones way part also now currently still regularly both together
    only just new same other own well good fine available early late around about approximately per
    including within during before after until since from at on in so because therefore thus due there here
    really very quite a an the house household's family's is are was were be been being will would should
    can could may must shall am called named name names medicine medication""".split()  # noqa: SIM905
)

#: Words that generalise or quantify: a summary may use them only if the turns do (or, for
#: "every", if the turns speak of a recurring time: "a fortnight", "on tuesdays", "per week").
QUANTIFIERS = frozenset(
    """every always never all each usually often daily weekly monthly nightly habit""".split()  # noqa: SIM905
)
_RECURRING = re.compile(
    r"\b(?:every|each|per|a (?:day|night|week|fortnight|month|year|term)|daily|nightly|weekly|fortnightly|"
    r"monthly|mondays|tuesdays|wednesdays|thursdays|fridays|saturdays|sundays|weekends|weekdays|mornings|nights|"
    r"evenings|always|usually|morning and night)\b",
    re.I,
)
#: A schedule's words: "every" may restate them ("monday wednesday friday 6 to 7:30", "in the morning").
_SCHEDULE_WORD = re.compile(
    r"\b(?:mon|tues?|weds?|thu|thurs?|fri|sat|sun)(?:day)?s?\b|\b(?:in the )?(?:morning|evening|night|afternoon)\b",
    re.I,
)
#: Values a wrong word in would harm: foods and allergens, conditions, medicines, parts of a car.
#: A summary may name one only if the turns do, whatever it drops.
#: What a diet or a condition means by definition: "vegan" says no meat, dairy, eggs or honey,
#: so a summary that spells it out says no more than the family did.
IMPLIED: dict[str, tuple[str, ...]] = {
    word: tuple(meaning.split())
    for words, meaning in (
        ("vegan", "meat dairy milk cheese butter eggs egg honey fish animal products"),
        ("vegetarian veggie veg", "meat fish chicken beef pork"),
        ("pescatarian", "meat"),
        ("coeliac celiac", "gluten wheat gluten-free"),
        ("halal", "pork alcohol gelatine gelatin"),
        ("kosher", "pork shellfish"),
        ("jain", "onion garlic root vegetables meat eggs"),
        ("lactose", "dairy milk"),
        ("pregnant expecting", "baby"),  # "mele's expecting" is a baby on the way
        ("insulin metformin diabetes diabetic", "blood sugar"),  # "sugar was ok today": his blood sugar
    )
    for word in words.split()
}
VALUES = frozenset(
    """peanut peanuts nut nuts almond almonds cashew cashews walnut walnuts hazelnut hazelnuts pistachio pecan
    shellfish shrimp prawn prawns crab lobster fish egg eggs milk dairy lactose cheese gluten wheat soy soya
    sesame kiwi strawberry strawberries banana bananas tomato tomatoes chocolate pork beef chicken lamb
    caffeine mustard celery lupin mango pineapple grapefruit asthma diabetes diabetic celiac coeliac
    epilepsy eczema adhd autism autistic dyslexia anxiety depression migraine migraines strep flu covid
    chickenpox measles hives arthritis dementia cancer pneumonia penicillin ibuprofen aspirin paracetamol
    amoxicillin insulin antibiotics brakes tyres tires engine battery clutch gearbox""".split()  # noqa: SIM905
)

#: Kinds of venue: where something happens is a value of the claim ("at a hotel" is not in
#: "mam's 80th is on the 3rd"), unless the turns name a place without its kind ("the thai place").
VENUES = frozenset(
    """hotel motel inn hostel restaurant cafe café pub bar diner bistro beach cinema theatre theater museum
    zoo aquarium gym pool arena hall venue campsite""".split()  # noqa: SIM905
)
_GENERIC_PLACE = re.compile(r"(?:place|spot|joint|venue)", re.I)


def _kind_of_a_named_place(word: str, summary: str, pool: Sequence[str]) -> bool:
    """Whether the venue ``word`` follows, in the summary, a name the turns hold: "Greenes
    restaurant" from "she loves greenes" names the kind of a place the family named."""
    # The name capitalised as written; the venue word in either case ("Greenes Restaurant").
    for m in re.finditer(rf"\b([A-Z][\w'’.-]*)\s+(?i:{re.escape(word)})\b", summary):
        name = next(iter(_tokens(m.group(1))), "")
        if name and _held(name, pool):
            return True
    return False


_NUMBER_WORDS = {**number_words.CARDINALS, **number_words.ORDINALS, **number_words.TIMES}
_TOKEN = re.compile(r"\d+(?:[:.,]\d+)*(?:st|nd|rd|th|k)?|[^\W\d_]+(?:['’-][^\W\d_]+)*", re.UNICODE)
#: Minutes said in words before "past" or "to" ("twenty past 10", "ten to 8", "half 4").
_CLOCK_MINUTES = {"five": 5, "ten": 10, "quarter": 15, "twenty": 20, "twenty-five": 25, "twenty five": 25, "half": 30}
_TIME_WORDS = re.compile(
    r"\b(?:(twenty-five|twenty five|quarter|half|twenty|ten|five) (past|after|to|till)|(\d{1,2}) (past|after)|half)"
    r" (\d{1,2})\b(?!:\d)|\b(\d{1,2})(?::(\d{2}))? ?(?:am|pm|a\.m\.|p\.m\.)",
    re.I,
)

# --- the shapes of a claim that is not a statement of fact --------------------------------

_HEDGE = re.compile(
    # "probably ever again" doubts how long, not whether: "can't sit on the floor, probably ever again".
    r"\b(?:might|maybe|perhaps|possibly|probably(?! (?:not )?(?:ever again|forever|for good|for life|never))|"
    r"thinking (?:about|of)|considering|consider|"
    r"(?:i|we|i'd|we'd) (?:would )?(?:love|like) to|(?:i|we)'d (?:love|like) to|would be nice|could maybe|"
    r"talked about|hoping|hope to|not sure|undecided|"
    r"haven't decided|if|unless|may not be able|we'll see|someday|one day|at some point|"
    # "agar uska visa aa gaya toh" (Hindi, Urdu), "kalau"/"jika" (Malay), "pensando en", "tal vez" (Spanish)
    r"agar|kalau|jika|pensando|quizas|quizás|tal vez|a lo mejor|"
    r"as long as|so long as|on (?:the )?condition(?: that)?|"
    r"provid(?:ed|ing)(?: that)?(?= (?:she|he|they|it|we|you|i|the|there|his|her|their|everyone)\b))\b",
    re.I,
)
#: The words that put a condition on a rule or a permission, never a maybe: "provided she has her
#: helmet", "as long as", "so long as", "on condition that", "only if".
_CONDITION = re.compile(r"^(?:as long as|so long as|on (?:the )?condition(?: that)?|provid(?:ed|ing)(?: that)?)$", re.I)
_SUMMARY_HEDGE = re.compile(
    r"\b(?:might|may|maybe|perhaps|considering|thinking|would like|hopes?|if|unless|plans? to|wants? to|"
    r"not (?:yet )?decided|undecided|possibly|could|"
    # A belief reported as a belief keeps the possibility: "the GP suspects it causes his aches".
    r"suspects?|suspected|thinks?|believes?|wonders?|probably|likely|not sure|unsure|possible)\b",
    re.I,
)
#: A turn that takes up what was said before: it opens with "yes", "ok", ... or a sentence of it
#: does after a word of thanks or a laugh ("good catch lol. ok yes kai's going on the trip").
_AFFIRM = re.compile(
    r"(?:^|[.!?]\s+)\W*(?:yes|yeah|yep|yup|sure|ok|okay|perfect|great|sounds good|lovely|definitely|absolutely|"
    r"omg yes|please|pls|do it|go ahead|let'?s|the (?:earlier|later|first|second|other) one|that one|"
    r"that works|works for me|deal|"
    # yes in other Englishes and languages: Scots, Hindi, Tagalog, Swahili, French, German, Spanish, Portuguese
    r"aye|haan|haa|ji haan|han ji|opo|oo|ndiyo|sawa|oui|ja|claro|vale|sim)\b",
    re.I,
)
_DECLINE = re.compile(
    r"\b(?:no|nah|nope|not sure|maybe|think about|we'll see|idea|sort it out|later|eh|rather|check with|"
    r"hmm|don't|dont|not|naw|nahi|nahin|hapana|nein|nao)\b",
    re.I,
)
_CORRECTION = re.compile(
    r"(?P<before>[^,;!?—–]{1,60}?)\s*[,.—–-]*\s*(?:sorry,? no|sorry|no wait|wait no|wait|i mean|oops i mean|oops|"
    r"ugh no|ah no|no no|no sorry|actually no|actually|scratch that|correction|or rather|"
    r"no(?=,? (?:the |on |at )?\d))\b[,.—–\s-]*"
    r"(?P<after>(?:[^,;!?.]|\.(?=\d)|(?<=mr|ms|dr|st)\.|(?<=mrs)\.){1,60})",
    re.I,
)
_EPISODE = re.compile(
    r"\b(?:today|tonight|this morning|this afternoon|this evening|last night|yesterday|this week|"
    r"this weekend|for once|again|last \w+|on (?:mon|tues|wednes|thurs|fri|satur|sun)day)\b",
    re.I,
)
_PAST_VERB = re.compile(
    r"\b(?:had|was|were|wasn't|weren't|been|went|did|didn't|made|loved|liked|hated|skipped|ate|saw|came|took|left|"
    r"ran|won|lost|fell|broke|spent|wore|cried|threw|gave|turned|offered|reacted|happened|passed|failed|"
    r"(?<!'s )got)\b",
    re.I,
)


#: A rule the family draws from an occasion: "she reacted to feke at a wedding last year so no
#: octopus for her either" makes the rule, not the summary.
#: What comes round every year by nature, so one occasion of it is its date ("birthday was on the 2nd").
_ANNUAL = re.compile(r"\b(?:birthday|anniversary|name day|nameday)\b", re.I)
_RULE_FROM_IT = re.compile(
    r"\b(?:so|which is why|that's why|that’s why)\s+(?:no|never|don't|dont|do not|always|avoid|keep)\b", re.I
)


@dataclass(frozen=True)
class SpokenTurn:
    """A cited turn as the check reads it: who spoke (a member's names for a user turn) and the words."""

    role: str  # user | assistant | tool
    text: str
    writer_names: tuple[str, ...] = ()
    quoted: bool = False  # a quote of the candidate is in this turn


@dataclass(frozen=True)
class Claim:
    summary: str
    quotes: tuple[str, ...]
    #: Names of the people the claim concerns (applies_to, about_member), as given.
    names: tuple[str, ...] = ()
    #: Every name the family's members and entities answer to (to find people in the turns).
    known_names: tuple[str, ...] = ()
    statement: bool = True
    #: (another name, the name it is for): a member's ``address_as`` ("Vicky" for Vikram), so a
    #: turn that uses it speaks of that person.
    aliases: tuple[tuple[str, str], ...] = ()


@dataclass
class Support:
    problems: list[str] = field(default_factory=list)

    @property
    def supported(self) -> bool:
        return not self.problems


# --- words ------------------------------------------------------------------------------


def _stem(word: str) -> str:
    for suffix in ("ings", "ing", "ies", "ied", "ed", "es", "s", "ly"):
        # "owing", "doing", "using": a two-letter base before "ing" only ("fees" is not "feed").
        if len(word) - len(suffix) >= (2 if suffix == "ing" else 3) and word.endswith(suffix):
            base = word[: -len(suffix)]
            return base + "y" if suffix in ("ies", "ied") else base
    return word


def _tokens(text: str) -> list[str]:
    """Lower-case tokens with abbreviations expanded ("appt" -> "appointment", "tmrw" -> "tomorrow")."""
    out: list[str] = []
    for raw in _TOKEN.findall(normalise_for_match(text)):
        word = raw.replace("’", "'")
        if word.endswith("'s"):
            word = word[:-2]
        expansion = ABBREVIATIONS.get(word)
        out.extend(expansion.split() if expansion else [word])
    return out


def _content(tokens: Iterable[str]) -> list[str]:
    return [t for t in tokens if t not in STOPWORDS and not t.isdigit() and len(t) > 1]


def _alike(a: str, b: str) -> bool:
    """One word, spelled or inflected two ways (typos: "alergic" / "allergic"). Days and months
    are compared exactly: "thursdays" is not a typo of "tuesdays"."""
    if a == b:
        return True
    sa, sb = _stem(a), _stem(b)
    if sa == sb or sa + "e" == sb or sb + "e" == sa:  # "taking" / "take"
        return True
    if len(sa) > 3 and sa[-1] == sa[-2] and sa[:-1] == sb:  # "running" / "run"
        return True
    if len(sb) > 3 and sb[-1] == sb[-2] and sb[:-1] == sa:
        return True
    if sa in _CALENDAR or sb in _CALENDAR or a.rstrip("s") in _CALENDAR or b.rstrip("s") in _CALENDAR:
        return paraphrase.typo(a, b)  # "thrusdays", "febuary"; never another day or month
    if min(len(a), len(b)) >= 5 and a[:5] == b[:5]:
        return True
    if min(len(a), len(b)) >= 4 and SequenceMatcher(None, a, b).ratio() >= 0.8:
        return True
    if paraphrase.typo(a, b):
        return True
    return any((a in group and b in group) or (sa in group and sb in group) for group in SYNONYMS)


_CALENDAR = frozenset(
    """monday tuesday wednesday thursday friday saturday sunday january february march april may june july
    august september october november december christmas easter""".split()  # noqa: SIM905
)


def _held(word: str, pool: Sequence[str]) -> bool:
    """``word`` or a form of it is in ``pool`` (or begins or ends a compound there: "car" in "carsick")."""
    value = _NUMBER_WORDS.get(word)
    return any(
        _alike(word, other)
        or (len(word) >= 3 and len(other) >= 6 and (other.startswith(word) or other.endswith(word)))
        or (value is not None and other[:1].isdigit() and re.sub(r"\D", "", other) == str(value))
        for other in pool
    )


_SPOKEN_HOUR = re.compile(
    r"\b((?:twenty-five|twenty five|quarter|half|twenty|ten|five) (?:past|after|to|till)|half)"
    r" (one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\b"
)
_GRAND = re.compile(r"\b(\d+(?:\.\d+)?) ?(?:grand|thousand)\b")


#: "an hour": one hour, said without a number (read in the turns only: "twice a day" is no 1).
_AN_HOUR = re.compile(r"\ban hour\b", re.I)
#: "the evening one", "which one": "one" standing for a thing, not a number (read in a summary).
_PRONOUN_ONE = re.compile(
    r"\b(?:the|this|that|which|another|other)(?: [^\W\d_]+)? one\b(?! (?:hour|day|week|month|year|minute|night)s?\b)",
    re.I,
)
#: Irregular forms of the generic verbs ("was given a gold star" for "got a gold star").
GENERIC_FORMS = frozenset({"given", "taken", "gone", "done", "kept", "brought", "paid", "held", "met"})
#: Words that join a summary's clauses ("Bran can't have chicken, while Muffin will eat anything").
CONNECTIVES = frozenset({"while", "whereas", "whilst"})


#: "once" as a conjunction ("once his chores are done"), not a count.
_ONCE_CONJUNCTION = r" (?:he|she|they|it|we|you|i|the|his|her|their|my|our|everyone|that|this)\b"


def _numbers(text: str) -> set[float]:
    """Numbers and times a text states, normalised: "quarter to 8" is 7.75, "half 4" and "half
    four" 4.5, "5:30" 5.5, "9 grand" 9000, "1.2 mil" 1,200,000; "once" before a clause ("once
    his chores are done") is no number."""
    found: set[float] = set()
    lowered = normalise_for_match(text)
    # "half four", "quarter to eight": the hour as a digit; "9 grand": 9000.
    lowered = _SPOKEN_HOUR.sub(lambda m: f"{m.group(1)} {_NUMBER_WORDS[m.group(2)]}", lowered)
    for match in _GRAND.finditer(lowered):
        with contextlib.suppress(ValueError):
            found.add(float(match.group(1)) * 1000)
    for match in _MILLIONS.finditer(lowered):
        found.add(float(match.group(1)) * 1_000_000)  # "1.2m per term" (the bare 1.2 stays too)
    for match in _TIME_WORDS.finditer(lowered):
        if match.group(5):
            hour = int(match.group(5))
            past = _CLOCK_MINUTES.get(match.group(1) or "", 0) or int(match.group(3) or 30)
            before = (match.group(2) or "") in ("to", "till")
            found.add(hour - past / 60 if before else hour + past / 60)
    for token in _tokens(lowered):
        if token[0].isdigit():
            core = re.sub(r"(st|nd|rd|th)$", "", token)
            with contextlib.suppress(ValueError):
                if core.endswith("k"):
                    found.add(float(core[:-1].replace(",", "")) * 1000)
                elif ":" in core:
                    hours, _, minutes = core.partition(":")
                    found.add(int(hours) + int(minutes[:2]) / 60)
                else:
                    found.add(float(core.replace(",", "")))
        elif token in _NUMBER_WORDS:
            found.add(float(_NUMBER_WORDS[token]))
    conjunction_only = not re.search(r"\bonce\b(?!" + _ONCE_CONJUNCTION + ")", lowered)
    if "once" in _tokens(lowered) and conjunction_only and not re.search(r"\b(?:1|one|first)\b", lowered):
        found.discard(1.0)
    # A time written with a dot, the British way: "4.15" and "6.40am" are also 4:15 and 6:40 (the
    # decimal stays too: "2.5 kg"); not a price ("£4.15").
    for match in _DOT_TIME.finditer(lowered):
        found.add(int(match.group(1)) + int(match.group(2)) / 60)
    # The continental way: "às 15h30", "16h", "18h00".
    for match in _H_TIME.finditer(lowered):
        found.add(int(match.group(1)) + int(match.group(2) or 0) / 60)
    for match in _SPACED_TIME.finditer(lowered):
        found.add(int(match.group(1)) + int(match.group(2)) / 60)
    for match in _MILITARY_TIME.finditer(lowered):
        hh, mm = (match.group(1), match.group(2)) if match.group(1) else (match.group(3), match.group(4))
        found.add(int(hh) + int(mm) / 60)
    found |= {float(_MONEY_WORDS[w]) for w in _tokens(lowered) if w in _MONEY_WORDS}
    for match in _HUNDREDS_IN_WORDS.finditer(lowered):
        if match.group(1) in _NUMBER_WORDS:
            found.add(float(_NUMBER_WORDS[match.group(1)]) * (100 if match.group(2) == "hundred" else 1000))
    # Thousands said once stay thousands in the same sentence: "12k total, we have about 9 saved".
    for sentence in re.split(r"(?<=[.!?])\s+|\n+", lowered):
        if _THOUSANDS.search(sentence):
            found |= {n * 1000 for n in _numbers_plain(sentence) if 0 < n < 1000}
    return found


#: A sum of money by the period: "£450 a month", "$3,100 a month", "950,000 won a month".
_AMOUNT_A_PERIOD = re.compile(
    r"(?:[£$€₦¥₩]\s?\d[\d,.]*\s?[km]?|\b\d[\d,.]*\s?[km]?\s?(?:quid|bucks|dollars|pounds|euros|won|yen|naira|rupees))"
    r"\s?(?:a|per|each|every)\s(?:week|month|year|term|fortnight)\b",
    re.I,
)
#: An hour written with an "h" ("15h30", "16h"), as in Portuguese, French and Spanish.
_H_TIME = re.compile(r"(?<![\w.,])([01]?\d|2[0-3])h([0-5]\d)?(?![\w])", re.I)
#: An hour and its minutes with a dot between ("at 4.15", "6.40am"), not after a currency sign.
_DOT_TIME = re.compile(
    r"(?<![£$€₦¥₩\d.,])([01]?\d|2[0-3])\.([0-5]\d)(?![\d%]|[.,]\d)(?!\s?(?:kg|km|mg|ml|g|l|m)\b)", re.I
)
#: A time said as two numbers ("swimming mondays 4 15"), or the 24-hour way without a mark
#: ("cca ends 1530", "at 0745", "1800 hrs"): an hour and its minutes, read beside the numbers.
_SPACED_TIME = re.compile(
    r"(?<![\d.,:£$€₦¥₩])\b(1[0-2]|0?[1-9]) ([0-5]\d)\b(?![-%.,:]?\d|-|\s?(?:%|kg|km|cm|mg|ml|g|l|m|lbs?|years?|yrs?|"
    r"yo|months?|weeks?|days?|mins?|minutes?|hours?|hrs?|people|kids|pounds|dollars|quid)\b)",
    re.I,
)
TIME_LEAD = r"at|@|by|from|till|til|until|to|ends?|starts?|finish(?:es)?|before|after|around|between|and"
_MILITARY_TIME = re.compile(
    rf"(?:\b(?:{TIME_LEAD})\s+)([01]\d|2[0-3])([0-5]\d)\b|\b([01]\d|2[0-3])([0-5]\d)\s?(?:hrs|hours|h)\b", re.I
)
#: Money in words: "a tenner", "a fiver"; "five thousand naira", "two hundred quid".
_MONEY_WORDS = {"tenner": 10, "fiver": 5}
_HUNDREDS_IN_WORDS = re.compile(r"\b([a-z]+(?:-[a-z]+)?) (hundred|thousand)\b")
#: A value carried over from what was said before: "same time", "usual time", "as before".
#: An age: "turns 3", "she'll be 3", "3 years old", "third birthday" (what the family said of a
#: person's age holds for the summary's "third birthday party" of the same person).
_AGE = re.compile(
    r"\b(?:turns?|turning|(?:will|'ll|is|'s) be|aged?)\s+(\w+)\b|\b(\w+) (?:years?|yrs?) old\b|\b(\w+) birthday\b", re.I
)
_SAME_AS_BEFORE = re.compile(r"\b(?:same time|usual time|same times|same hours?|at the usual)\b", re.I)
_THOUSANDS = re.compile(r"\d\s?k\b|\b(?:grand|thousand)\b", re.I)
#: Millions: "₦1.2m", "2.5 million" (also read as the bare number: "10m" may be metres).
_MILLIONS = re.compile(r"(?<![\w.,])(\d+(?:\.\d+)?)\s?(?:m|mn|mil|mill|million)\b", re.I)
#: The words of an amount's scale: the number check reads them ("1.2 million" for "1.2m").
SCALE_WORDS = frozenset({"thousand", "thousands", "million", "millions", "grand", "mil", "mill", "mn", "k"})
#: Currencies by what a family calls them: a sign, a code, a name or its slang ("bob" is shillings).
CURRENCIES: dict[str, str] = {
    word: currency
    for currency, words in (
        ("shilling", "ksh kes ush tsh shilling shillings bob sh"),
        ("pound", "£ gbp pound pounds quid"),
        ("dollar", "$ usd aud cad nzd dollar dollars bucks"),
        ("euro", "€ eur euro euros"),
        ("naira", "₦ ngn naira"),
        ("rand", "zar rand"),
        ("rupee", "₹ inr rupee rupees rs"),
        ("yen", "¥ jpy yen"),
        ("won", "₩ krw"),
        ("peso", "php mxn peso pesos"),
        ("cedi", "ghs cedi cedis"),
    )
    for word in words.split()
}
_CURRENCY_MARK = re.compile(
    r"[£$€₦₹¥₩]|\b(?:" + "|".join(sorted((w for w in CURRENCIES if w.isalpha()), key=len, reverse=True)) + r")\b",
    re.I,
)


def _currencies(text: str) -> set[str]:
    """The currencies ``text`` names ({"pound"} for "£1.5k" or "1,500 quid")."""
    return {CURRENCIES[m.group(0).lower()] for m in _CURRENCY_MARK.finditer(normalise_for_match(text))}


def _currency_of_an_amount(word: str, source_text: str) -> bool:
    """Whether ``word`` is the currency of an amount, which the turns state with no currency or
    with the same one ("KSh 22,000" or "22,000 shillings" for "22k bob"; not "$22,000"): the
    number check reads the amount itself."""
    if word not in CURRENCIES or not re.search(r"\d", source_text):
        return False
    said = _currencies(source_text)
    return not said or CURRENCIES[word] in said


def currency_problem(summary: str, source_text: str) -> str | None:
    """The summary gives an amount in a currency the turns do not, where they name one ("$22,000"
    for "22k bob")."""
    ours, said = _currencies(summary), _currencies(source_text)
    if ours and said and not ours & said and re.search(r"\d", summary):
        return f"the turns say {sorted(said)[0]}s, not {sorted(ours)[0]}s"
    return None


def _numbers_plain(text: str) -> set[float]:
    """The bare numbers of a text ("9", "2.6"), without units or times."""
    out = set()
    for m in re.finditer(r"(?<![\d:.,])(\d+(?:\.\d+)?)(?![\d:]|\.\d|\s?(?:k|m|mn|million|bn)\b)", text):
        with contextlib.suppress(ValueError):
            out.add(float(m.group(1)))
    return out


def _number_supported(value: float, pool: set[float]) -> bool:
    """A number the turns hold, also as an hour in 12- or 24-hour form ("7:45 pm" for "quarter to 8")."""
    return any(abs(value - other) < 1e-6 or abs(value - other) in (12.0,) for other in pool)


# --- the check ------------------------------------------------------------------------------


#: Words that carry no claim: fillers, interjections, pronoun contractions, time-of-speaking words.
FILLER = frozenset(
    """lol haha hah omg btw um uh er honestly basically literally pretty much really so ok okay yeah yep hi hey
    hello thanks thank please pls we're i'm you're they're she'd he'd we'd i'd it's that's there's here's
    i've we've they've you've i'll we'll she'll he'll they'll you'll let's today tonight yesterday tomorrow
    now anymore ever finally actually just also too though tho anyway anyways like um ugh ah oh wow yay
    bless big news fyi guess think know mean sure right well kinda sorta stuff things thing lot lots""".split()  # noqa: SIM905
)
_NEGATORS = re.compile(
    # Not the "or not" of a question: "can or not remind him" (Singlish), "whether or not".
    r"\b(?:(?<!\bor )not|no longer|no|never|nor|none|nothing|nobody|cannot|any ?more|stopped|quit|quits|quitting|"
    r"(?:give|gives|gave|given|giving) up|"
    r"outgrown|outgrew|refuses?|refused|hates?|hated|dislikes?|disliked|can't stand|cant stand|scared|afraid|"
    r"frightened|terrified|petrified|banned|forbidden|\w+n't|" + foreign_words.NEGATORS + r")\b",
    re.I,
)
_NT_WORDS = frozenset(
    """dont doesnt didnt cant wont isnt arent wasnt werent hasnt havent hadnt shouldnt couldnt wouldnt mustnt""".split()  # noqa: SIM905
)
_CLAUSE = re.compile(r"[,;:!?]+|\.(?!\d)|\s[—–-]\s|\b(?:but|while|whereas|so|because|though|although)\b", re.I)
_REPORTED = re.compile(
    r"\b(?:(?:said|says|say|told (?:me|us)|tells (?:me|us))(?: that)? (?:i|we|you|he|she|they|the kids)\b"
    r"(?:'re|'m| are| am| is)? ?(?:can|could|may|allowed|should|shouldn't|need|must|have to|get to)\b|"
    r"(?:said|says) (?:it's|its) (?:ok|okay|fine)|reckons|keeps? telling|always says|"
    r"told me|heard (?:that )?|according to|my friend (?:\w+ )?(?:said|says|told))",
    re.I,
)
#: "apparently" names no one: the family passes on what it was told ("first one for both comes
#: monday apparently") and a fact stands on it; a permission or a rule does not ("apparently we
#: can skip chores" is not the household's rule).
_APPARENTLY = re.compile(r"\bapparently\b", re.I)
_PERMISSION = re.compile(  # lower case: "May" is the month
    r"\b(?:can|can't|cannot|may|allowed|must|mustn't|should|shouldn't|has to|have to|rule|permission)\b"
)


def _clauses(text: str) -> list[str]:
    return [c.strip() for c in _CLAUSE.split(text) if c and c.strip()]


_OUT = re.compile(
    r"\b(?:are|is) out\b|\bout of the question\b|\boff (?:the table|limits)\b|\bno-go\b|"
    # A negated passive negates its subject too: "the dog park should not be suggested".
    r"\b(?:should|must|may|can|will|is|are|to) (?:not|never) (?:to )?be \w+(?:ed|en)\b|"
    r"\b(?:shouldn't|mustn't|can't|cannot|won't|isn't|aren't) be \w+(?:ed|en)\b",
    re.I,
)
#: Two negations that make a yes: "won't sleep without her night light", "never lets me forget".
#: Also a negation of a verb of lacking: "never misses training" attends it, "doesn't forget" remembers.
_DOUBLE = re.compile(
    r"\b(?:\w+n't|never)(?: \w+){1,2} without\b|\bnever lets? \w+ forget\b|"
    r"\b(?:\w+n't|never|not once)(?: \w+)? (?:miss|misses|missed|forget|forgets|forgot|skip|skips|skipped)\b",
    re.I,
)


def _negated(text: str) -> bool:
    """Whether ``text`` says something is not so ("doesn't nap anymore", "no meat", "hates
    olives"); a double negation says it is ("won't sleep without her night light")."""
    folded = normalise_for_match(text).replace("’", "'")
    if _DOUBLE.search(folded):
        return False
    if _NEGATORS.search(folded) or _OUT.search(folded):
        return True
    return any(w in _NT_WORDS for w in re.findall(r"[a-z]+", folded))


_CALENDAR_WORD = re.compile(
    r"\b(mon|tues?|weds?|thu|thur|thurs|fri|sat|sun|jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec|tmrw|tmr|tonite)\b\.?",
    re.I,
)
_NUMERIC_DATE = re.compile(r"\b(\d{1,2})/(\d{1,2})(?:/(\d{2,4}))?\b")


_MONTH_NAME = re.compile(r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b", re.I)


def _said_dates(text: str, day: date) -> tuple[set[date], int]:
    """Every day a turn's date words name, read as said on ``day`` (typed forms expanded, "next
    thurs"; "4/14" read both ways, month first and day first), and how many date phrases they
    are (a range is one)."""
    expanded = _CALENDAR_WORD.sub(lambda m: ABBREVIATIONS.get(m.group(1).lower(), m.group(1)), text)
    expanded = foreign_words.english_calendar(expanded)  # "dia 9 de outubro" -> "9 october"
    days: set[date] = set()
    # A named month in both tenses: "we got a flat april 4 to 11" is a plan though "got" is
    # past, and the check asks only whether the turn's words can mean the summary's day.
    ahead = find_dates(expanded, day, past=False, holidays=True)
    named = [m for m in find_dates(expanded, day, past=True, holidays=True) if _MONTH_NAME.search(m.text)]
    numeric = list(_NUMERIC_DATE.finditer(text))
    phrases = max(len(ahead), len(_BARE_NTH.findall(expanded))) + len(numeric)
    for mention in [*ahead, *named]:
        d = mention.first_day
        while d <= mention.last_day:
            days.add(d)
            d = date.fromordinal(d.toordinal() + 1)
    for m in numeric:
        a, b = int(m.group(1)), int(m.group(2))
        year = int(m.group(3)) if m.group(3) else day.year
        year = year + 2000 if year < 100 else year
        for month, number in ((a, b), (b, a)):
            try:
                found = date(year, month, number)
            except ValueError:
                continue
            if m.group(3) is None and found < day:
                try:
                    found = date(year + 1, month, number)
                except ValueError:
                    continue
            days.add(found)
    days |= _contextual_days(expanded, day)
    return days, phrases


#: The period of a rate or a frequency: "a week", "per month", "every fortnight", "weekly".
_PERIOD = re.compile(
    r"\b(?:a|an|per|every|each|/)\s*(day|night|week|wk|fortnight|month|mth|year|yr|term)\b"
    r"(?!\s+(?:ago|old|later|off|before|after|early|late|or two|and a half))|"
    r"\b(daily|nightly|weekly|fortnightly|monthly|yearly|annually)\b",
    re.I,
)
_PERIOD_OF = {
    "daily": "day",
    "night": "day",
    "nightly": "day",
    "annually": "year",
    "wk": "week",
    "mth": "month",
    "yr": "year",
}  # a night is a day


def _periods(text: str) -> set[str]:
    """The periods of the rates a text states ({"week"} for "£220 a week" or "weekly")."""
    out = set()
    for m in _PERIOD.finditer(text):
        word = (m.group(1) or m.group(2)).lower()
        out.add(_PERIOD_OF.get(word, word.removesuffix("ly")))
    return out


#: A day of the month said alone ("the 11th to the 18th", "didn't pass on the 9th"): its month
#: is the one the conversation is about, which the turn does not repeat.
_BARE_NTH = re.compile(
    r"\bthe (\d{1,2})(?:st|nd|rd|th)\b(?! (?:of )?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|next))",
    re.I,
)
#: A weekday the conversation has already fixed ("so on the friday I'm solo").
_THE_WEEKDAY = re.compile(r"\bthe (monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b(?!s)", re.I)


def _contextual_days(text: str, day: date) -> set[date]:
    """The days a bare "the 11th" or "the friday" can mean: that day of any month, or that
    weekday, within a year after the turn (four months before it in a past-tense sentence:
    "settlement went through on the 15th"). The check asks only whether the turn's words can
    mean the summary's day; the month came from the conversation. Said on October 20, "the
    play is on the 14th" still cannot mean October 14."""
    days: set[date] = set()
    for sentence in re.split(r"(?<=[.!?])\s+|\n+", text):
        numbers = {int(m.group(1)) for m in _BARE_NTH.finditer(sentence)}
        weekdays = {weekday_number(m.group(1)) for m in _THE_WEEKDAY.finditer(sentence)}
        if not numbers and not weekdays:
            continue
        past = past_tense(sentence)
        start, end = (day.toordinal() - 120, day.toordinal()) if past else (day.toordinal(), day.toordinal() + 366)
        for ordinal in range(start, end + 1):
            candidate = date.fromordinal(ordinal)
            if candidate.day in numbers or (candidate.weekday() in weekdays and abs(ordinal - day.toordinal()) <= 120):
                days.add(candidate)
    return days


_ANNOTATION = re.compile(r"\((?:[A-Za-z]+day )?\d{4}-\d{2}-\d{2}(?: to (?:[A-Za-z]+day )?\d{4}-\d{2}-\d{2})?\)")


def _absolute_dates(summary: str, said_on: date) -> tuple[str, list[set[date]]]:
    """The summary without its absolute date phrases (a resolved "(Friday 2026-11-27)" too),
    and the days each of them names."""
    mentions: list[set[date]] = []
    for annotation in _ANNOTATION.findall(summary):
        with contextlib.suppress(ValueError):
            ends = [date.fromisoformat(iso) for iso in re.findall(r"\d{4}-\d{2}-\d{2}", annotation)]
            if ends:
                mentions.append(_days(ends[0], ends[-1]))
    summary = _ANNOTATION.sub(" ", summary)
    cut = summary
    for m in sorted(find_dates(summary, said_on), key=lambda m: -m.start):
        if re.search(r"\d{4}|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec", m.text, re.I):
            days = _days(m.first_day, m.last_day)
            if not re.search(r"\d{4}", m.text) and len(days) == 1:
                # A day of the year without its year ("Isla's birthday is on November 2") names it
                # in the years either side too: "my birthday was on monday the 2nd" is this one.
                with contextlib.suppress(ValueError):
                    days |= {m.first_day.replace(year=m.first_day.year + n) for n in (-1, 1)}
            mentions.append(days)
            # "Tuesday, March 24, 2026": the weekday belongs to the date, which the check compares.
            head = re.sub(
                r"\b(?:mon|tues|wednes|thurs|fri|satur|sun)day,?\s*(?:the\s+)?$", "", cut[: m.start], flags=re.I
            )
            cut = head + " " + cut[m.end :]
    cut = re.sub(r"\b(?:19|20)\d{2}\b", " ", cut)
    return cut, mentions


def _days(first: date, last: date) -> set[date]:
    return {date.fromordinal(n) for n in range(first.toordinal(), max(first, last).toordinal() + 1)}


def _quote_sentences(text: str, quotes: Sequence[str]) -> list[tuple[str, int]]:
    """(sentence, where the quote starts in it) for each sentence of ``text`` a quote falls in.
    A line of ``text`` (a turn) ends a sentence."""
    lines = [normalise_for_match(line) for line in text.splitlines()]
    whole = " ".join(lines)  # a quote across a line break of one turn is read in the whole text
    out = []
    for quote in quotes:
        q = normalise_for_match(quote).strip(" .,!?")
        folded = next((line for line in lines if q and q[:60] in line), whole)
        at = folded.find(q[:60]) if q else -1
        if at < 0:
            continue
        starts = [0] + [m.end() for m in re.finditer(r"[.!?]+(?:\s+|$)|\n+", folded)]
        begin = max(b for b in starts if b <= at)
        ends = [m.end() for m in re.finditer(r"[.!?]+|\n|$", folded) if m.end() > at + len(q) - 1]
        end = min(ends) if ends else len(folded)
        sentence = folded[begin:end]
        if sentence.endswith("?") and _SELF_CORRECTION.match(folded[end:]):
            sentence = sentence[:-1] + "."  # "at the piscina do alvito? no sorry, ...": a slip, not a question
        out.append((sentence, at - begin))
    return out


#: What opens a speaker's correction of the sentence just said ("... do alvito? no sorry, the ...").
_SELF_CORRECTION = re.compile(r"\s*(?:no,? sorry|sorry|no wait|wait|i mean|actually|no no)\b", re.I)
#: A question tag after a statement: "e a dona graça é madrinha do tomás, sabia?", "he's 6, right?".
_TAG_QUESTION = re.compile(
    r",?\s*\b(?:sabia|sabe|ne|né|right|innit|yeah|eh|na|diba|hai na|you know|no|oder|verdad|n'est-ce pas)\s*\?+\s*$",
    re.I,
)


_SUBJECT_PRONOUNS = frozenset(["he", "she", "they", "it", "that", "this", "those", "these", "there"])


def _points_back(text: str) -> bool:
    """Whether ``text`` leans on an earlier turn: a clause opens with a pronoun ("she's allergic to
    kiwi too", "ugh that's the day"), or it says "same place", "that one", "there"."""
    for clause in _clauses(text):
        words = [w.split("'")[0] for w in _tokens(clause)[:3]]
        if any(w in _SUBJECT_PRONOUNS for w in words) or (words and words[0] in ("his", "her", "their")):
            return True
    return bool(re.search(r"\b(?:same|that one|the one|there|the (?:earlier|later|other) one)\b", text, re.I))


#: "same time", "same place as before": the family takes up a value stated before, whoever stated it.
_SAME = re.compile(r"\bsame (?:time|place|day|days|as before|as usual|as last)\b", re.I)


def _lenders(turns: Sequence[SpokenTurn], quoted: Sequence[SpokenTurn], statement: bool) -> list[SpokenTurn]:
    """The other cited turns whose words may support the summary."""
    primary = " ".join(t.text for t in quoted)
    first = min(n for n, t in enumerate(turns) if t in quoted)
    before = turns[first - 1] if first > 0 else None
    answers = before is not None and before.role == "assistant" and before.text.rstrip().endswith("?")
    points = _points_back(primary)
    takes_up = bool(_AFFIRM.search(primary)) and not _DECLINE.search(primary)
    lenders = []
    for turn in turns:
        if turn in quoted:
            continue
        if (
            (turn.role == "user" and (points or answers))
            or (turn.role == "tool" and (points or takes_up))
            or (turn.role == "assistant" and (takes_up or (answers and not _DECLINE.search(primary)) or not statement))
            or (turn.role == "assistant" and bool(_SAME.search(primary)))
        ):
            lenders.append(turn)
    return lenders


def _sentences_about(text: str, people: set[str]) -> list[str]:
    """The sentences of ``text`` that name one of ``people`` (all the words of a name)."""
    names = [set(_tokens(p)) for p in people if p]
    if not names or not text:
        return []
    return [s for s in re.split(r"(?<=[.!?])\s+|\n+", text) if any(name <= set(_tokens(s)) for name in names)]


def _ages_said(family_text: str, people: set[str]) -> list[str]:
    """The ages the family gave before of ``people`` ("Rosalie ... turns 3 in 2026")."""
    return [m.group(0) for s in _sentences_about(family_text, people) for m in _AGE.finditer(s)]


def _recalled(new: Sequence[str], family_text: str, people: set[str]) -> list[str]:
    """The words of ``new`` the family said before in a sentence naming one of ``people``
    (values aside: an allergen, a medicine, a condition is named by the cited turns or not at all)."""
    about = [_tokens(sentence) for sentence in _sentences_about(family_text, people)]
    return [
        w
        for w in new
        if w not in VALUES and w not in paraphrase.VALUE_WORDS and any(_held(w, words) for words in about)
    ]


def check_support(
    claim: Claim,
    turns: Sequence[SpokenTurn],
    said_on: date | None = None,
    *,
    context: Sequence[SpokenTurn] = (),
    session_text: str = "",
    family_text: str = "",
) -> Support:
    """Whether ``turns`` support ``claim.summary`` (``Support.problems`` says why not).
    ``context``: the few turns before the cited ones, whose words count when the quoted turn
    points back at them ("his training moves to tues and thurs"); ``session_text``: the whole
    conversation, where a person the summary names by name may have been named first;
    ``family_text``: what the family wrote before the cited turns (and their context), where
    the name of a place, a shop or a medicine the summary gives ("Westpac", "Boba Bay",
    "Ventolin") may have been said first. Not the turns next to the quote: a name from the
    neighbouring statement is how two claims get merged ("violin with Coach Ren" when Coach
    Ren teaches swimming)."""
    result = Support()
    problems = result.problems
    quoted = [t for t in turns if t.quoted] or list(turns[-1:])
    if not quoted:
        return result  # nothing cited to read (turns_exist / quote_in_turn say why)
    primary = " ".join(t.text for t in quoted)
    lenders = _lenders([*context, *turns], quoted, claim.statement)
    if not claim.statement:
        # An inference goes beyond the words by nature: it needs only to rest on some of them.
        pool = _tokens("\n".join(t.text for t in [*quoted, *lenders]))
        ours = [w for w in _content(_tokens(claim.summary)) if w not in GENERIC and w not in FILLER]
        if ours and not any(_held(w, pool) for w in ours):
            problems.append("the inference rests on none of the cited words")
        return result
    sources = [*quoted, *lenders]
    source_text = "\n".join(t.text for t in sources)
    writers = {n for t in turns for n in t.writer_names}
    pool = _tokens(source_text) + [w for n in writers for w in _tokens(n)]
    pool += [w for t in set(pool) for w in IMPLIED.get(t, ())]
    pool += paraphrase.lent_words(source_text)  # "skint" -> "money tight", "won't" -> "refuses"
    pool += calendar_values.implied_words(source_text, said_on)  # "every day but sunday" -> Monday..Saturday
    pool += foreign_words.english_words(source_text)  # "zöliakie" -> coeliac, "roz" -> every
    pool += holidays.english_words(source_text)  # "hogmanay" -> new year's eve, "nadolig" -> christmas
    phrased = set(paraphrase.lent_words(source_text))
    pool += [foreign_words.plain(w) for w in set(pool) if not w.isascii()]  # "(natação)" is read without accents
    for head, glossed in foreign_words.glosses(claim.summary):  # "shrimp (hipon)": the family's own word
        held = all(_held(w, pool) for w in glossed)
        if held and head in phrased:
            continue  # "packed lunch (piece)": the turns' phrasing says the head ("isla's piece")
        if gloss := foreign_words.gloss_problem(head, glossed, held):
            problems.append(gloss)
        elif held:
            pool.append(head)
    if _AMOUNT_A_PERIOD.search(source_text):
        # "groceries are about £450 a month": what something costs a period is what is spent on it.
        pool += ["spend", "spends", "spending", "cost", "costs"]

    # Each quoted turn ends its sentences: the next turn's words lead to no quote of this one.
    problems += _speech_problems(claim, "\n".join(t.text for t in quoted))
    problems += _polarity_problems(claim.summary, sources)
    if swapped_allergy := _allergy_swapped(claim.summary, "\n".join(t.text for t in sources)):
        problems.append(swapped_allergy)

    # Dates: an absolute date in the summary is one the turn's words name on the day they were said.
    day = said_on or date(2026, 6, 10)
    cut, summary_dates = _absolute_dates(claim.summary, day)
    if summary_dates and said_on is not None:
        # Only dates the turns' words resolve to can be checked; a form the resolver does not read
        # ("18 feb to 19 march") is not evidence against the summary, a different day is. Each
        # date of the summary must be one of them: "the 2nd till the 16th" is not "July 2 until July 26".
        said = [_said_dates(turn.text, day) for turn in sources]
        said_days = {d for days, _ in said for d in days}
        # Each date of the summary must be one of them when the turns name as many dates ("the 2nd
        # till the 16th" is not "July 2 until July 26"); a summary with more dates than the turns
        # name took the others from the conversation ("instead of this coming one"), and one must match.
        said_count = sum(phrases for _, phrases in said)
        matched = [bool(days & said_days) for days in summary_dates]
        if said_days and (not any(matched) or (said_count >= len(summary_dates) and not all(matched))):
            problems.append("the summary's date is not the date the turn's words mean")

    # Numbers and times (those of the absolute dates aside).
    said_numbers = _numbers(source_text) | paraphrase.rate_numbers(source_text)
    said_numbers |= {float(w) for w in foreign_words.english_words(source_text) if w.isdigit()}  # "uma": one
    if _AN_HOUR.search(source_text):
        said_numbers.add(1.0)  # "an hour on weekdays" is one hour
    if _SAME_AS_BEFORE.search(source_text):
        # "choir moved to wednesdays btw, same time": the time is the one the family gave before,
        # in what it said of the same thing ("choir practice is thursdays 7pm").
        carried = {w for w in _content(_tokens(cut)) if w not in GENERIC and not w[0].isdigit()}
        for sentence in re.split(r"(?<=[.!?])\s+|\n+", family_text):
            if any(_held(w, _tokens(sentence)) for w in carried):
                said_numbers |= _numbers(sentence)
    if _AGE.search(cut):
        said_numbers |= {n for age in _ages_said(family_text, set(claim.names)) for n in _numbers(age)}
    # "the evening one" in the summary stands for a thing (the turns' "one"s all count).
    for value in _numbers(_PRONOUN_ONE.sub(lambda m: m.group(0)[: -len("one")], cut)):
        if not _number_supported(value, said_numbers):
            problems.append(f"the turns do not say {value:g}")
            break

    # A rate's period: "£220 a fortnight" is not "£220 a week".
    ours_periods = _periods(cut)
    # "har mahine" is monthly; "roz" (every day) says how often, not the period of an amount.
    lent_periods = [w for w in foreign_words.english_words(source_text) if w in ("weekly", "monthly", "yearly")]
    said_periods = _periods(f"{source_text} {' '.join(lent_periods)}")
    if ours_periods and said_periods and not ours_periods & said_periods:
        problems.append(f"the turns say a {sorted(said_periods)[0]}, not a {sorted(ours_periods)[0]}")
    # A holiday: "till stephen's day" is not "until New Year's Day" (formation/holidays.py).
    if holiday := holidays.holiday_problem(cut, source_text, session_text):
        problems.append(holiday)
    # A quantity's unit: "in a cast for six weeks" is not "for six months" (formation/quantities.py).
    if unit := quantities.unit_problem(cut, source_text):
        problems.append(unit)

    # Words of substance: each new word of the summary must stand for a word of the turns it drops.
    names = set(claim.names) | set(claim.known_names) | writers
    name_words = {w for name in names for w in _tokens(name)}
    known_words = frozenset(w for name in claim.known_names for w in _tokens(name))
    summary_tokens = _tokens(cut)
    family_pool = _tokens(family_text)
    # A line of the conversation may give what the cited turn leaves out, never what it says
    # otherwise: "kojo's going to the book fair" keeps "book fair", so no "science museum trip".
    quoted_tokens = _tokens(primary)
    things = _things_left_out(" ".join(claim.quotes), summary_tokens, name_words)
    # The conversation's lines, each read once for every word the summary adds.
    lines = [(line, _tokens(line)) for line in session_text.splitlines() if line.strip()]
    lending = [] if things else lines
    new = [
        w
        for w in dict.fromkeys(_content(summary_tokens))
        if not w[0].isdigit()
        and (w not in GENERIC or w in QUANTIFIERS)
        and w not in FILLER
        and w not in {"am", "pm"}
        and w not in CONNECTIVES
        and w not in GENERIC_FORMS
        and not _held(w, pool)
        and not (w in name_words and _referred(w, quoted, lenders, session_text, known_words))
        and not (w in name_words and _completes_a_name(w, names, pool))
        and not (_capitalised(w, claim.summary) and w not in _CALENDAR and _held(w, family_pool))
        and not (w in PLACE_NOUNS and _names_a_held_place(w, claim.summary, pool))
        and not _said_of_the_same_thing(w, summary_tokens, lending, name_words, quoted_tokens)
        and not _framing(w, pool, source_text)
        and not (w in _NUMBER_WORDS and _number_supported(float(_NUMBER_WORDS[w]), said_numbers))
        and not (w in SCALE_WORDS or _currency_of_an_amount(w, source_text))
    ]
    proper = [w for w in new if _capitalised(w, claim.summary) and w not in name_words and w not in _CALENDAR]
    quantifiers = [
        w
        for w in dict.fromkeys(summary_tokens)
        if w in QUANTIFIERS
        and not _held(w, pool)
        and not (w in ("every", "each") and (_RECURRING.search(source_text) or _SCHEDULE_WORD.search(source_text)))
        and not (w == "each" and _MONTH_DAY_SAID.search(source_text) and _EACH_MONTH.search(claim.summary))
        and not (w in paraphrase.HABITUAL and paraphrase.recurring(source_text))
    ]
    session_tokens = _tokens(session_text) if any(w in paraphrase.HOLIDAYS for w in new) else []
    values = [
        w
        for w in new
        if w in VALUES
        # A holiday the conversation is about ("ok now easter. we're hosting") names the menu's day too.
        or (w in paraphrase.VALUE_WORDS and not (w in paraphrase.HOLIDAYS and _held(w, session_tokens)))
        or (
            w in VENUES
            and not _GENERIC_PLACE.search(source_text)
            and not _kind_of_a_named_place(w, claim.summary, [*pool, *family_pool])
        )
    ]
    said_by_family = " ".join(t.text for t in sources if t.role == "user")
    # A word a phrasing of the summary restates is said, not dropped; nor is a framing word.
    restated = paraphrase.restated(said_by_family, summary_tokens, _alike)
    dropped = [
        w
        for w in dict.fromkeys(_content(_tokens(said_by_family)))
        if not w[0].isdigit()
        and w not in GENERIC
        and w not in FILLER
        and w not in name_words
        and not _held(w, summary_tokens)
        and w not in restated
        and w not in paraphrase.FRAMING
    ]
    # A detail the family gave before of the same person ("kabir has a match tmrw at 8": his cricket
    # match, when "Kabir has cricket every Saturday" is on file) is no invention, so long as it
    # replaces no word of the cited turns (every word they drop is another new word's) and is no
    # value: "tree nuts" said now is never "peanuts" said of him before.
    recalled = _recalled(new, family_text, set(claim.names)) if new else []
    if recalled and len(new) - len(recalled) >= len(dropped):
        new = [w for w in new if w not in recalled]
        proper = [w for w in proper if w not in recalled]
    if proper or values:
        problems.append(f"the turns do not name {', '.join([*proper, *values][:4])}")
    elif quantifiers:
        problems.append(f"the turns do not say {', '.join(quantifiers)}")
    elif len(new) > len(dropped):
        problems.append(f"the turns do not say: {', '.join(new[:6])}")
    elif new and (sibling := _sibling_swapped(new, dropped, summary_tokens, said_by_family)):
        # One word for one word is paraphrase only if it means the same: "knee" for "hip" is not.
        problems.append(f"the turns say {sibling[0]}, not {sibling[1]}")
    opposite = paraphrase.opposed(_tokens(cut), pool, _only_negated(sources))
    if currency := currency_problem(cut, source_text):
        problems.append(currency)
    if opposite:
        problems.append(f"the turns say {opposite[0]}, not {opposite[1]}")
    swap = _swapped(things, summary_tokens, name_words, lines, primary)
    if swap:
        problems.append(swap)

    moved = _value_moved(cut, primary, name_words)  # the quoted turns: a lender may give another thing its day
    if moved:
        problems.append(moved)
    # A weekday, month, season or time of day, and a rate, the turns do not say (formation/calendar_values.py).
    problems += calendar_values.problems(
        claim.summary,
        "\n".join([source_text, *(t.text for t in turns if t not in sources)]),  # "the robotics one"
        said_on,
        names,
        lambda w: _said_of_the_same_thing(w, summary_tokens, lending, name_words, quoted_tokens),
    )
    bound = (
        _misbound(claim, quoted, claim.summary, lenders)
        or _roles_swapped(claim, quoted)
        or _other_gender(claim.summary, primary)
    )
    if bound:
        problems.append(bound)
    else:
        # Parallel values, a person singled out, a pronoun's referent, an invented rank or sex.
        from family_memory.formation.binding import binding_problems

        earlier = [*context, *turns[: turns.index(quoted[0])]] if quoted[0] in turns else list(context)
        problems += binding_problems(claim, quoted, earlier, cut, pool)
    # A dropped condition, an ended state, a swapped pair, an assistant's proposal (formation/conditions.py).
    from family_memory.formation.conditions import condition_problems

    spoken = [(t.role, t.text) for t in [*context, *turns]]
    problems += condition_problems(cut, primary, spoken, sorted(names), family_text)
    return result


#: Kin words name a person from someone's side ("Karim's sister" is the writer's aunt): who is
#: whose is the binding checks' business, not a word sense's.
_KIN = frozenset(_tokens(" ".join((*CHILD_RELATIONS, *ADULT_RELATIONS))))


def _sibling_swapped(
    new: Sequence[str], dropped: Sequence[str], summary: Sequence[str], said: str
) -> tuple[str, str] | None:
    """A word of the turns the summary swapped for a sibling in its place ("her hip op" -> "her
    knee operation"; senses.swapped). In its place: one of the two content words either side of
    the summary's word is one of those beside the turn's word in its sentence, so a summary of
    one sentence is not read against a word of another ("to school in a Bolt" is not "then the
    clinic at 10")."""
    ours = _content(summary)
    sentences = [_content(_tokens(part)) for part in re.split(r"[.!?;\n]+", said) if part.strip()]

    def beside(word: str, tokens: list[str]) -> list[str]:
        near = (-2, -1, 1, 2)
        return [
            tokens[i + d] for i, token in enumerate(tokens) if token == word for d in near if 0 <= i + d < len(tokens)
        ]

    others = [d for d in dropped if d not in _KIN and d not in QUANTIFIERS]
    for word in new:
        if word in _KIN or word in QUANTIFIERS:
            continue
        pair = senses.swapped([word], others, ours)
        if pair and any(
            _alike(a, b) for a in beside(word, ours) for tokens in sentences for b in beside(pair[0], tokens)
        ):
            return pair
    return None


#: An instruction, which makes the "if" before it a rule's condition (no comma needed).
_CONSEQUENCE = re.compile(r"\b(?:then|dont|don't|do not|never|always|make sure|please|pls)\b", re.I)
#: What makes an "if" a supposition whatever the summary says: a modal of maybes.
_SUPPOSING = re.compile(r"\b(?:would|wouldn't|'d|might|could|may|maybe)\b", re.I)


#: Day words, which say when and not what: "if it rains saturday" is not kept by "on Saturday".
_DAY_WORD = re.compile(
    r"(?:mon|tues|wednes|thurs|fri|satur|sun)days?|today|tomorrow|tonight|weekends?|morning|afternoon|evening|"
    r"next|week|month|year"
)


#: What makes the next word a thing: a determiner or a possessive ("the book fair", "ella's competition").
_DETERMINER = re.compile(r"^(?:the|a|an|my|his|her|their|our|your|this|that|these|those|[^\W\d_]+'s)$", re.I)


def _things_left_out(quoted: str, summary: Sequence[str], names: set[str]) -> list[str]:
    """The things the quoted words name (after a determiner or a possessive: "the book fair",
    "ella's competition") that the summary leaves out: then it may say something else, not more."""
    return [token for token in _things(quoted) if token not in names and not _held(token, summary)]


def _things(text: str) -> list[str]:
    """The words of the noun phrases a text opens with a determiner or a possessive (up to three
    words, to the first word of no substance): the things it names ("the school concert")."""
    words = normalise_for_match(text).replace("’", "'").split()
    out = []
    for n, before in enumerate(words):
        if not _DETERMINER.match(before):
            continue
        for word in words[n + 1 : n + 4]:
            token = next(iter(_tokens(word)), "")
            if (
                len(token) < 3
                or not token.isalpha()
                or token in STOPWORDS
                or token in FILLER
                or token in _NUMBER_WORDS
                or _DAY_WORD.fullmatch(token)
            ):
                break
            if token not in GENERIC:
                out.append(token)
            if re.search(r"[,.;:!?]$", word):
                break
    return out


#: A line of the conversation and its tokens.
Line = tuple[str, list[str]]


def _swapped(
    things: Sequence[str], summary: Sequence[str], names: set[str], lines: Sequence[Line], quoted: str
) -> str | None:
    """A thing of the quote traded for another that a line of the conversation names beside it:
    "the science museum trip friday and the book fair thursday", then "kojo's going to the book
    fair", is not "Kojo is going on the science museum trip"."""
    if not things:
        return None
    said = _tokens(quoted)
    unsaid = [
        w
        for w in dict.fromkeys(_content(summary))
        if w not in GENERIC and w not in FILLER and w not in names and not w[0].isdigit() and not _held(w, said)
    ]
    quoted_form = normalise_for_match(quoted)
    for line, _ in lines:
        if normalise_for_match(line) in quoted_form:
            continue
        named = _things(line)
        gone = [d for d in things if _held(d, named)]
        put = [w for w in unsaid if _held(w, named)]
        if gone and put:
            return f"the turn says {gone[0]}, not {put[0]}"
    return None


def _weekdays(text: str) -> set[int]:
    """The weekdays a text names, any form ("tues", "thurs", "Wednesdays"): ``WEEKDAY_FORMS``."""
    return {WEEKDAY_FORMS[w] for w in re.findall(r"[a-z]+", text.lower()) if w in WEEKDAY_FORMS}


def _value_moved(summary: str, said: str, names: set[str]) -> str | None:
    """A day the summary gives a thing that the turn gives it otherwise: "rohan has swim tues and
    thurs, and piano on weds" is not "piano on Thursdays". A word of the summary said only in
    clauses that name days, none of them the summary's, is moved. (Numbers are not read so: a
    clause gives a thing many numbers, "her birthday's the 9th, she'll be 7".)"""
    ours_days = _weekdays(summary)
    if not ours_days:
        return None
    # Names and places are no things a day is given to ("Rohan", "Mrs. Iyer").
    capitalised = {_tokens(w)[0] for w in re.findall(r"\b[A-Z][\w'’-]*", summary) if _tokens(w)}
    for took_back, instead in _retracted(said):  # "friday, sorry, saturday" says saturday
        said = re.sub(rf"\b{re.escape(took_back)}\b", instead, said, flags=re.I)
    clauses = [(clause, _tokens(clause)) for clause in re.split(r"[,;:!?\n]+|\.(?!\d)|\s[—–-]\s|\bbut\b", said)]
    for word in dict.fromkeys(_content(_tokens(summary))):
        if (
            word in capitalised
            or word in GENERIC
            or word in FILLER
            or word in names
            or word[0].isdigit()
            or word in WEEKDAY_FORMS
        ):
            continue
        holding = [clause for clause, tokens in clauses if _held(word, tokens)]
        if not holding:
            continue
        days = [_weekdays(clause) for clause in holding]
        if all(d and not d & ours_days for d in days):
            return f"the turn gives {word} another day"
    return None


#: "the thai place": a kind of venue the summary gives a place the family named without its kind.
_NAMED_PLACE = re.compile(r"\b(?:place|spot|joint)\b", re.I)


def _framing(word: str, pool: Sequence[str], source_text: str) -> bool:
    """A word of the summary that carries no checkable value, or restates the turns' words in
    another form (``formation/paraphrase.py``): an adverb of degree or connection ("roughly",
    "instead"), an inflected light verb ("staying", "kept"), a habitual adverb where the turns
    state a recurrence ("usually" for "pretty much every week"), a compound of the turns'
    words ("drop-off", "daytime"), a venue's kind for "the thai place"."""
    if word in paraphrase.FRAMING or paraphrase.light(word, GENERIC):
        return True
    if word in paraphrase.HABITUAL and paraphrase.recurring(source_text):
        return True
    if word in VENUES and _NAMED_PLACE.search(source_text):
        return True
    if word in VALUES or word in paraphrase.VALUE_WORDS:
        return False
    said = set(pool)
    return paraphrase.compound_parts(
        word,
        lambda part: part in said or any(_stem(other) == _stem(part) for other in said),
        lambda part: part in GENERIC,
    )


def _said_of_the_same_thing(
    word: str, summary: Sequence[str], lines: Sequence[Line], names: set[str], quoted: Sequence[str] = ()
) -> bool:
    """Whether a line of this conversation that speaks of what the summary speaks of (two of its
    words of substance beside ``word``, names and days aside) says ``word``: "eliquis" from "the
    metoprolol and the eliquis both need refills" for "Anna will pick up the two that are ready";
    not "Coach Ren" from "coach ren does swimming" for violin on Saturdays, nor a word the line
    lists beside one the cited turn picks ("the cetirizine and the nose spray": "the cetirizine")."""
    ours = {
        w
        for w in _content(summary)
        if w != word
        and w not in GENERIC
        and w not in FILLER
        and w not in names
        and not _DAY_WORD.fullmatch(w)
        and not w[0].isdigit()
    }
    picked = {w for w in quoted if w in ours}
    for _, tokens in lines:
        if not _held(word, tokens) or sum(_held(w, tokens) for w in ours) < 2:
            continue
        at = [n for n, t in enumerate(tokens) if _alike(word, t)]
        beside = {t for n in at for t in tokens[max(0, n - 3) : n + 4]}
        if not any(_held(w, list(beside)) for w in picked):
            return True
    return False


def _hedged(lead: str, quote: str, summary: str) -> bool:
    """Whether the quote, or the sentence leading to it, speaks of a possibility the summary
    states as fact ("we might get a dog"; "if it rains saturday the party moves inside" ->
    "the party is inside"). An "if" or "unless" whose condition the summary keeps is a
    rule's condition, not a possibility ("if ur ever doin food for her no gluten" -> "any
    food for her must be gluten-free"). "Provided", "as long as", "so long as", "on condition
    that" and "only if" always make a condition, whatever modal is near ("she may bike to
    school provided she has her helmet"): the summary must keep the condition (in those words,
    "if", "when" or "once"), not drop it. ``conditions.dropped_condition`` refuses dropped
    conditions too, more narrowly (it needs the main clause restated); both are kept because
    this one still catches a near miss of held-out set c that the other lets through."""
    if _SUMMARY_HEDGE.search(summary):
        return False
    summary_tokens = _tokens(summary)
    keeps_a_condition = bool(
        re.search(
            r"\b(?:when|whenever|any ?time|in case|once|as long as|so long as|provided|providing|on condition)\b",
            summary,
            re.I,
        )
    )
    for text in (lead, quote):
        for match in _HEDGE.finditer(text):
            word = match.group(0).lower()
            condition_only = bool(_CONDITION.match(word)) or (
                word == "if" and text[: match.start()].lower().rstrip().endswith("only")
            )
            if not condition_only and (word not in ("if", "unless") or _SUPPOSING.search(lead + " " + quote)):
                return True
            condition = _CLAUSE.split(text[match.end() :], maxsplit=1)[0]
            # An "if" whose consequence is an instruction is a rule's condition, not a maybe: "if
            # mumma asks for dinner ideas dont put bhindi ever".
            if _CONSEQUENCE.search(condition):
                continue
            words = [
                w
                for w in _content(_tokens(condition))
                if w not in GENERIC and w not in FILLER and not _DAY_WORD.fullmatch(w)
            ]
            if keeps_a_condition and (condition_only or not _SUPPOSING.search(lead + " " + quote)):
                continue
            kept = sum(_held(w, summary_tokens) for w in words)
            if not words or kept < 0.5 * len(words):
                return True
            # "if the penang trip confirm, we'll stay at my cousin's": the summary that keeps the
            # trip, drops "confirm" and the "if" states a plan as made. A condition kept whole is
            # kept ("he'll eat them if they're blended in the sauce" -> "will eat them blended
            # into a sauce"), and a rule may generalise its condition ("if ur ever doin food for
            # her no gluten" -> "any food for her must be gluten-free").
            if (
                word in _IF_WORDS
                and kept < len(words)
                and not condition_only
                and not keeps_a_condition
                and not _RULE_SHAPED.search(summary)
            ):
                return True
    return False


_IF_WORDS = frozenset({"if", "agar", "kalau", "jika"})
#: A summary shaped as a rule, a permission or a standing trait, whose condition an "if" may be.
_RULE_SHAPED = re.compile(
    r"\b(?:must|mustn't|should|shouldn't|never|always|not allowed|allowed|can|can't|cannot|may|only|any|every|"
    r"whenever|no longer|has to|have to|needs? to|don't|do not|avoid|no)\b",
    re.I,
)
#: A hedge said just after the quote: "ir a oaxaca para navidad, maybe, depends on the flights".
_HEDGE_AFTER = re.compile(
    r"^\W*(?:maybe|perhaps|possibly|probably(?! (?:not )?(?:ever again|forever|for good|for life|never))|hopefully|"
    r"depends|depending|we'll see|not sure|tbc|tbd)\b",
    re.I,
)
# (Not "if": an "if" after the quote is an aside or a rule's condition, "i get paid on the 28th
# every month, if you're ever planning big shops"; ``_hedged`` reads an "if" in the quote.)


#: A request of the assistant, not a question of fact: "can you remind him at 9pm every night".
_REQUEST = re.compile(r"^\W*(?:\w+ )?(?:can|could|would|will) (?:you|u)\b|\b(?:pls|please)\b", re.I)


def _asks(sentence: str, start: int, quotes: Sequence[str]) -> bool:
    """Whether the quote's own clause is a question: the sentence opens as one or ends in "?"
    (not a request of the assistant), and no later clause carries the "?" ("... on a low salt
    diet for her blood pressure, so less soy?")."""
    if _REQUEST.search(sentence):
        return False
    if _QUESTION_START.match(sentence[start:]) or (start == 0 and _QUESTION_START.match(sentence)):
        return True
    if not sentence.rstrip().endswith("?") or _TAG_QUESTION.search(sentence):
        return False
    quote = max((normalise_for_match(q).strip(" .,!?") for q in quotes), key=len, default="")
    after = sentence[start + len(quote) :]
    return not re.search(r";|\b(?:so|but)\b", after)


_ORDINAL = re.compile(r"^(\d+)(?:st|nd|rd|th)$")
#: A negation the quote starts just after: "we won't be [doing the turkey this year]"; not
#: the "or not" of a question ("can or not [remind him to sleep by 10]", Singlish).
_NEGATION_BEFORE = re.compile(
    r"\b(?:(?<!\bor )not|never|no longer|won't|wont|don't|dont|doesn't|doesnt|didn't|didnt|can't|cant|isn't|"
    r"aren't|wasn't|weren't|shouldn't|mustn't)(?: (?:be|have|been|going to|gonna|get to))?\s*$",
    re.I,
)
#: A summary that keeps the report as a report: "Kevin says his father said he can skip ...",
#: "which the doctor thinks will take another two weeks".
_ATTRIBUTED = re.compile(
    r"\b(?:says?|said|told|tells|reckons?|thinks?|thought|according to|claims?|heard|believes?)\b", re.I
)
#: A report tagged on after what it reports: "we can skip chores this week, mum said".
_TRAILING_REPORT = re.compile(r"[,;-]\s*(?:\S+\s+){0,2}(?:said|says|reckons|told (?:me|us))\W*$", re.I)


def _reports(sentence: str, start: int, quote: str, summary: str) -> bool:
    """Whether the quote's sentence passes on what someone else said or allowed, and the summary
    states it as the family's own: a report in the words up to the quote's end or tagged on
    after a permission ("dad said i can skip chores", "we can stay up till 11, mum said"), not
    one of a later clause of its own ("... till his wrist's healed, doc reckons another fortnight")."""
    if _ATTRIBUTED.search(summary):
        return False
    end = start + len(normalise_for_match(quote).strip(" .,!?"))
    # A report tagged on after a permission passes on the permission; after a fact or a plan
    # ("we're off to spain in july, mum said") the family passes on what it was told.
    tagged = bool(_TRAILING_REPORT.search(sentence) and _PERMISSION.search(summary))
    return bool(_REPORTED.search(sentence[:end])) or tagged


def _speech_problems(claim: Claim, primary: str) -> list[str]:
    """The quote sits in a question, a possibility, a report of someone else's words, a value the
    speaker took back, or one occasion the summary turns into a habit."""
    problems = []
    for sentence, start in _quote_sentences(primary, claim.quotes):
        if _asks(sentence, start, claim.quotes):
            problems.append("the quote is a question, not a statement")
        # Only the clause the quote opens in leads to it: "if she's busy her cousin can cover, but
        # ... anyone new has to meet us first" puts no condition on the rule.
        lead = re.split(r"\b(?:but|so|because|though|although)\b|[;:]", sentence[:start])[-1]
        quote_text = " ".join(claim.quotes)
        after = sentence[start + len(normalise_for_match(quote_text).strip(" .,!?")) :]
        if _hedged(lead, quote_text, claim.summary) or (
            _HEDGE_AFTER.match(after) and not _SUMMARY_HEDGE.search(claim.summary)
        ):
            problems.append("the turn speaks of a possibility; the summary states it as fact")
        if _NEGATION_BEFORE.search(sentence[:start]) and not _negated(claim.summary):
            # "we won't be doing the turkey this year": a quote that starts after its negation
            problems.append("the quote leaves out the negation before it; the summary states it as done")
        reported = _reports(sentence, start, quote_text, claim.summary)
        if reported or (_APPARENTLY.search(sentence) and _PERMISSION.search(claim.summary)):
            problems.append("the turn reports what someone else said or allowed")
        if (
            _EPISODE.search(sentence)
            and _PAST_VERB.search(sentence)
            and _generalises(claim.summary)
            and not _RULE_FROM_IT.search(sentence)
            and not paraphrase.recurring(sentence)  # "has went to monthly pay, last friday of the month"
            and not _ANNUAL.search(claim.summary)  # "my birthday was on monday the 2nd": it is every year
        ):
            problems.append("the turn tells of one occasion; the summary makes it a habit")
    # A day of the month is the same number however written: "the 9th" is the summary's "December 9".
    summary_tokens = [_ORDINAL.sub(r"\1", w) for w in _tokens(claim.summary)]
    for took_back, instead in _retracted(primary):
        took_back, instead = _ORDINAL.sub(r"\1", took_back), _ORDINAL.sub(r"\1", instead)
        if _held(took_back, summary_tokens) and not _held(instead, summary_tokens):
            problems.append(f"the summary keeps {took_back!r}, which the speaker took back")
    return list(dict.fromkeys(problems))


#: "... and" that starts a new statement ("i'm not a morning person and the phone wakes ida").
_NEW_SUBJECT = re.compile(
    r"\s(?:and|or)\s(?=(?:the|i|i'm|we|we're|he|she|they|it|my|our|his|her|their|[a-z]+'s)\b)", re.I
)
#: A negation that governs a list ("no dairy, eggs or honey"; "nothing with nuts, sesame").
_LIST_NEGATION = re.compile(r"\b(?:no|nothing|never any|without|not any|none of)\b", re.I)
#: An aside in brackets is a clause of its own: "no beef anywhere (gizdodo with chicken)".
_CLAUSE_PARTS = re.compile(
    r"(,)|[;:!?()]+|\.(?!\d)|\s[—–-]\s|\b(?:but|while|whereas|so|because|though|although)\b", re.I
)
#: Negations whose scope is the noun phrase after them; "or" keeps it going, "and" ends it.
_DETERMINER_NEGATORS = frozenset({"no", "nothing", "none", "nobody"}) | foreign_words.DETERMINER_NEGATORS
#: A whole sentence's polarity turned by its ending ("... and the answer is no").
_ANSWER_NO = re.compile(r"\b(?:the answer (?:is|was) no|(?:i|we) said no)\b", re.I)
#: Verbs that turn down what follows them, beside the negators ("cut back on sugar").
_TURNING_DOWN = re.compile(
    r"\b(?:cut(?:ting)? (?:back|down) on|avoids?|avoiding|skips?|skipping|stays? away from|"
    # "cut out sugar", "cut dairy out"; a verb of lacking ("misses training", "forgets her inhaler").
    r"cut(?:s|ting)?(?= (?:out|\w+ out)\b)|miss(?:es|ed)?|forg[eo]t(?:s|ten)?)\b",
    re.I,
)
#: The negators that are an aversion or a ban: negated themselves ("isn't scared of", "no longer
#: banned from", "doesn't hate"), they say yes.
_AVERSION = re.compile(
    r"refuses?|refused|hates?|hated|dislikes?|disliked|scared|afraid|frightened|terrified|petrified|banned|forbidden",
    re.I,
)
#: "dairy-free", "gluten free": no dairy, no gluten (read as "no ..." for polarity).
_FREE_OF = re.compile(
    r"\b([a-z]+)-free\b|\b(dairy|gluten|nut|peanut|sugar|meat|egg|alcohol|caffeine|lactose|wheat|soy) free\b"
)
#: "nothing with a screen", "nothing containing nuts": "no" and the noun phrase after.
_NOTHING_WITH = re.compile(r"\bnothing (?:with|containing|that has) (?:an? |any )?")
#: Where the noun phrase a "no" governs ends ("no dairy for vy": Vy is not negated).
_NOUN_PHRASE_END = re.compile(
    r"\b(?:and|for|at|in|on|with|to|from|during|after|before|when|until|by|near|around|is|are|was|were|"
    r"unless|except|other than|apart from|because|bc|cos|coz|cuz|since)\b"
)
#: An allergen before "allergy": "egg allergy" and "egg-free" say one thing, so its polarity is
#: compared neither way. ("allergic to dogs" keeps it: "scared of dogs" is no allergy.)
_ALLERGEN = re.compile(r"\b[a-z]+(?= (?:allergy|allergies|intolerance)\b)")
#: Where any negation's reach ends: what follows is the exception ("no takeaway except the first
#: friday", "doesn't have cereal unless it's a birthday").
_EXCEPTION = re.compile(r"\b(?:unless|except|other than|apart from)\b")
#: A list item that carries its own negation ("no pork, and no alcohol in cooking either").
_OWN_NEGATION = re.compile(r"^\s*(?:and |or |nor )?(?:no|not|never|nothing|none)\b", re.I)
#: A piece that says what is left, not more of what was ruled out ("no onion or garlic, only fruit").
_ONLY = re.compile(r"^\s*(?:only|just|but)\b", re.I)
#: A piece that goes on with the one before it ("cut back on sugar, including pan dulce").
_EXTENDS = re.compile(r"^\W*(?:including|incl|even|especially|like|such as|e\.g\.|apart from|except)\b", re.I)
_SUBJECT_WORDS = frozenset({"i", "we", "you", "the", "my", "our", "his", "her", "their"})

#: (a clause, the polarity of each of its content words: True under a negation, False not,
#: None when it cannot be told).
Polar = tuple[str, dict[str, bool | None]]


def _word_polarity(clause: str, inherited: bool, *, generic: bool = False) -> dict[str, bool | None]:
    """Each content word of ``clause`` and whether a negation governs it: a verb's negation
    ("doesn't", "never", "hates", "cut back on") everything after it, a determiner's ("no",
    "nothing") its noun phrase (up to "and", "for", "at", ...); "... is out", "off limits" the whole clause;
    a double negation ("won't sleep without her night light") nothing. ``inherited``: a list
    item negated by the negation before it ("no dairy, eggs or honey"); ``generic``: the
    generic words too ("needs")."""
    folded = normalise_for_match(clause).replace("’", "'")
    folded = _FREE_OF.sub(lambda m: f"no {m.group(1) or m.group(2)}", folded)
    folded = _NOTHING_WITH.sub("no ", folded)  # "nothing with a screen at the table": no screens
    whole: bool | None = None
    if foreign_words.POSTPOSED_NEGATOR.search(folded):  # "karela bilkul pasand nahi"
        return {m.group(0).lower(): None for m in _TOKEN.finditer(folded)}
    if _DOUBLE.search(folded):
        whole = False
    elif _OUT.search(folded):
        whole = True
    negations: list[tuple[int, int, bool]] = []  # (start, end, a determiner's)
    if whole is None:
        for m in _NEGATORS.finditer(folded):
            previous = negations[-1] if negations else None
            if (
                previous
                and _AVERSION.fullmatch(m.group(0))
                and re.fullmatch(r"\s+(?:(?:be|being|been|so|that|as|too|really) )?", folded[previous[1] : m.start()])
            ):
                negations.pop()  # "isn't scared of the dark", "no longer banned from": a yes
                continue
            negations.append((m.start(), m.end(), m.group(0).lower() in _DETERMINER_NEGATORS))
        for m in _TURNING_DOWN.finditer(folded):
            negations.append((m.start(), m.end(), False))
        for m in re.finditer(r"[a-z]+", folded):
            if m.group(0) in _NT_WORDS:
                negations.append((m.start(), m.end(), False))
    polarity: dict[str, bool | None] = {}
    allergens = list(_ALLERGEN.finditer(folded))
    for m in _TOKEN.finditer(folded):
        token = m.group(0).lower()
        if token in STOPWORDS or token in FILLER or (token in GENERIC and not generic) or _NEGATORS.fullmatch(token):
            continue
        if _EXCEPTION.fullmatch(token):
            continue
        if _EXCEPTION.search(folded[: m.start()]) or any(a.start() == m.start() for a in allergens):
            state = None  # the exception's words, an allergen: compared neither way
        elif whole is not None:
            state = whole
        else:
            state = inherited or any(
                end <= m.start()
                and not (determiner and _NOUN_PHRASE_END.search(folded[end : m.start()]))
                and not _EXCEPTION.search(folded[end : m.start()])
                for _, end, determiner in negations
            )
        # A word said both ways in one clause counts as said plainly.
        polarity[token] = state if token not in polarity else bool(polarity[token]) and state
    return polarity


def _polar_clauses(text: str) -> list[Polar]:
    """The statements of ``text`` with the polarity of their words: its clauses, a clause's
    "and" + new subject a statement of its own, and the items of a list after "no" negated
    with it ("no dairy, eggs or honey": "eggs or honey" is negated too). An item after a
    verb's negation ("doesn't use Klarna, credit cards or anything with interest") may be
    negated or not ("doesn't eat fish, likes chicken or beef"): unknown."""
    out: list[Polar] = []
    for sentence in re.split(r"(?<=[.!?])\s+|\n+", text):
        unknown = bool(_ANSWER_NO.search(sentence))
        pieces: list[tuple[str, bool]] = []  # (piece, came after a comma)
        last, comma = 0, False
        for m in _CLAUSE_PARTS.finditer(sentence):
            pieces.append((sentence[last : m.start()], comma))
            comma = m.group(1) is not None
            last = m.end()
        pieces.append((sentence[last:], comma))
        listing: bool | None = False  # the previous piece ends in a negated list (None: a verb's)
        for piece, after_comma in pieces:
            parts = [p.strip() for p in _NEW_SUBJECT.split(piece) if p and p.strip()]
            if not parts:
                continue
            for i, part in enumerate(parts):
                words = _tokens(part)
                first_raw = part.lstrip()[:1]
                continues = (
                    i == 0
                    and after_comma
                    and listing is not False
                    and bool(words)
                    and (re.search(r"\b(?:or|nor|and)\b", part, re.I) is not None or bool(_EXTENDS.search(part)))
                    and words[0].split("'")[0] not in _SUBJECT_PRONOUNS | _SUBJECT_WORDS
                    and not first_raw.isupper()
                    and not _OWN_NEGATION.match(part)
                    and not _ONLY.match(part)
                )
                inherited: bool | None = (True if listing else None) if continues else None
                polarity = _word_polarity(part, bool(inherited))
                if continues and inherited is None:
                    polarity = {w: (None if state is False else state) for w, state in polarity.items()}
                if unknown:
                    polarity = dict.fromkeys(polarity, None)
                out.append((part, polarity))
            tail = parts[-1]
            has_content = any(
                w not in STOPWORDS and w not in FILLER and w not in GENERIC and not _NEGATORS.fullmatch(w)
                for w in _tokens(tail)
            )
            if _LIST_NEGATION.search(tail) and has_content:
                listing = True
            elif has_content and any(v for v in out[-1][1].values()):
                listing = None
            else:
                listing = False
    return out


#: The kind-of-place word of a name ("Vaiola Hospital", "Flinders Medical Centre", "Elm Street"):
#: free beside a name the turns hold ("at vaiola", "at flinders").
PLACE_NOUNS = frozenset(
    """hospital centre center medical clinic surgery street st road rd avenue ave lane airport station school
    primary secondary elementary academy kindergarten nursery college university pharmacy bank library park
    church mosque temple stadium leisure sports club""".split()  # noqa: SIM905
)
_MONTH_DAY_SAID = re.compile(r"\b(?:the|on) \d{1,2}(?:st|nd|rd|th)\b", re.I)
_EACH_MONTH = re.compile(r"\b(?:of )?each month\b", re.I)


def _names_a_held_place(word: str, summary: str, pool: Sequence[str]) -> bool:
    """Whether ``word`` is the place-kind word of a capitalised name whose other words the
    turns hold ("Vaiola Hospital" from "at vaiola")."""
    for run in re.finditer(r"(?:[A-Z][\w'’.-]*\s+)*[A-Z][\w'’.-]*", summary):
        words = [normalise_for_match(w).strip(".") for w in run.group(0).split()]
        if word in words and any(w != word and w not in PLACE_NOUNS and _held(w, pool) for w in words):
            return True
    return False


#: Words that carry a clause's polarity, not its subject: "loves" and "hates" restate the same
#: clause with its polarity turned, so neither counts when matching the clauses up.
_SENTIMENT = frozenset("love loves loved adore adores enjoy enjoys enjoyed like likes liked".split())  # noqa: SIM905


def _restated_words(clause: str) -> list[str]:
    """The words by which a summary clause and a turn's clause are matched up: their content,
    without the words that only say which way it goes ("doesn't", "anymore", "hates", "loves")."""
    return [
        w
        for w in dict.fromkeys(_content(_tokens(clause)))
        if w not in GENERIC
        and w not in _SENTIMENT
        and w.replace("'", "") not in _NT_WORDS
        and not _NEGATORS.fullmatch(w)
    ]


def _polarity_problems(summary: str, sources: Sequence[SpokenTurn]) -> list[str]:
    """A summary clause that restates one source clause nearly word for word, with the
    polarity of its words turned ("doesn't drink" -> "enjoys a drink", "may not use" -> "may
    use"): at least half of the words they share are negated in one and not the other.
    Clauses that only share some words with several source clauses are not compared: their
    polarity cannot be read off words alone. A negation restated by an opposite is no flip: one
    clause negates a word whose opposite the other says plainly ("sam is no longer scared of the
    dark" -> "Sam is fine with the dark now"; ``paraphrase.NEGATION_ANTONYMS``)."""
    source_clauses = [c for t in sources for c in _polar_clauses(t.text)]
    # "can't have egg, he's allergic" is "allergic to egg": where the turns speak of an allergy,
    # what the summary says someone is allergic to is compared neither way.
    allergy_said = any(re.search(r"\ballerg", t.text, re.I) for t in sources)
    for clause, ours_polarity in _polar_clauses(summary):
        if allergy_said:
            allergens = set(re.findall(r"\ballergic to (?:the |an? )?([^\W\d_]+)", normalise_for_match(clause)))
            ours_polarity = {w: (None if w in allergens else state) for w, state in ours_polarity.items()}
        ours = _restated_words(clause)
        if len(ours) < 2:
            continue
        scored = sorted(
            ((sum(_held(w, _tokens(c)) for w in ours), c, p) for c, p in source_clauses), key=lambda t: -t[0]
        )
        if scored and scored[0][0] >= 2 and (denied := _denied_thing_granted(clause, ours_polarity, *scored[0][1:])):
            return [f"the turn says no {denied}; the summary grants it"]
        if not scored or scored[0][0] < max(2, 0.6 * len(ours)):
            continue
        theirs = _restated_words(scored[0][1])
        if sum(_held(w, _tokens(clause)) for w in theirs) < 0.6 * len(theirs):
            continue  # the clause says more than the summary restates ("our dog pepper hates baths")
        if len(scored) > 1 and scored[1][0] == scored[0][0]:
            continue
        theirs_polarity = scored[0][2]
        if _restated_by_an_opposite(
            {**_word_polarity(clause, False, generic=True), **ours_polarity},
            {**_word_polarity(scored[0][1], False, generic=True), **theirs_polarity},
        ):
            continue
        compared = flipped = 0
        turned_negative = False
        for word, state in ours_polarity.items():
            match = next((w for w in theirs_polarity if _alike(word, w)), None)
            if match is None or state is None or theirs_polarity[match] is None:
                continue
            compared += 1
            if state != theirs_polarity[match]:
                flipped += 1
                turned_negative = bool(state)
        if compared and flipped * 2 >= compared:
            said = "the summary negates what the turn says" if turned_negative else "the summary says the opposite"
            return [said if turned_negative else f"{said} of the turn"]
    return []


#: A summary clause that grants or gives a thing: "may use screens", "the kids get screens".
_GRANTS = re.compile(r"\b(?:may|can|could|allowed|gets?|getting|has|have|having|uses?|using|plenty of|lots of)\b", re.I)
#: Words that keep the denial in other words: "screens are banned", "screens off", "screen-free".
_KEEPS_DENIAL = re.compile(
    r"\b(?:ban|bans|banned|forbidden|off|without|free|limit|limited|less|fewer|stop|stopped|quit|cut|avoid|instead|"
    r"except|only|but)\b|-free\b",
    re.I,
)


def _denied_thing_granted(
    clause: str, ours: dict[str, bool | None], source: str, theirs: dict[str, bool | None]
) -> str | None:
    """A thing the source clause denies by a determiner ("no screens after 8", "nae sweets") that
    the summary clause grants ("may use screens after 8 pm"), with nothing in it that keeps the
    denial: the one word carries the rule, however many words around it agree."""
    # (A negated grant, "may not use screens", is no grant: its words are read negated.)
    if not _GRANTS.search(clause) or _KEEPS_DENIAL.search(clause):
        return None
    folded = normalise_for_match(source)
    for word, state in ours.items():
        match = next((w for w in theirs if _alike(word, w)), None)
        denied = state is False and match is not None and theirs[match] is True
        if denied and re.search(rf"\b(?:no|nae|zero) {re.escape(str(match))}\b", folded):
            return match
    return None


_ALLERGIC_TO = re.compile(r"\b(?<!not )(?<!n't )(?<!never )allergic (?:to|of) (?:the |an? )?([^\W\d_]+)", re.I)
#: An allergen the turns deny: "allergic of cats, not of dogs", "not allergic to eggs".
_NOT_ALLERGIC_TO = re.compile(
    r"\b(?:not|isn't|isnt|aren't|never) (?:allergic )?(?:to|of) (?:the |an? )?([^\W\d_]+)", re.I
)


def _allergy_swapped(summary: str, source_text: str) -> str | None:
    """An allergen the turns deny that the summary makes one: "he is allergic of cats, not of
    dogs" is not "Tiago is allergic to dogs" (the polarity reading compares no allergens)."""
    folded = normalise_for_match(source_text)
    denied = _NOT_ALLERGIC_TO.findall(folded)
    if not denied:
        return None
    said = _ALLERGIC_TO.findall(folded)
    for allergen in _ALLERGIC_TO.findall(normalise_for_match(summary)):
        if any(_alike(allergen, d) for d in denied) and not any(_alike(allergen, a) for a in said):
            return f"the turns say not {allergen}"
    return None


def _only_negated(sources: Sequence[SpokenTurn]) -> set[str]:
    """The aversions and bans the turns say only under a negation ("no longer banned from the
    oven", "isn't scared of"), whose opposite ("allowed", "fine") restates them. Other values
    are not read so: "won't get in a lift" is no "uses the stairs"."""
    negated, plain = set(), set()
    for turn in sources:
        folded = normalise_for_match(turn.text).replace("’", "'")
        pattern = r"\b(?:no longer|not|never|\w+n't)(?: (?:be|being|been))? (" + _AVERSION.pattern + r")\b"
        negated |= {m.group(1) for m in re.finditer(pattern, folded)}
        plain |= {m.group(0) for m in re.finditer(_AVERSION.pattern, re.sub(pattern, " ", folded))}
    return negated - plain


def _restated_by_an_opposite(ours: dict[str, bool | None], theirs: dict[str, bool | None]) -> bool:
    """One side negates a word whose opposite the other says plainly, and neither says the
    other's word: "no longer scared" / "fine", "not allowed" / "banned"."""
    for mine, my_state in ours.items():
        for word, state in theirs.items():
            if my_state is None or state is None or my_state == state or not paraphrase.antonyms(mine, word):
                continue
            if not any(_alike(mine, w) for w in theirs) and not any(_alike(word, w) for w in ours):
                return True
    return False


def _capitalised(word: str, summary: str) -> bool:
    """Whether ``word`` is written as a name in the summary (capitalised, not the first word)."""
    for m in re.finditer(r"[^\W\d_]+(?:['’-][^\W\d_]+)*", summary):
        if normalise_for_match(m.group(0)).replace("’", "'").removesuffix("'s") == word and m.start() > 0:
            return m.group(0)[0].isupper() and summary[: m.start()].rstrip()[-1:] not in ".:;!?"
    return False


_QUESTION_START = re.compile(
    r"^\W*(?:wait,? |um,? |so,? )?(?:is|are|was|were|do|does|did|can|could|should|shall|has|have|had)\s+"
    r"(?:it|he|she|they|we|i|you|the|this|that|my|our|her|his|their|[^\W\d_]+'s)\b",
    re.I,
)


def _kind(word: str) -> str:
    """What sort of value a word is, so a correction pairs like with like."""
    if word[0].isdigit():
        return "number"
    if word in _WEEKDAY_NAMES:
        return "weekday"
    if word in _MONTH_NAMES:
        return "month"
    return "word"


_WEEKDAY_NAMES = frozenset("monday tuesday wednesday thursday friday saturday sunday".split())  # noqa: SIM905
_MONTH_NAMES = frozenset(
    "january february march april may june july august september october november december".split()  # noqa: SIM905
)


_PAST_MARK = re.compile(r"\b(?:was|were|used to|last year|before|previously|old one)\b", re.I)


def _retracted(text: str) -> list[tuple[str, str]]:
    """(the value the speaker took back, the value they gave instead) for each self-correction.
    Values pair by kind ("tuesday the 10th of march, no wait, it's wednesday the 11th": the
    10th and tuesday are taken back, not March), and a word the speaker says again after the
    correction ("... the allergist is dr mercer") was not taken back."""
    out: list[tuple[str, str]] = []
    for match in _CORRECTION.finditer(text):
        before = [w for w in _tokens(match.group("before")) if w not in STOPWORDS and w not in FILLER]
        after = [w for w in _tokens(match.group("after")) if w not in STOPWORDS and w not in FILLER]
        rest = text[match.end() :]
        # Said again after the correction, in the present ("the 21st is ji-ho's party"), it was not
        # taken back; said of the past ("cohen was last year"), it was.
        later = [] if _PAST_MARK.search(rest) else _tokens(rest)
        took_back = [w for w in before if not _held(w, after) and not _held(w, later)]
        instead = [w for w in after if not _held(w, before) and w not in {"mr", "mrs", "ms", "dr", "got", "moved"}]
        pairs = [
            (next(b for b in reversed(took_back) if _kind(b) == _kind(i)), i)
            for i in instead
            if any(_kind(b) == _kind(i) for b in took_back)
        ]
        if pairs:
            out.extend(dict.fromkeys(pairs))
        elif took_back and instead and all(_kind(i) == "word" for i in instead):
            out.append((took_back[-1], instead[0]))
    return out


def _generalises(summary: str) -> bool:
    """A summary that states a habit or a trait, with no occasion or date in it."""
    if re.search(r"\b(?:every|always|usually|often|regularly|frequent|frequently|tends?)\b", summary, re.I):
        return True
    anchored = r"\b(?:today|tonight|this|last|yesterday|once|on \w+day|\d{4}|\d{1,2}(?:st|nd|rd|th))\b"
    return not (_PAST_VERB.search(summary) or _SIMPLE_PAST.search(summary) or re.search(anchored, summary, re.I))


#: A regular verb in the simple past tells of an occasion ("Tobi earned his black belt"); not
#: after these words: a state ("is scared", "gets tired"), a perfect, which may start a habit
#: ("he's started it today, one tablet with breakfast"), an adjective ("the certified gf ones").
_NO_PAST_AFTER = frozenset(
    """is are am be been being get gets getting feel feels seems looks very so too 's ’s has have 've ’ve
    the a an my his her our their your its no""".split()  # noqa: SIM905
)
_SIMPLE_PAST = re.compile(
    r"\b"
    + "".join(rf"(?<!\b{re.escape(w)} )" for w in sorted(_NO_PAST_AFTER))
    + r"[a-z]{2,}(?:ed|ied)\b(?! (?:by|of|to|about|with)\b)",
    re.I,
)


def _completes_a_name(word: str, names: Iterable[str], pool: Sequence[str]) -> bool:
    """Whether ``word`` is part of a name the family knows whose other words the turns hold
    ("Tío Rafa" from "rafa", "Oma Gisela" from "oma")."""
    for name in names:
        words = _tokens(name)
        if word in words and any(w != word and w not in STOPWORDS and _held(w, pool) for w in words):
            return True
    return False


def _referred(
    word: str,
    quoted: Sequence[SpokenTurn],
    lenders: Sequence[SpokenTurn],
    session_text: str,
    known: frozenset[str] = frozenset(),
) -> bool:
    """A person's name the cited turns do not spell but stand for: the writer of a quoted turn
    that speaks in the first person ("I", "we"), or someone named earlier in the conversation
    whom the quoted turn points at with a pronoun or a relation ("she's allergic to kiwi too")."""
    for turn in quoted:
        if any(word in _tokens(n) for n in turn.writer_names) and re.search(
            r"\b(?:i|i'm|im|me|my|mine|we|we're|us|our|ours)\b", normalise_for_match(turn.text).replace("’", "'")
        ):
            return True
    named_here = re.search(rf"(?<!\w){re.escape(word)}(?!\w)", normalise_for_match(session_text))
    if session_text and not named_here and word not in known:
        return False  # neither named in this conversation nor a person the family's directory knows
    text = normalise_for_match(" ".join(t.text for t in [*quoted, *lenders])).replace("’", "'")
    return bool(
        re.search(
            r"\b(?:he|she|they|him|her|his|hers|their|them|he's|she's|they're|baby|son|daughter|kid|kids|boy|girl|"
            r"mum|mom|mam|dad|husband|wife|hubby|brother|sister|grandma|grandpa|nan|gran|granny|abuela|abuelo|"
            r"oma|opa|aunt|auntie|uncle|cousin|tía|tío|halmeoni|nani|dadi|lola|mother|father|partner)\b",
            text,
        )
    )


#: Relations a possessive names another person by ("marco's brother", "lily's mom").
_RELATIONS = frozenset(_tokens(" ".join(RELATION_WORDS))) | {
    "mother-in-law",
    "father-in-law",
    "teacher",
    "coach",
    "doctor",
    "boss",
    "classmate",
    "parents",
    "grandparents",
    "wife",
    "husband",
    "ex",
    "godmother",
    "godfather",
    "stepmom",
    "stepdad",
    "auntie",
    "grandmother",
    "grandfather",
    "mom",
    "mum",
    "mam",
    "dad",
    "hubby",
    "nan",
    "gran",
    "sister-in-law",
    "brother-in-law",
    "cousin",
    "friend",
}
_TITLES = frozenset({"mr", "mrs", "ms", "miss", "dr", "prof", "coach", "aunt", "uncle", "auntie", "nana", "grandma"})
_HOUSEHOLD = frozenset({"family", "household", "kids", "children", "everyone", "parents"})
_RAW = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*", re.UNICODE)
_PERSON_CLAUSE = re.compile(
    # An emoji ends a clause as a full stop does: "tyler tried it yesterday 🙄 nobody comes over ..."
    r"[\U0001F300-\U0001FAFF\u2600-\u27BF]+|"
    r"[,;:!?]+|\.(?!\d)|\s[—–-]\s|\b(?:but|while|whereas|so|because|cos|coz|cuz|though|although)\b|"
    r"\band(?= (?:i|we|he|she|they|i'm|he's|she's)\b)",
    re.I,
)


def _raw_words(text: str) -> list[str]:
    """Lower-case words as written (no abbreviation expansion: "lola" may be a name)."""
    out = []
    for word in _RAW.findall(normalise_for_match(text).replace("’", "'")):
        out.append(word[:-2] if word.endswith("'s") else word)
    return out


def _person_clauses(text: str) -> list[str]:
    return [c.strip() for c in _PERSON_CLAUSE.split(text) if c and c.strip()]


def _subject(clause: str, people: dict[str, str], writer: str | None, previous: frozenset[str]) -> frozenset[str]:
    """Who ``clause`` is about: the people its leading phrase names ("marco's brother pablo" is
    Pablo, "lily's mom" Lily's mother, "arjun and I" both), the writer for "I", the household
    for "we" and "the family", the person a pronoun's clause before named; empty for nobody."""
    words = _raw_words(clause)
    found: set[str] = set()
    n = 0
    while n < len(words):
        word = words[n]
        if (
            word in people
            or word in ("i", "i'm", "im", "me", "my", "we", "we're", "our", "us")
            or (word in _HOUSEHOLD and n <= 1)
        ):
            who = people.get(word) or (writer if word in ("i", "i'm", "im", "me", "my") else "family")
            following = words[n + 1 : n + 3]
            if following and (following[0] in _RELATIONS or ABBREVIATIONS.get(following[0], "") in _RELATIONS):
                relation = ABBREVIATIONS.get(following[0], following[0])
                appositive = following[1] if len(following) > 1 and following[1] in people else None
                found.add(people[appositive] if appositive else f"{who}'s {relation}")
                n += 2 if appositive else 1
            else:
                found.add(who or "writer")
            if n + 1 < len(words) and words[n + 1] in ("and", "&"):
                n += 2
                continue
            return frozenset(found)
        if word in ("he", "he's", "she", "she's", "they", "they're", "his", "her", "their", "him", "them"):
            return previous
        n += 1
    return frozenset(found)


def _misbound(
    claim: Claim, quoted: Sequence[SpokenTurn], summary: str, lenders: Sequence[SpokenTurn] = ()
) -> str | None:
    """The summary's subject is not the person the turn says its substance of: "noor's allergic
    to kiwi, omar's fine with it" does not make Omar allergic; "marco's brother pablo is the one
    who's coeliac" is Pablo's; "I'm vegetarian" by Marco is not Lucía's. Read conservatively:
    only a clause that opens with another person's name (or with "I" for the writer) and does
    not name the summary's subject counts against it."""
    del lenders
    people, writer = _people_and_writer([*claim.names, *claim.known_names], quoted, claim.aliases)
    first_clause = _person_clauses(summary)[0] if summary else ""
    ours = _subject(first_clause, people, writer, frozenset())
    kin = {name: relation for name, relation in _kin_of(first_clause).items() if name != writer}
    if (not ours or "family" in ours) and not kin:
        return None
    # Each word once: "from june 3 to june 12" is not twice the substance of the clause it is in.
    substance = [
        w
        for w in dict.fromkeys(_content(_tokens(first_clause)))
        if w not in GENERIC and w not in people and w not in kin and w not in _RELATIONS
    ]
    if not substance:
        return None
    best: tuple[int, str, str] = (0, "", "")
    before: list[str] = []  # the clauses of the quoted turn before the best one
    by_writer = False
    for turn in quoted:
        clauses = _clauses_of(turn.text, people)
        for n, clause in enumerate(clauses):
            held = sum(_held(w, _tokens(clause)) for w in substance)
            if held > best[0]:
                # A clause that opens with a pronoun is about the person the clause before it
                # named: "my parents are coming in june, they'll stay two weeks".
                pronoun = n > 0 and bool(re.match(r"\s*(?:they|she|he)\b", clause, re.I))
                best = (held, clause, clauses[n - 1] if pronoun else clause)
                before, by_writer = clauses[:n], bool(writer and writer in _raw_words(" ".join(turn.writer_names)))
    held, clause, referent = best
    if held * 2 < len(substance):
        return None
    whose = _kin_of(first_clause)  # "Yasmin's uncle Samir ...": the subject is not Yasmin
    if (
        ours
        and "family" not in ours
        and not whose
        and (elsewhere := _pronoun_of_another(clause, before, ours, people, writer, by_writer, first_clause))
    ):
        return elsewhere
    # "my mum's coming for christmas" by Astrid is not "Erik's mother is coming for Christmas".
    mine = re.match(r"\s*my ([\w'-]+)(?: ([\w'-]+))?", normalise_for_match(referent).replace("’", "'"))
    words_after_my = [w.removesuffix("'s") for w in mine.groups() if w] if mine else []
    relative = next((w for w in words_after_my if w in _RELATIONS), "")  # "my mum", "my little brother"
    if kin and writer and relative in _RELATIONS:
        return f"the turn says that of {writer}'s {relative}, not {next(iter(kin))}'s"
    said_in_summary = [*_tokens(first_clause), *_raw_words(first_clause)]
    if (
        writer
        and ours == {writer}
        and relative
        and not whose
        and not _held(relative, said_in_summary)
        and not _held(ABBREVIATIONS.get(relative, relative), said_in_summary)
    ):
        # "my wife olga started night shifts" by Dmitri is not "Dmitri started night shifts".
        return f"the turn says that of {writer}'s {relative}, not {writer}"
    if not ours or "family" in ours:
        return None
    words = _raw_words(clause)
    # "marco's brother pablo is the one who's coeliac" names Marco only to say whose brother.
    kin = _kin_of(clause)
    if any(w in people and people[w] in ours and w not in kin for w in words):
        return None  # the clause names the summary's subject
    opening = words[:1]
    if opening and opening[0] in kin and people.get(opening[0]) in ours:
        return f"the turn says that of {opening[0]}'s {kin[opening[0]]}, not {' and '.join(sorted(ours))}"
    if opening and opening[0] in ("i", "i'm", "im") and writer and writer not in ours:
        return f"the turn says that of {writer}, not {' and '.join(sorted(ours))}"
    if opening and opening[0] in people:
        theirs = _subject(clause, people, writer, frozenset())
        # "common kings is my fav" by Viliami is his favourite band, "Meaghan at Harbourside,
        # every wednesday" Rosalie's therapist: the one the clause opens with is in the summary too.
        in_summary = set(_raw_words(summary))
        if theirs and not _compatible(ours, theirs) and not theirs <= in_summary:
            return f"the turn says that of {' and '.join(sorted(theirs))}, not {' and '.join(sorted(ours))}"
    return None


def _pronoun_of_another(
    clause: str,
    before: Sequence[str],
    ours: frozenset[str],
    people: dict[str, str],
    writer: str | None,
    by_writer: bool,
    first_clause: str,
) -> str | None:
    """The clause that says the summary's substance opens with "he" or "she", and that pronoun
    cannot be the summary's subject: the writer never calls themself "he" ("he say he gon come
    down for crop over" by Andre is his brother's plan), and a pronoun after a clause of someone
    else, with the summary's subject not named before it, is that someone's ("lerato is allergic
    to peanuts, she carries an epipen. naledi is fine with them" does not give Naledi the EpiPen).
    Read conservatively: a subject named anywhere before the pronoun may be the one it stands for."""
    words = _raw_words(clause)
    if not words or words[0] not in ("he", "he's", "hes", "she", "she's", "shes"):
        return None
    # "Ciarán's girlfriend Aoife is coeliac" (by Ciarán: "shes coeliac") is not about Ciarán.
    said = normalise_for_match(first_clause).replace("’", "'")
    possessive = bool(writer and re.search(rf"(?<!\w){re.escape(writer)}'s?(?!\w)", said))
    if by_writer and writer and ours == {writer} and not possessive and not {"i", "i'm", "im", "me", "my"} & set(words):
        return f"the turn says that of '{words[0]}', not {writer}"
    named_before: set[str] = set()
    for earlier in before:
        named_before |= {people[w] for w in _raw_words(earlier) if w in people}
        if {"i", "i'm", "im", "my", "me"} & set(_raw_words(earlier)) and writer:
            named_before.add(writer)
    others = named_before - ours - ({writer} if writer else set())
    if others and not named_before & ours:
        return f"the turn says that of {' and '.join(sorted(others))}, not {' and '.join(sorted(ours))}"
    return None


_SHE = frozenset({"she", "she's", "shes", "her", "hers", "herself"})
_HE = frozenset({"he", "he's", "hes", "his", "him", "himself"})


def _other_gender(summary: str, quoted: str) -> str | None:
    """The quote opens on "she" and the summary's subject is "his" throughout, or the other way
    round: "she has to take it before PE" (Tolu, her inhaler) is not "Dayo has to use his eczema
    cream before PE". Only a summary that names its subject and then refers to them by one
    gender, against a quote whose first word is the other one and which names no one by the
    summary's."""
    said = _tokens(quoted)
    first = next(iter(said), "")
    theirs = _SHE if first in _SHE else _HE if first in _HE else None
    if theirs is None or (set(said) & ((_SHE | _HE) - theirs)):
        return None  # "he takes her to ballet": the summary's subject may be the one the turn calls "her"
    words = _tokens(summary)
    if not words or words[0] in _SHE | _HE or words[0] in STOPWORDS or not summary[:1].isupper():
        return None
    ours = {w for w in words if w in _SHE | _HE}
    if ours and not ours & theirs:
        return f"the turn says that of '{first}', and the summary's subject is '{sorted(ours)[0]}'"
    return None


def _clauses_of(text: str, people: dict[str, str]) -> list[str]:
    """``_person_clauses``, but "arjun and I split the school runs" is one clause, though it is
    cut at "and I": a piece that is only names opens the next one."""
    joined: list[str] = []
    for piece in _person_clauses(text):
        words = _raw_words(joined[-1]) if joined else []
        if words and all(w in people for w in words):
            joined[-1] = f"{joined[-1]} and {piece}"
        else:
            joined.append(piece)
    return joined


def _people_and_writer(
    names: Iterable[str], quoted: Sequence[SpokenTurn], aliases: Iterable[tuple[str, str]] = ()
) -> tuple[dict[str, str], str | None]:
    """``{a first name as written: the person}`` for ``names`` and the writers of ``quoted``, and
    the writer's first name. "Do-hyun" and "Dohyun" are one person, named as written with the
    hyphen, whatever order the names come in. A one-word alias of one of them ("vicky" for
    Vikram) is that person too, unless it is a relation word ("Gran") or a stopword."""
    writer_names = [n for t in quoted for n in t.writer_names]
    firsts = []
    for name in {*names, *writer_names}:
        words = [w for w in _raw_words(name) if w not in _TITLES]
        first = words[0] if words else ""  # a first name; surnames are shared by a household
        if first and first not in STOPWORDS and first not in _RELATIONS and len(first) > 1:
            firsts.append(first)
    hyphened = {first.replace("-", ""): first for first in sorted(firsts) if "-" in first}
    people: dict[str, str] = {}
    for first in sorted(firsts):
        person = hyphened.get(first.replace("-", ""), first)
        people[first] = people[first.replace("-", "")] = person
    for alias, name in aliases:
        if re.search(r"['’]|\s", alias.strip()):
            continue  # "Luis's wife", "the eye doctor": a description, not another name
        said = [w for w in _raw_words(alias) if w not in _TITLES][:1]
        whose = [w for w in _raw_words(name) if w not in _TITLES][:1]
        if not (said and whose and whose[0] in people and said[0] != whose[0] and len(said[0]) > 1):
            continue
        if said[0] not in STOPWORDS and said[0] not in _RELATIONS:
            people[said[0]] = people[whose[0]]
    writer = next((w for n in writer_names[1:2] or writer_names[:1] for w in _raw_words(n)), None)
    return people, hyphened.get(writer.replace("-", ""), writer) if writer else None


#: Where a summary goes on to another person's part: "..., and Arjun does the pickups".
_NEXT_PERSON = re.compile(
    r"(?:;|,? (?:and|while|but)) (?=[A-Z][\w-]+(?:'s [a-z]+)? (?:[a-z]+s|is|has|will|can|does|do|was)\b)"
)
_THIRD_PERSON = frozenset({"he", "he's", "she", "she's", "his", "her", "him"})


def _roles_swapped(claim: Claim, quoted: Sequence[SpokenTurn]) -> str | None:
    """A part of the summary given to one person that the turn gives only to another: "arjun and
    I split the school runs, he does mornings and I do pickups" by Priya is not "Priya does the
    morning runs"; "lily's mom drives them there and I pick them up" by Mei is not "Mei drives".
    Read only where the summary itself shares roles out among people (two parts, two subjects)
    and each has a clause of their own in the turn: a word of substance the turn says only in
    clauses of someone else is bound to them ("he" and "she" are never the writer: the nearest
    person named before who is not). The people are the family's, not every name the claim gives
    ("Sori Academy changed seo-yeon's piano" is no person's clause)."""
    people, writer = _people_and_writer(claim.known_names, quoted, claim.aliases)
    pieces = [piece for chunk in _NEXT_PERSON.split(claim.summary) for piece in _person_clauses(chunk)]
    parts = [(part, _subject(part, people, writer, frozenset())) for part in pieces]
    parts = [(part, ours) for part, ours in parts if ours and "family" not in ours]
    if len(parts) < 2 or len({ours for _, ours in parts}) < 2:
        return None
    clauses: list[tuple[frozenset[str], list[str]]] = []
    for turn in quoted:
        subjects: list[frozenset[str]] = []
        for clause in _clauses_of(turn.text, people):
            words = _raw_words(clause)
            # Only a subject the clause opens with: "mam's driving me" is no clause of the writer's.
            opens = words[:1] and (words[0] in people or words[0] in ("i", "i'm", "im", "we", "we're"))
            who = _subject(clause, people, writer, frozenset()) if opens else frozenset()
            if words and words[0] in _THIRD_PERSON:
                who = next((s - {writer} for s in reversed(subjects) if s - {writer, "family"}), frozenset())
            subjects.append(who)
            clauses.append((who, _tokens(clause)))
    for part, ours in parts:
        if not any(who and _compatible(ours, who) for who, _ in clauses):
            continue  # the turn gives them no clause of their own
        for word in _content(_tokens(part)):
            if (
                word in GENERIC
                or word in people
                or word in _RELATIONS
                or _DAY_WORD.fullmatch(word)
                or word[0].isdigit()
            ):
                continue
            holders = [who for who, tokens in clauses if _held(word, tokens)]
            if holders and all(who and "family" not in who and not _compatible(ours, who) for who in holders):
                return f"the turn says {word!r} of {' and '.join(sorted(holders[0]))}, not {' and '.join(sorted(ours))}"
    return None


def _kin_of(clause: str) -> dict[str, str]:
    """The names a clause uses only to say whose relative someone is: ``{"marco": "brother"}``
    for "marco's brother pablo ...", not for "marco's coeliac" or "marco and his brother"."""
    folded = normalise_for_match(clause).replace("’", "'")
    kin: dict[str, str] = {}
    spans = []
    for m in re.finditer(r"\b([^\W\d_][\w-]*)'s ([\w-]+)(?: ([\w-]+))?", folded):
        relation = next((w for w in m.groups()[1:] if w in _RELATIONS), None)  # "little brother"
        if relation:
            kin.setdefault(m.group(1), relation)
            spans.append((m.start(), m.end()))
    rest = "".join(c if not any(a <= i < b for a, b in spans) else " " for i, c in enumerate(folded))
    named_alone = set(_raw_words(rest))
    return {name: relation for name, relation in kin.items() if name not in named_alone}


def _compatible(ours: frozenset[str], theirs: frozenset[str]) -> bool:
    """Some person in common (the household counts as everyone in it)."""
    for a in ours:
        for b in theirs:
            if a == b or "family" in (a, b):
                return True

    return False
