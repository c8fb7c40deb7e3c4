"""Who a clause is about, for the offline extractor.

A clause's subject is one of: the speaker ("I"), the household ("we"), a relation
("my daughter", "our dog Pepper"), a member of the household by any of their
names, or a person the conversation names. A capitalised word at the start of a
sentence is not a name by itself ("Sounds great", "Looks like", "Moments like
these"): it is a name only when it is a member's, when the conversation
introduced it ("my sister Hoa", "Hoa is my sister", "Dr Osei") or when it is
written with a capital in the middle of a sentence somewhere in the session.

Pronouns ("she's allergic to kiwi too", "his echo is the 12th") resolve to the
person the turn, or the nearest turn before it that names anyone, is about:
when exactly one person fits (a "she" cannot be someone the family called "my
son"), that person; otherwise the claim is not formed. "They", "it", "that"
never resolve.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from family_memory.domain.entity import EntityKind
from family_memory.domain.family import FamilySettings, MemberRole
from family_memory.domain.text import normalise_for_match
from family_memory.domain.transcript import Role, Transcript, Turn
from family_memory.formation.candidate import EntityHint
from family_memory.formation.relations import CHILD_RELATIONS, PETS, RELATION_WORDS

REL = "|".join(sorted((re.escape(r) for r in RELATION_WORDS), key=len, reverse=True))
NAME = r"[A-ZÀ-Þ][a-zß-ÿ]+(?:-[A-ZÀ-Þa-zß-ÿ]+)?"
#: Words that start sentences and are never anybody's name.
NOT_NAMES = frozenset(
    """I The This That These Those There Here We Our My Your Please Also And But So It Its Oh Ok Okay Yes No Hi Hello
    Hey Thanks Thank Just Remember Note Btw Fyi Monday Tuesday Wednesday Thursday Friday Saturday Sunday Today
    Tonight Tomorrow Next Every Always Never Don't Dont Do Does Did From Going In On At For With Can Could Would
    Will What When Where Who How Why Is Are Was Were Let Let's Sure Great Perfect Sounds Looks Seems Moments Moment
    Nothing Something Everything Anything Everyone Someone Anyone Nobody Somebody Both All Some Any Each Lol Haha
    Omg Ugh Hmm Yeah Yep Nah Wait Well Maybe Probably Honestly Actually Really Right Cool Nice Love Lovely Good Bad
    Best Happy Sorry Not Now Then After Before Since Until If Or Off Out Up Down Over Under He She They Him Her His
    Hers Them Their Me Mine You Yours Us Ours A An Of To By As Into About Like Than Only Even Still Already Again
    January February March April May June July August September October November December Jan Feb Mar Apr Jun Jul
    Aug Sep Sept Oct Nov Dec Mom Mum Dad Mam Grandma Grandpa Morning Afternoon Evening Night Week Weekend Month
    Year Pls Plz Thx Ty Bday Birthday Christmas Easter Eid Diwali Ramadan School Kita Home Work Dinner Lunch
    Breakfast Party Got Get Had Have Has Need Needs Want Wants Make Made Take Took Went Go Goes Come Came Call Book
    Check Send Tell Ask Add Put Keep Give Bring Pick Drop Plan Help Remind Thinking Hope Hoping Wow Yay Aww Ah Ahh
    Um Umm Fine Fun Busy Tired Done Booked Found Landed Moved Changed Starting Started Confirmed Quick Big Small
    Little New Old First Last Second Third One Two Three Four Five Six Seven Eight Nine Ten Yet Either Another
    Other Same Such Much Many Most More Less Few Lot Lots Dear Dearest Hun Babe Anyway Anyways Btw Fyi Tbh Idk
    Imo Ps Update Reminder Note Also Plus Shall Should Must Might Mine Okie Kk Alright Absolutely Definitely""".split()  # noqa: SIM905
)
FEMALE = frozenset(
    """daughter girl mom mum mam mother wife sister grandma grandmother granny aunt niece stepdaughter nan gran nana
    mummy""".split()  # noqa: SIM905
)
MALE = frozenset("son boy dad father husband brother grandpa grandfather uncle nephew stepson".split())  # noqa: SIM905
#: Words a family uses as the name of a relative ("dad drives me", "Abuela has dialysis"), and
#: whether they are a parent (who is a member, or no one the extractor can name) or someone else.
KIN: dict[str, str] = {
    "dadaji": "m",
    "dadi": "f",
    "nani": "f",
    "nanaji": "m",
    "halmeoni": "f",
    "harabeoji": "m",
    "abuela": "f",
    "abuelo": "m",
    "oma": "f",
    "opa": "m",
    "grandma": "f",
    "grandpa": "m",
    "granny": "f",
    "gran": "f",
    "nan": "f",
    "nonna": "f",
    "nonno": "m",
    "lola": "f",
    "lolo": "m",
    "babcia": "f",
    "dziadek": "m",
}
PARENTS: dict[str, str] = {
    "mum": "f",
    "mom": "f",
    "mam": "f",
    "mummy": "f",
    "mommy": "f",
    "mama": "f",
    "mother": "f",
    "dad": "m",
    "daddy": "m",
    "papa": "m",
    "father": "m",
    "baba": "m",
}
PRONOUNS = {
    "she": "f",
    "she's": "f",
    "she'll": "f",
    "she'd": "f",
    "her": "f",
    "hers": "f",
    "he": "m",
    "he's": "m",
    "he'll": "m",
    "he'd": "m",
    "him": "m",
    "his": "m",
}
#: Words standing for someone the extractor never resolves ("they", "it", "that").
OPAQUE = frozenset(
    "they they're they'll they'd them their theirs it it's its itll that that's this these those there".split()  # noqa: SIM905
)


@dataclass(frozen=True)
class Subject:
    """Who a clause is about."""

    kind: str  # speaker | household | member | person | relation | pet
    display: str  # how a summary names them: "Lucía", "The family", "Maya", "Lucía's daughter"
    applies_to: tuple[str, ...]
    hint: EntityHint | None = None
    about_member: str | None = None
    gender: str | None = None  # "f", "m" or unknown
    #: A member, a relation or a name the conversation introduced; not just a capitalised word.
    sure: bool = True

    @property
    def label(self) -> str:
        """How an ``about`` line names them, mid-sentence."""
        return "the family" if self.kind == "household" else self.display

    @property
    def key(self) -> str:
        return normalise_for_match(self.applies_to[0] if self.applies_to else self.display)

    @property
    def child(self) -> bool:
        return bool(self.hint and self.hint.relationship in CHILD_RELATIONS)


def _gender(rel: str | None) -> str | None:
    if rel is None:
        return None
    rel = rel.lower()
    return "f" if rel in FEMALE else "m" if rel in MALE else None


_CAPITALISED = re.compile(rf"(?<![.!?:]\s)(?<!^)(?<=\s)(?P<name>{NAME})\b")
_TITLED = re.compile(
    rf"\b(?:(?i:dr|mr|mrs|ms|miss|tía|tia|tío|tio)\.?\s+(?P<name>[^\W\d_][\w-]+)"
    rf"|(?i:doctor|coach|aunt|auntie|uncle|nurse|teacher)\s+(?P<capital>{NAME}))"
)
_TITLES = frozenset("dr mr mrs ms miss tía tia tío tio auntie aunt uncle coach nana oma opa".split())  # noqa: SIM905
#: Words after a title that are not a name ("dr said", "mrs is").
_NOT_AFTER_TITLE = frozenset(
    """said says told is was has had wants thinks and or appointment appt visit on at in the a who
    will would can""".split()  # noqa: SIM905
)
_CALENDAR = re.compile(
    r"^(?:(?:mon|tues|wednes|thurs|fri|satur|sun)days?|jan(?:uary)?|feb(?:ruary)?|march|april|may|june|july|"
    r"aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?|weekends?|weekdays?)$",
    re.I,
)
_POSSESSIVE_RELATION = re.compile(rf"\b(?P<owner>[^\W\d_][\w-]+)['’]s\s+(?P<rel>(?i:{REL}))\b(?:\s+(?P<name>{NAME}))?")
#: he, she, him, her, his (and "he's", "she'll") in a clause's words.
_PERSONAL = re.compile(r"\b(?P<p>he|she|him|her|his|hers)(?P<c>['’](?:s|ll|d))?\b", re.I)
_POSSESSIVE_FOLLOWS = re.compile(
    r"^\s+(?!with\b|to\b|at\b|in\b|on\b|for\b|from\b|alone\b|up\b|off\b|out\b|down\b|back\b|home\b|a\b|an\b|"
    r"the\b|any\b|anything\b|know\b|yet\b|until\b|till\b|before\b|after\b|and\b|or\b|too\b|either\b|"
    r"about\b|over\b|round\b|around\b|there\b|here\b|that\b|this\b|tomorrow\b|tonight\b|today\b|every\b|"
    r"each\b|(?:mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)(?:day)?s?\b|tmrw\b|next\b|later\b|now\b|again\b)[a-z]",
    re.I,
)
_RELATION_NAMED = re.compile(rf"\b(?i:my|our)\s+(?P<rel>(?i:{REL}))\s+(?P<name>{NAME})\b")
_NAMED_RELATION = re.compile(rf"\b(?P<name>{NAME})\s+(?i:is)\s+(?i:my|our)\s+(?P<rel>(?i:{REL}))\b")
_WORD = re.compile(r"[\w’'-]+", re.UNICODE)
_PLACE_BEFORE = re.compile(r"\b(?:on|in|at|from|near|into|onto|via|off|the|a|an)\s+$", re.I)
_REPORTER_AFTER = re.compile(r"[\w'’-]*\s+(?:said|says|told|tells|thinks|reckons|wants)\b", re.I)
_CLAUSE_OPENING = re.compile(r"(?:^|[.!?;]\s*|,\s*(?:and|but|so)\s+|\b(?:and|but|so|also|plus)\s+)\s*$", re.I)


class People:
    """The household and the people one conversation names, and whom its pronouns mean."""

    def __init__(self, transcript: Transcript, family: FamilySettings) -> None:
        self.family = family
        self.transcript = transcript
        self._members: dict[str, str] = {}
        for member in family.members:
            for name in (member.name, member.name.split()[0], member.address_as, member.id):
                if name:
                    self._members.setdefault(normalise_for_match(name), member.id)
        #: Names introduced in this conversation, lower case -> the subject they stand for.
        self._named: dict[str, Subject] = {}
        #: Capitalised words written mid-sentence somewhere in the conversation.
        self._capitalised: set[str] = set()
        #: ... of those, the ones written alone (not part of "Lee Driving School").
        self._single: set[str] = set()
        self.genders: dict[str, str] = {}
        for turn in transcript.turns:
            if turn.role is Role.TOOL:
                continue
            for m in _CAPITALISED.finditer(turn.text):
                name = m.group("name")
                if name not in NOT_NAMES and name.lower() not in RELATION_WORDS and not _CALENDAR.match(name):
                    self._capitalised.add(name)
                    before = [
                        w for w in turn.text[: m.start()].rstrip().split()[-1:] if w.lower().strip(".") not in _TITLES
                    ]
                    after = turn.text[m.end() :].lstrip().split()[:1]
                    if not any(w[:1].isupper() for w in before + after):
                        self._single.add(name)  # "Finn", not "Lee Driving School"

    # --- the household --------------------------------------------------------------

    def speaker_name(self, member_id: str) -> str:
        member = self.family.member(member_id)
        if member is not None:
            return member.name.split()[0]
        return member_id[:1].upper() + member_id[1:]

    def speaker_full_name(self, member_id: str) -> str:
        member = self.family.member(member_id)
        return member.name if member is not None else self.speaker_name(member_id)

    def member_named(self, name: str) -> str | None:
        return self._members.get(normalise_for_match(name))

    def is_child(self, member_id: str) -> bool:
        member = self.family.member(member_id)
        return member is not None and member.role is MemberRole.CHILD

    def speaker(self, member_id: str) -> Subject:
        return Subject("speaker", self.speaker_name(member_id), (member_id,), None, member_id)

    def member(self, member_id: str, as_written: str | None = None) -> Subject:
        name = self.speaker_name(member_id)
        hint = EntityHint(name=self.speaker_full_name(member_id), member_id=member_id)
        return Subject("member", name, (member_id,), hint, None, self.genders.get(member_id))

    # --- people the conversation names ------------------------------------------------

    def relation(self, speaker: str, rel: str, name: str | None, determiner: str) -> Subject:
        rel = rel.lower()
        alias = f"{determiner.lower()} {rel}"
        member_id = self.member_named(name) if name else None
        if rel in PETS:
            kind = EntityKind.PET
            display = name or f"The family's {rel}"
        else:
            kind = EntityKind.PERSON
            display = (self.speaker_name(member_id) if member_id else name) or f"{self.speaker_name(speaker)}'s {rel}"
        hint = EntityHint(name=name or display, kind=kind, aliases=[alias], relationship=rel, member_id=member_id)
        gender = _gender(rel)
        subject = Subject(
            "pet" if rel in PETS else "relation", display, (member_id or name or alias,), hint, None, gender
        )
        if member_id and gender:
            self.genders.setdefault(member_id, gender)
        return subject

    def learn(self, turn: Turn) -> None:
        """Names a user turn introduces: "my sister Hoa", "Hoa is my sister", "Dr Osei"."""
        if turn.member_id is None:
            return
        for pattern in (_RELATION_NAMED, _NAMED_RELATION):
            for m in pattern.finditer(turn.text):
                name = m.group("name")
                if name in NOT_NAMES:
                    continue
                determiner = "our" if " our " in f" {m.group(0).lower()} " else "my"
                subject = self.relation(turn.member_id, m.group("rel"), name, determiner)
                self._named.setdefault(name.lower(), subject)
        for m in _TITLED.finditer(turn.text):
            name = m.group("name") or m.group("capital")
            if name.lower() in _NOT_AFTER_TITLE:
                continue
            if name.capitalize() not in NOT_NAMES and not _CALENDAR.match(name):
                self._named.setdefault(name.lower(), self._person(name[:1].upper() + name[1:]))

    def _person(self, name: str, *, sure: bool = True) -> Subject:
        member_id = self.member_named(name)
        if member_id:
            return self.member(member_id)
        return Subject("person", name, (name,), EntityHint(name=name), sure=sure)

    @staticmethod
    def kin(word: str) -> Subject | None:
        """A relative called by what they are to the family: "Abuela", "dadaji", "dad"."""
        low = word.lower().replace("’", "'").removesuffix("'s")
        if low in KIN:
            name = low[:1].upper() + low[1:]
            return Subject("relation", name, (name,), EntityHint(name=name, relationship=low), None, KIN[low])
        if low in PARENTS:
            # A parent is a member the extractor cannot tell apart, or someone outside: no entity.
            return Subject("relation", low[:1].upper() + low[1:], (), None, None, PARENTS[low])
        return None

    def named(self, word: str, *, initial: bool, loose: bool = True, lower_loose: bool = False) -> Subject | None:
        """The person ``word`` names, if it is a name: a member's, one introduced in this
        conversation, a relative's kin name, or (``loose``) a capitalised word the conversation
        writes mid-sentence. At the start of a sentence a capital alone does not make a name.
        ``lower_loose``: also such a word written in lower case ("finn" for "Finn")."""
        clean = word.replace("’", "'")
        if clean.lower().endswith("'s"):
            clean = clean[:-2]
        if not clean:
            return None
        member_id = self.member_named(clean)
        if member_id:
            return self.member(member_id)
        if clean.lower() in self._named:
            return self._named[clean.lower()]
        if (kin := self.kin(clean)) is not None:
            return kin
        if not loose or clean.capitalize() in NOT_NAMES or clean.lower() in RELATION_WORDS or _CALENDAR.match(clean):
            return None
        if re.fullmatch(NAME, clean) and clean in self._capitalised:
            return self._person(clean, sure=False)
        if lower_loose and clean.islower() and clean.capitalize() in self._single:
            return self._person(clean.capitalize(), sure=False)
        return None

    def mentions(self, text: str, speaker: str | None) -> list[Subject]:
        """The people ``text`` names, in order (the speaker left out), loose names included."""
        return [s for _, s in self._mentions_at(text, speaker)]

    def _mentions_at(self, text: str, speaker: str | None) -> list[tuple[int, Subject]]:
        found: list[tuple[int, Subject]] = []
        taken: list[tuple[int, int]] = []
        for m in _POSSESSIVE_RELATION.finditer(text):
            owner = self.named(m.group("owner"), initial=False, lower_loose=True)
            if owner is None or m.group("rel").lower() in PETS:
                continue
            name = m.group("name") if m.group("name") not in NOT_NAMES else None
            named = self.named(name, initial=False) if name else None
            rel = m.group("rel").lower()
            display = name or f"{owner.display}'s {rel}"
            subject = named or Subject(
                "relation",
                display,
                (name or f"{owner.display}'s {rel}",),
                EntityHint(name=display, aliases=[f"{owner.display}'s {rel}"], relationship=rel),
                None,
                _gender(rel),
            )
            found.append((m.start(), subject))
            taken.append(m.span())
        for m in re.finditer(rf"\b(?P<det>(?i:my|our))\s+(?P<rel>(?i:{REL}))(?:\s+(?P<name>{NAME}))?\b", text):
            name = m.group("name")
            if name in NOT_NAMES:
                name = None
            if m.group("rel").lower() in PETS:
                continue
            known = self.named(name, initial=False) if name else None
            found.append((m.start(), known or self.relation(speaker or "", m.group("rel"), name, m.group("det"))))
            taken.append(m.span())
        words = list(_WORD.finditer(text))
        for i, m in enumerate(words):
            if any(a <= m.start() < b for a, b in taken):
                continue
            initial = m.start() == 0 or bool(re.search(r"[.!?]\s*$", text[: m.start()]))
            word = self.named(m.group(0), initial=initial, lower_loose=True)
            if (appositive := self._kin_and_name(word, text, m, words[i + 1 : i + 2])) is not None:
                # "their dad sven", "her nan Joan": one person, called by kin word and name.
                found.append((m.start(), appositive))
                taken.append((m.start(), words[i + 1].end()))
                continue
            if word is not None and not word.sure and _PLACE_BEFORE.search(text[: m.start()]):
                continue  # "at the rec center on Alder", "at Niagara Heart": a place, not a person
            if word is not None and not word.sure and word.display not in self._single:
                continue  # "Jump Jump", "Little Oak": part of a longer name, a place or a business
            if word is not None and not (speaker and word.applies_to == (speaker,)):
                found.append((m.start(), word))
        return sorted(found, key=lambda pair: pair[0])

    def _kin_and_name(
        self, kin: Subject | None, text: str, word: re.Match[str], after: list[re.Match[str]]
    ) -> Subject | None:
        """The person a kin word and the name right after it stand for ("their dad sven"): the
        name, as sure as the family's own "my dad Stan", with the kin word's gender."""
        if kin is None or kin.kind != "relation" or not after or text[word.end() : after[0].start()].strip():
            return None
        name = after[0].group(0)
        person = self.named(name, initial=False, lower_loose=True)
        if person is None or person.kind not in ("person", "member") or self.kin(name) is not None:
            return None
        if person.kind == "member":
            return person
        return Subject("person", person.display, person.applies_to, person.hint, None, kin.gender, sure=True)

    def _antecedents(self, text: str, speaker: str | None, gender: str) -> list[Subject]:
        """Who in ``text`` a later "she" (or "he") can mean: the people named before the text's
        own first "she". When the text already says "she" before naming anyone, its "she" leans
        on something earlier still, and so does ours: the text names no antecedent."""
        first = next(
            (m.start() for m in _PERSONAL.finditer(text) if PRONOUNS.get(m.group("p").lower()) == gender), None
        )
        # "dr oh said no baked egg until he's retested": whoever says it is not whom it is about.
        found = [(at, s) for at, s in self._mentions_at(text, speaker) if not _REPORTER_AFTER.match(text, at + 1)]
        if first is None:
            return [s for _, s in found]
        pronoun = _PERSONAL.match(text, first)
        if (
            pronoun
            and pronoun.group("p").lower() in ("him", "her")
            and not _POSSESSIVE_FOLLOWS.match(text[pronoun.end() :])
        ):
            # "luis takes her to dialysis": her is not Luis, so Luis is no antecedent of the chain.
            opening = max((m.end() for m in re.finditer(r"[.!?;,]\s*", text[:first])), default=0)
            found = [(at, s) for at, s in found if not (opening <= at < first)]
        # After the text's own "she", only someone who opens a clause ("... and sofi is allergic")
        # can be a new antecedent; "never in luis's truck" leaves the "she" where it was.
        return [s for at, s in found if at < first or _CLAUSE_OPENING.search(text[:at])]

    def named_before(self, turn: Turn, before: int) -> list[Subject]:
        """The people (not pets, not the speaker) the turn names before ``before``, once each."""
        found = [s for s in self.mentions(turn.text[:before], turn.member_id) if s.kind != "pet"]
        return list({s.key: s for s in found}.values())

    def resolve(self, pronoun: str, turn: Turn, before: int, exclude: frozenset[str] = frozenset()) -> Subject | None:
        """The one person ``pronoun`` (he, she, his, her, him) can mean at ``before`` in ``turn``:
        the people named earlier in the turn, else in the nearest turn before that names anyone."""
        gender = PRONOUNS.get(normalise_for_match(pronoun).replace("’", "'"))
        if gender is None:
            return None
        speaker = turn.member_id

        def fitting_in(found: list[Subject]) -> list[Subject]:
            return [s for s in found if s.key not in exclude]

        candidates = fitting_in(self._antecedents(turn.text[:before], speaker, gender))
        if not candidates:
            # The family's own earlier words; of the assistant's, only the question the turn answers
            # (it names whoever it talks to, so never further back).
            index = next((i for i, t in enumerate(self.transcript.turns) if t.n == turn.n), 0)
            for back, previous in enumerate(reversed(self.transcript.turns[max(0, index - 6) : index])):
                if previous.role is Role.TOOL or (previous.role is Role.ASSISTANT and back > 0):
                    continue
                candidates = fitting_in(self._antecedents(previous.text, speaker, gender))
                if candidates:
                    break
        fitting = {s.key: s for s in candidates if s.gender in (None, gender) and (s.kind != "pet" or s.sure)}
        if len(fitting) != 1:
            return None  # nobody, or more than one person it could be
        [who] = fitting.values()
        return who if who.sure else None

    def earlier_referents(self, text: str, turn: Turn, offset: int) -> list[Turn]:
        """The earlier user turns that the object pronouns of ``text`` (at ``offset`` in ``turn``)
        lean on: "luis takes her mon and wed" after "abuela has dialysis ... somebody has to drive
        her" leans on that turn. A "him" or "her" the turn itself names someone for leans on
        nothing earlier; nor does a possessive ("her bag") or a subject ("she loves it")."""
        found: list[Turn] = []
        index = next((i for i, t in enumerate(self.transcript.turns) if t.n == turn.n), 0)
        for m in _PERSONAL.finditer(text):
            word = m.group("p").lower()
            if word not in ("him", "her") or _POSSESSIVE_FOLLOWS.match(text[m.end() :]):
                continue
            gender = PRONOUNS[word]
            # An object is never its own clause's subject: "luis takes her" is not Luis.
            own = {s.key for s in self.mentions(text[: m.start()], turn.member_id)}

            def fitting(found: list[Subject], gender: str = gender, own: set[str] = own) -> list[Subject]:
                return [s for s in found if s.key not in own and s.gender in (None, gender)]

            if fitting(self._antecedents(turn.text[: offset + m.start()], turn.member_id, gender)):
                continue
            for back, previous in enumerate(reversed(self.transcript.turns[max(0, index - 6) : index])):
                if previous.role is Role.TOOL or (previous.role is Role.ASSISTANT and back > 0):
                    continue
                if fitting(self._antecedents(previous.text, turn.member_id, gender)):
                    if previous.role is Role.USER:
                        found.append(previous)
                    break
        return found

    def subject(
        self, core: str, turn: Turn, clause_start: int, predicate: re.Pattern[str] | None = None
    ) -> tuple[Subject, str] | None:
        """Who the clause is about and the rest of the clause after the subject. ``predicate``:
        what a person is said to be or do ("is allergic to", "loves"); a capitalised word the
        conversation has not introduced is taken for a name only when that follows it: "Leo
        loves swimming", never "Sounds great" or "Looks like rain"."""
        speaker = turn.member_id or ""
        if match := re.match(r"(?i:i)(?=['’\s])|(?i:im)(?=\s)", core):
            rest = core[match.end() :]
            if match.group(0).lower() == "im":
                rest = " am" + rest
            return self.speaker(speaker), rest
        if match := re.match(r"(?i:we)(?=['’\s])|(?i:(?:the|our)\s+(?:whole\s+)?(?:family|household))(?=\s)", core):
            return Subject("household", "The family", ()), core[match.end() :]
        if match := re.match(
            r"(?i:(?:the|our|my|both|all\s+the|all\s+our)\s+(?:kids|children|boys|girls|twins))(?=\s)", core
        ):
            return Subject("group", match.group(0)[:1].upper() + match.group(0)[1:], ()), core[match.end() :]
        if match := re.match(rf"(?P<det>(?i:my|our))\s+(?P<rel>(?i:{REL}))(?:\s+(?P<name>{NAME}))?(?=['’\s,]|$)", core):
            rel_name: str | None = match.group("name")
            end = match.end()
            if rel_name in NOT_NAMES:
                rel_name, end = None, match.end("rel")
            named = self.named(rel_name, initial=False) if rel_name else None
            subject = self.relation(speaker, match.group("rel"), rel_name, match.group("det"))
            if named is not None and named.kind == "member":
                subject = Subject(
                    "member", named.display, named.applies_to, subject.hint, None, subject.gender or named.gender
                )
            return subject, core[end:]
        if match := re.match(r"(?P<p>(?i:she|he))(?=['’\s])", core):
            who = self.resolve(match.group("p"), turn, clause_start)
            return (who, core[match.end() :]) if who else None
        if match := re.match(r"(?P<p>(?i:her|his))\s+", core):
            who = self.resolve(match.group("p"), turn, clause_start)
            return (who, "'s " + core[match.end() :]) if who else None
        if match := re.match(r"(?P<name>[^\W\d_][\w-]*)(?:\s+(?P<ji>(?i:ji)))?(?=['’\s])", core):
            found = self.named(match.group("name"), initial=True, lower_loose=True)
            name = match.group("name")
            if (
                found is None
                and predicate is not None
                and re.fullmatch(NAME, name)
                and name not in NOT_NAMES
                and name.lower() not in RELATION_WORDS
                and not _CALENDAR.match(name)
                and predicate.match(core[match.end() :])
            ):
                found = self._person(name, sure=False)
            if found is None:
                return None
            subject = found
            if match.group("ji") and subject.kind == "relation":
                # "Mummy ji", "Papa ji": the honorific is part of how the family calls them.
                subject = Subject(
                    "relation", f"{subject.display} ji", subject.applies_to, subject.hint, None, subject.gender
                )
            return subject, core[match.end() :]
        return None

    def name_pronouns(
        self,
        text: str,
        turn: Turn,
        offset: int,
        subject: Subject | None = None,
        exclude: frozenset[str] = frozenset(),
    ) -> tuple[str, list[Subject]] | None:
        """``text`` (at ``offset`` in the turn) with he/she/him/her/his replaced by the one person
        each means, or None when one points nowhere certain, or at "a 13 year old" before it (a
        saying, not about anyone)."""
        resolved: list[Subject] = []
        out: list[str] = []
        cursor = 0
        for m in _PERSONAL.finditer(text):
            if re.search(r"\b(?:a|an)\s+\w+", text[: m.start()], re.I):
                return None
            word = m.group("p").lower()
            contraction = (m.group("c") or "").lower().replace("’", "'")
            possessive = word in ("his", "hers") or (word == "her" and bool(_POSSESSIVE_FOLLOWS.match(text[m.end() :])))
            # "luis takes her to dialysis", "only me or Tom can pick him up": an object is never
            # the clause's own subject.
            subjects = exclude | ({subject.key} if subject is not None else set())
            objective = word in ("him", "her") and not possessive
            who = self.resolve(m.group("p"), turn, offset + m.start(), subjects if objective else frozenset())
            if who is None:
                return None
            resolved.append(who)
            if possessive:
                replacement = f"{who.display}'s"
            elif contraction == "'s":
                replacement = f"{who.display} is"
            elif contraction == "'ll":
                replacement = f"{who.display} will"
            elif contraction == "'d":
                replacement = f"{who.display} would"
            else:
                replacement = who.display
            out.append(text[cursor : m.start()] + replacement)
            cursor = m.end()
        out.append(text[cursor:])
        return "".join(out), resolved
