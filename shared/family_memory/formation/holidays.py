"""Holidays a summary names and the conversation does not (part of the support check,
``formation/support.py``; DESIGN invariant 2, issue 10 section 2).

A holiday is a date the family acts on, and its name is several words the word check reads one
by one: "from Christmas Eve until New Year's Day" for "christmas eve and stopping till stephen's
day" adds "new" and "year", both generic, and drops "stephen", a name. This module reads each
holiday a text names, in English and in the family's own words ("Noche Buena" and "Heiligabend"
are Christmas Eve, "Hogmanay" and "Silvester" New Year's Eve, "Nadolig" Christmas, "Tết" the
Lunar New Year), as one holiday, and

- refuses a summary that names a holiday the conversation does not, where the cited turns name
  another one ("New Year's Eve dinner (Noche Buena)" when Noche Buena is Christmas Eve);
- lends the English words of the turns' holidays to the word check, so "Hogmanay (New Year's
  Eve)" and "the school Christmas show (sioe Nadolig)" are the turns' own words.

Read conservatively: "New Year" alone is either New Year's Eve or Day, "Christmas" holds
Christmas Day and (for the season: "over Christmas") Eve, and a summary holiday the turns give
no holiday for (a date resolved to "Christmas Day") is the date check's business. Lexical and
deterministic: no model call in Lambda.
"""

from __future__ import annotations

import re
import unicodedata

#: Each holiday: its English words (lent to the word check) and the ways families name it.
_HOLIDAYS: dict[str, tuple[str, str]] = {
    "christmas eve": (
        "christmas eve",
        "christmas eve, xmas eve, noche buena, nochebuena, heiligabend, wigilia, vespera de natal, noite de natal, "
        "la vigilia di natale, reveillon de noel, oiche nollag",
    ),
    "christmas": (
        "christmas",
        "christmas, christmas day, xmas, xmas day, navidad, natal, weihnachten, pasko, krismasi, nadolig, "
        "nollaig, lá nollag, la nollag, kerstmis, kerst, boze narodzenie",
    ),
    "boxing day": (
        "boxing day stephen's day",
        "boxing day, stephen's day, st stephen's day, st. stephen's day, wren day",
    ),
    "new year's eve": (
        "new year's eve",
        "new year's eve, new years eve, new year eve, nye, hogmanay, nochevieja, silvester, media noche, "
        "oiche chinn bliana",
    ),
    "new year's day": ("new year's day", "new year's day, new years day, new year day, ne'erday, año nuevo, ano nuevo"),
    "new year": ("new year", "new year, new year's, new years"),
    "lunar new year": (
        "lunar new year",
        "lunar new year, chinese new year, cny, tet, seollal, spring festival, chun jie, chunjie",
    ),
    "easter": ("easter", "easter, easter sunday, pascoa, pascua, paques, ostern, wielkanoc, pasg"),
    "good friday": ("good friday", "good friday"),
    "easter monday": ("easter monday", "easter monday"),
    "thanksgiving": ("thanksgiving", "thanksgiving, friendsgiving"),
    "halloween": ("halloween", "halloween, hallowe'en, samhain"),
    "diwali": ("diwali", "diwali, deepavali, deepawali"),
    "holi": ("holi", "holi"),
    "eid": ("eid", "eid, eid al-fitr, eid ul-fitr, eid al-adha, eid ul-adha, bakri eid, hari raya, bayram"),
    "ramadan": ("ramadan", "ramadan, ramzan, ramadhan"),
    "hanukkah": ("hanukkah", "hanukkah, chanukah, hanukah"),
    "passover": ("passover", "passover, pesach"),
    "rosh hashanah": ("rosh hashanah", "rosh hashanah, rosh hashana"),
    "yom kippur": ("yom kippur", "yom kippur"),
    "mother's day": ("mother's day", "mother's day, mothers day, mothering sunday"),
    "father's day": ("father's day", "father's day, fathers day"),
    "valentine's day": ("valentine's day", "valentine's day, valentines day, valentine's, valentines"),
    "st patrick's day": ("st patrick's day", "st patrick's day, st. patrick's day, paddy's day, patrick's day"),
    "bonfire night": ("bonfire night", "bonfire night, guy fawkes night, guy fawkes"),
    "independence day": ("independence day", "independence day, fourth of july, 4th of july, july 4th, july fourth"),
    "canada day": ("canada day", "canada day"),
    "australia day": ("australia day", "australia day"),
    "anzac day": ("anzac day", "anzac day"),
    "memorial day": ("memorial day", "memorial day"),
    "labor day": ("labor day", "labor day, labour day"),
    "crop over": ("crop over", "crop over, cropover"),
}


def _plain(text: str) -> str:
    folded = unicodedata.normalize("NFKD", text.lower().replace("’", "'"))
    return "".join(c for c in folded if not unicodedata.combining(c))


_FORMS: dict[str, str] = {
    _plain(form.strip()): name for name, (_, forms) in _HOLIDAYS.items() for form in forms.split(",") if form.strip()
}
_FORM = re.compile(
    r"(?<![\w'])(" + "|".join(re.escape(f) for f in sorted(_FORMS, key=len, reverse=True)) + r")(?![\w'])"
)
#: What a holiday name also covers: "New Year" is either end of it, "Christmas" the season.
_COVERS: dict[str, frozenset[str]] = {
    "new year": frozenset({"new year's eve", "new year's day", "new year"}),
    "christmas": frozenset({"christmas", "christmas eve"}),
    "easter": frozenset({"easter", "good friday", "easter monday"}),
}


def holidays(text: str) -> set[str]:
    """The holidays a text names, each by its English name ("hogmanay" -> "new year's eve")."""
    return {_FORMS[m.group(1)] for m in _FORM.finditer(_plain(text))}


def english_words(text: str) -> list[str]:
    """The English words of the holidays a text names, for the word check's pool ("no natal a
    ceia é na noite do dia 24": Christmas, and its Eve)."""
    names = holidays(text)
    words = [w for name in names for w in re.findall(r"[a-z']+", _HOLIDAYS[name][0])]
    if "christmas" in names and re.search(r"\b24\b", text):
        words.append("eve")
    return words


def _compatible(ours: str, theirs: str) -> bool:
    return ours == theirs or ours in _COVERS.get(theirs, ()) or theirs in _COVERS.get(ours, ())


def holiday_problem(summary: str, cited_text: str, conversation: str = "") -> str | None:
    """Why a holiday the summary names is not the conversation's ("the turns say Christmas Eve,
    not New Year's Eve"), or None: only when the cited turns name a holiday and neither they nor
    the rest of the conversation name the summary's."""
    said = holidays(cited_text)
    if not said:
        return None
    anywhere = said | holidays(conversation)
    for ours in sorted(holidays(summary)):
        if not any(_compatible(ours, theirs) for theirs in anywhere):
            return f"the turns say {' and '.join(sorted(said))}, not {ours}"
    return None
