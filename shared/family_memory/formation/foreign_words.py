"""Words of another language in the cited turns (part of the support check, ``support.py``).

Four rules, all lexical and deterministic:

1. **Calendar words in other languages.** ``CALENDAR`` is a table of weekday, month,
   today/tomorrow/yesterday and (unambiguous) part-of-day words in Spanish, Portuguese,
   French, Italian, German, Tagalog, Swahili, romanised Hindi/Urdu, Polish, Vietnamese (with or without tone marks) and
   Indonesian/Malay, to their English words. ``english_calendar`` rewrites a turn's text with
   them, so the calendar check (``calendar_values.said``) reads "jumanne" as Tuesday and "kesho"
   as tomorrow, and still refuses "Thursday" for "martes". Words that are also another thing
   (``AMBIGUOUS``: Tagalog "linggo" and Indonesian "minggu" are Sunday or "week", "bukas" is
   tomorrow or "open", "mayo" May or mayonnaise, "leo" today or a name) count only in a
   calendar context: after "sa", "tuwing", "on", "every", "hari", "kila", "w" ..., next to
   another weekday word, or before a part of the day; a count or "next/last week" phrase
   before "linggo"/"minggu" ("isang linggo", "susunod na linggo", "minggu depan") is a week.
2. **The family's word beside its translation.** A summary word directly followed by a
   parenthesised word or short phrase (at most three words, no digits) is a gloss: "allergic to
   shrimp (hipon)". When the turns hold every word in the parenthesis, the head word counts as
   held. A gloss none of whose words is English and which the turns do not hold is refused
   ("pineapples (mananasi)" for "maembe"), and so is one whose parenthesis is an English noun
   WordNet knows (``senses.py``) that the head is no synonym or kind of, whether or not the
   turns also say the head: "shrimp (crab)" for "allergic to crab, not shrimp" is a swap dressed
   as a translation, "peanuts (groundnuts)" is not. A parenthesis that names whose or who someone
   is (a possessive or a relation word: "Dadaji (Arjun's father)", "Maya (daughter)") is an
   apposition, not a gloss: the word check reads it as any other words.
   The parenthesis never covers a number, a date or a name: those are checked as before.
3. **Food, allergy and health words in other languages.** ``FOOD_AND_HEALTH`` gives the English
   words of the allergens, diets and conditions families name in their own language in the
   same eleven languages and Korean/Japanese romanised ("zöliakie" is coeliac, "hipon" shrimp,
   "maziwa" milk, "moongphali" peanuts). ``food_and_health_words`` lends those English words
   to the word check, so "Emil's coeliac check-up" is what "emil has his zöliakie check" says,
   and "peanuts" is still refused for "hipon". Only words that mean nothing else in English or
   in another listed language are in the table ("anda", Hindi egg, is Spanish "go"; "mani" is
   left out for the manicure).
4. **Frequency, scope and negation in other languages.** ``FREQUENCY_AND_SCOPE`` lends the
   English words for "every", "all", "always", "never", "only" and "daily" ("roz subah" is every
   morning, "har mahine" every month, "saare reminders" all the reminders, "kabhi ... mat" never)
   the same way, and ``NEGATORS`` / ``POSTPOSED_NEGATOR`` let the polarity reading see a
   negation said in Scots ("nae cranberry juice", "I cannae manage stairs") or Hindi ("pasand
   nahi").
Limits: the head is one word ("sweet potato (kamote)" covers "potato" only); the English head of
a gloss is not itself checked against a bilingual dictionary.
"""

from __future__ import annotations

import re
import unicodedata

from family_memory.formation import senses
from family_memory.formation.relations import RELATION_WORDS

_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_MONTHS = (
    "january february march april may june july august september october november december".split()  # noqa: SIM905
)

#: Per language: seven weekdays (Monday first; alternatives with "/"), twelve months, then
#: today, tomorrow, yesterday ("-" where the language uses the English word or none is listed).
_TABLE: dict[str, tuple[str, str, str]] = {
    "spanish": (
        "lunes martes miercoles jueves viernes sabado domingo",
        "enero febrero marzo abril mayo junio julio agosto septiembre/setiembre octubre noviembre diciembre",
        "hoy manana ayer",
    ),
    "portuguese": (
        "segunda-feira/segunda terca-feira/terca quarta-feira/quarta quinta-feira/quinta sexta-feira/sexta"
        " sabado domingo",
        "janeiro fevereiro marco abril maio junho julho agosto setembro outubro novembro dezembro",
        "hoje amanha ontem",
    ),
    "french": (
        "lundi mardi mercredi jeudi vendredi samedi dimanche",
        "janvier fevrier mars avril mai juin juillet aout septembre octobre novembre decembre",
        "aujourd'hui demain hier",
    ),
    "italian": (
        "lunedi martedi mercoledi giovedi venerdi sabato domenica",
        "gennaio febbraio marzo aprile maggio giugno luglio agosto settembre ottobre novembre dicembre",
        "oggi domani ieri",
    ),
    "german": (
        "montag dienstag mittwoch donnerstag freitag samstag/sonnabend sonntag",
        "januar februar marz/maerz april mai juni juli august september oktober november dezember",
        "heute morgen gestern",
    ),
    "tagalog": (
        "lunes martes miyerkules/miyerkoles huwebes biyernes sabado linggo",
        "enero pebrero/febrero marso abril mayo hunyo hulyo agosto setyembre/septiyembre oktubre nobyembre disyembre",
        "ngayon bukas kahapon",
    ),
    "swahili": (
        "jumatatu jumanne jumatano alhamisi ijumaa jumamosi jumapili",
        "januari februari machi aprili mei juni julai agosti septemba oktoba novemba desemba",
        "leo kesho jana",
    ),
    "hindi-urdu": (
        "somvar/peer mangalvar/mangal budhvar/budh guruvar/jumeraat shukravar/juma/jumma shanivar/hafta"
        " ravivar/itwar/itvar",
        "janvari farvari - aprail - joon julai agast sitambar aktubar navambar disambar",
        "aaj - -",
    ),
    "polish": (
        "poniedzialek/poniedzialki wtorek/wtorki sroda/srode/srody czwartek/czwartki piatek/piatki sobota/sobote/soboty"
        " niedziela/niedziele",
        "styczen/stycznia luty/lutego marzec/marca kwiecien/kwietnia maj/maja czerwiec/czerwca lipiec/lipca"
        " sierpien/sierpnia wrzesien/wrzesnia pazdziernik/pazdziernika listopad/listopada grudzien/grudnia",
        "dzis/dzisiaj jutro wczoraj",
    ),
    "vietnamese": (
        "thu_hai/thu_2 thu_ba/thu_3 thu_tu/thu_4 thu_nam/thu_5 thu_sau/thu_6 thu_bay/thu_7 chu_nhat",
        "thang_mot/thang_1 thang_hai/thang_2 thang_ba/thang_3 thang_tu/thang_4 thang_nam/thang_5 thang_sau/thang_6"
        " thang_bay/thang_7 thang_tam/thang_8 thang_chin/thang_9 thang_muoi/thang_10 thang_muoi_mot/thang_11"
        " thang_muoi_hai/thang_12",
        "hom_nay ngay_mai hom_qua",
    ),
    "indonesian-malay": (
        "senin/isnin selasa rabu kamis/khamis jumat/jumaat sabtu minggu/ahad",
        "januari februari maret/mac april mei juni juli agustus/ogos september oktober november desember/disember",
        "hari_ini besok/esok kemarin",
    ),
}


def _table() -> dict[str, str]:
    out: dict[str, str] = {}
    for days, months, relative in _TABLE.values():
        for names, english in (
            (days.split(), _WEEKDAYS),
            (months.split(), _MONTHS),
            (relative.split(), ("today", "tomorrow", "yesterday")),
        ):
            for forms, word in zip(names, english, strict=True):
                for form in forms.split("/"):
                    if form != "-" and form.replace("_", " ") != word:
                        out.setdefault(form.replace("_", " "), word)
    return out


#: Parts of the day, in the languages above whose words have no other common sense.
_PARTS_OF_DAY = {
    "umaga": "morning",
    "hapon": "afternoon",
    "asubuhi": "morning",
    "mchana": "afternoon",
    "jioni": "evening",
    "usiku": "night",
    "pagi": "morning",
    "malam": "night",
    "matin": "morning",
    "soir": "evening",
    "mattina": "morning",
    "pomeriggio": "afternoon",
    "arvo": "afternoon",  # Australian English
    "arvos": "afternoon",
    "subah": "morning",
    "subha": "morning",
    "savere": "morning",
    "dopahar": "afternoon",
    "shaam": "evening",
    "raat": "night",
    "morgens": "morning",
    "abends": "evening",
    "nachts": "night",
    "manha": "morning",
    "noite": "night",
    "noche": "night",
    "abend": "evening",
    "nachmittag": "afternoon",
}
#: Foreign calendar word (accents stripped) -> its English word.
CALENDAR: dict[str, str] = _table() | _PARTS_OF_DAY
#: Words that are also another thing: they count only in a calendar context.
AMBIGUOUS = frozenset(
    [
        "linggo",
        "minggu",
        "bukas",
        "ngayon",
        "mayo",
        "mars",
        "mai",
        "maj",
        "maja",
        "leo",
        "jana",
        "domingo",
        "julio",
        "peer",
        "mangal",
        "budh",
        "juma",
        "hafta",
        "segunda-feira",
        "segunda",
        "quarta",
        "quinta",
        "sexta",
        "manana",
        "morgen",
        "marco",
    ]
)
#: Words before a calendar word that say it is one ("sa linggo", "tuwing lunes", "kila jumamosi").
_CONTEXT_BEFORE = frozenset(
    """sa tuwing on every this hari kila siku el los le am w we de setiap pada ng until till by toda todas na nas
    cada""".split()  # noqa: SIM905
)
#: Parts of the day after a calendar word ("linggo ng umaga", "leo jioni", "bukas ng gabi").
_PARTS = frozenset(
    [
        "morning",
        "afternoon",
        "evening",
        "night",
        "umaga",
        "hapon",
        "gabi",
        "tanghali",
        "asubuhi",
        "mchana",
        "jioni",
        "usiku",
        "pagi",
        "siang",
        "sore",
        "malam",
        "noche",
        "tarde",
        "soir",
        "matin",
    ]
)
#: Words before "linggo"/"minggu" that make it a week ("isang linggo", "susunod na linggo").
_WEEK_BEFORE = frozenset(
    [
        "isang",
        "dalawang",
        "tatlong",
        "ilang",
        "susunod",
        "nakaraang",
        "ngayong",
        "kada",
        "bawat",
        "a",
        "one",
        "two",
        "three",
        "few",
        "couple",
        "satu",
        "dua",
        "tiga",
        "beberapa",
        "setiap",
    ]
)
_WEEK_AFTER = frozenset("depan lalu ini".split())  # noqa: SIM905
#: Words after "bukas" that make it "open" ("bukas ang tindahan", "bukas pa ba").
_OPEN_AFTER = frozenset("ang pa ba".split())  # noqa: SIM905


def _plain(text: str) -> str:
    text = unicodedata.normalize("NFKD", text.replace("ł", "l").replace("Ł", "L").replace("đ", "d").replace("Đ", "D"))
    return "".join(c for c in text if not unicodedata.combining(c)).replace("’", "'")


def plain(text: str) -> str:
    """``text`` without its accents ("natação" -> "natacao"), as the tables are written."""
    return _plain(text)


_FORMS = sorted(CALENDAR, key=len, reverse=True)
_FOREIGN = re.compile(r"(?<![\w'-])(" + "|".join(re.escape(f) for f in _FORMS) + r")(?![\w-])", re.I)
_WORD = re.compile(r"[\w'-]+")


def _counts(text: str, m: re.Match[str]) -> bool:
    form = m.group(1).lower()
    before = [w.lower() for w in _WORD.findall(text[: m.start()])[-2:]]
    after = [w.lower() for w in _WORD.findall(text[m.end() :])[:2]]
    if form in ("linggo", "minggu") and (set(before) & _WEEK_BEFORE or set(after[:1]) & _WEEK_AFTER):
        return False
    if form == "bukas" and set(after[:1]) & _OPEN_AFTER:
        return False
    if form == "kesho" and after[:1] == ["kutwa"]:
        return False  # "kesho kutwa": the day after tomorrow
    if form not in AMBIGUOUS:
        return True
    if m.group(1)[0].isupper() and text[: m.start()].strip()[-1:] not in ("", ".", "!", "?", "\n"):
        return form in ("linggo", "minggu")  # a capitalised word mid-sentence: a name, save the weekdays
    near = _WORD.findall(text[max(0, m.start() - 30) : m.start()]) + _WORD.findall(text[m.end() : m.end() + 30])
    return bool(
        (before and before[-1] in _CONTEXT_BEFORE)
        or set(after[:2]) & _PARTS
        or any(w.lower() in _WEEKDAYS or (w.lower() in CALENDAR and w.lower() not in AMBIGUOUS) for w in near)
        or form in ("linggo", "minggu", "bukas", "ngayon")  # these mostly are the day: a week or "open" is marked
    )


def english_calendar(text: str) -> str:
    """``text`` with its foreign weekday, month and today/tomorrow/yesterday words (accents
    stripped) written in English: "sa linggo ng umaga" -> "sa sunday ng umaga"."""
    plain = _plain(text)
    english = _FOREIGN.sub(lambda m: CALENDAR[m.group(1).lower()] if _counts(plain, m) else m.group(1), plain)
    return _DAY_OF_MONTH.sub(r"\1 \2", english)  # "dia 9 de october", "el 3 de march": "9 october"


_DAY_OF_MONTH = re.compile(r"\b(\d{1,2}) (?:de|di|du) (" + "|".join(_MONTHS) + r")\b", re.I)


def calendar_words(text: str) -> list[str]:
    """The English words ``text``'s foreign calendar words stand for (for the word check's pool)."""
    plain = _plain(text)
    return [CALENDAR[m.group(1).lower()] for m in _FOREIGN.finditer(plain) if _counts(plain, m)]


#: The family's word (or words) -> the English words it stands for (accents stripped, lower case).
_FOOD_AND_HEALTH: tuple[tuple[str, str], ...] = (
    # German
    ("zoliakie, zoeliakie", "coeliac celiac"),
    ("erdnuss, erdnusse, erdnuesse", "peanut peanuts"),
    ("nusse, nuesse, haselnuss, haselnusse, walnusse", "nuts"),
    ("milch, kuhmilch", "milk"),
    ("laktoseintoleranz", "lactose intolerance intolerant"),
    ("allergie, allergien, allergisch", "allergy allergic"),
    ("neurodermitis", "eczema"),
    ("heuschnupfen", "hay fever"),
    ("glutenfrei", "gluten-free gluten"),
    ("vegetarisch, vegetarierin, vegetarier", "vegetarian"),
    ("krankenhaus", "hospital"),
    ("kinderarzt, kinderarztin", "paediatrician pediatrician doctor"),
    # Spanish, Portuguese, Italian, French
    ("alergia, alergica, alergico, allergico, allergica, allergique", "allergy allergic"),
    ("cacahuate, cacahuates, cacahuete, cacahuetes, amendoim, arachidi", "peanut peanuts"),
    ("nueces, nozes, noci, noix", "nuts"),
    ("mariscos, marisco, frutos do mar, crostacei, fruits de mer", "shellfish"),
    ("camarones, camaron, gambas, camarao, camaroes, gamberi, crevettes", "shrimp prawns"),
    ("leche, leite, lait", "milk"),
    ("huevo, huevos, ovos, uova, oeufs", "egg eggs"),
    ("asma, asthme", "asthma"),
    ("celiaco, celiaca, celiaquia, celiachia, coeliaque", "coeliac celiac"),
    # Tagalog
    ("hipon", "shrimp prawns"),
    ("alimango, alimasag", "crab"),
    ("gatas", "milk"),
    ("itlog", "egg eggs"),
    ("hika", "asthma"),
    # Swahili
    ("karanga, njugu", "peanut peanuts groundnuts"),
    ("maziwa", "milk"),
    ("mayai", "egg eggs"),
    ("pumu", "asthma"),
    ("kisukari", "diabetes diabetic"),
    # romanised Hindi and Urdu
    ("moongphali, mungfali, moongfali", "peanut peanuts"),
    ("doodh, dudh", "milk"),
    ("shakahari", "vegetarian"),
    ("sugar ki bimari, madhumeh", "diabetes diabetic"),
    # Polish
    ("orzeszki, orzeszkow", "peanuts nuts"),
    ("mleko, mleka", "milk"),
    ("jajka, jajko, jajek", "egg eggs"),
    ("uczulenie, uczulona, uczulony", "allergy allergic"),
    # Vietnamese
    ("dau phong", "peanut peanuts"),
    ("sua bo", "milk"),
    ("trung ga", "egg eggs"),
    # Indonesian and Malay
    ("kacang tanah", "peanut peanuts"),
    ("udang", "shrimp prawns"),
    ("susu", "milk"),
    ("telur", "egg eggs"),
    # Korean and Japanese, romanised
    ("ttangkong", "peanut peanuts"),
    ("gyeran", "egg eggs"),
    ("uyu", "milk"),
    ("rakkasei, piinatsu", "peanut peanuts"),
    ("tamago", "egg eggs"),
    ("gyunyu", "milk"),
    ("soba", "buckwheat"),
)
FOOD_AND_HEALTH: dict[str, tuple[str, ...]] = {
    form.strip(): tuple(english.split()) for forms, english in _FOOD_AND_HEALTH for form in forms.split(",")
}
_FOOD_FORMS = re.compile(
    r"(?<![\w'-])(" + "|".join(re.escape(f) for f in sorted(FOOD_AND_HEALTH, key=len, reverse=True)) + r")(?![\w'-])",
    re.I,
)


#: The family's word -> the English words of frequency, scope and only-ness it says (rule 4).
_FREQUENCY_AND_SCOPE: tuple[tuple[str, str], ...] = (
    # romanised Hindi/Urdu
    ("roz, rozana, roj, rojana, har roz, har din", "every daily day"),
    ("har", "every each"),
    ("saare, saari, sabhi, sab", "all every"),
    ("bilkul", "at all completely"),
    ("hamesha, humesha", "always"),
    ("sirf", "only just"),
    ("har mahine", "monthly month every"),
    ("mahine, mahina", "month"),
    ("har hafte", "weekly week every"),
    ("hafte", "week"),
    ("har saal", "yearly annual year every"),
    ("saal", "year"),
    # Tagalog
    ("araw-araw, araw araw", "every daily day"),
    ("tuwing, kada, bawat", "every each"),
    ("lahat", "all every"),
    ("palagi, lagi", "always"),
    ("lang, lamang", "only just"),
    # Swahili
    ("kila siku", "every daily day"),
    ("kila", "every each"),
    ("wote, zote, yote", "all"),
    ("kamwe", "never"),
    # Spanish, Portuguese, Italian, French, German
    ("todos los dias, todo dia, todos os dias, ogni giorno, tous les jours, jeden tag, taglich", "every daily day"),
    ("cada, ogni, chaque, jede, jeder, jedes, toda", "every each"),
    ("toda semana, todas as semanas, toda a semana, cada semana, todas las semanas", "every week weekly"),
    ("todos, todas, tous, toutes, tutti, tutte, alle", "all every"),
    ("siempre, sempre, toujours, immer", "always"),
    ("nunca, jamais, niemals", "never"),
    ("solamente, somente, seulement, nur, soltanto", "only just"),
    # everyday words (Portuguese, Spanish, French, German, Tagalog, Swahili); holidays are
    # formation/holidays.py's
    ("melhor amiga, melhor amigo, mejor amiga, mejor amigo, meilleure amie, meilleur ami", "best friend"),
    ("beste freundin, bester freund, matalik na kaibigan, rafiki wa karibu", "best friend"),
    ("sem, sin, sans, ohne, walang, bila", "without no"),
    ("uma, una, uno, une, eine, isang", "one 1"),
    # Indonesian and Malay
    ("setiap hari, tiap hari", "every daily day"),
    ("setiap, tiap", "every each"),
    ("semua", "all every"),
    ("selalu", "always"),
    ("hanya", "only just"),
    ("tidak pernah, tak pernah", "never"),
)
#: "kabhi ... nahi", "kabhi bhi ... mat": never (the words between at most five).
_HINDI_NEVER = re.compile(r"\bkabhi\b(?:\s+\S+){0,5}?\s+(?:nahi|nahin|nhi|mat|na)\b", re.I)
FREQUENCY_AND_SCOPE: dict[str, tuple[str, ...]] = {
    form.strip(): tuple(english.split()) for forms, english in _FREQUENCY_AND_SCOPE for form in forms.split(",")
}
_LENT = FOOD_AND_HEALTH | FREQUENCY_AND_SCOPE
_LENT_FORMS = re.compile(
    r"(?<![\w'-])(" + "|".join(re.escape(f) for f in sorted(_LENT, key=len, reverse=True)) + r")(?![\w'-])", re.I
)


def english_words(text: str) -> list[str]:
    """The English words ``text``'s foreign allergen, diet, condition, frequency and scope words
    stand for (for the word check's pool): "emil has his zöliakie check" -> coeliac, celiac; "roz
    subah" -> every, daily, day; "kabhi chikki mat daalna" -> never."""
    plain = _plain(text)
    words = [w for m in _LENT_FORMS.finditer(plain) for w in _LENT[m.group(1).lower()]]
    return words + (["never"] if _HINDI_NEVER.search(plain) else [])


#: Negators of other Englishes and languages that go before what they negate, as "not" and "no"
#: do (read by the support check's polarity): Scots "cannae", "dinnae", "nae red meat"; Spanish
#: and Portuguese "nunca", French "jamais", German "nicht"/"kein", Tagalog "huwag"/"bawal",
#: Swahili "hapana", Indonesian "tidak"/"jangan". Left out: words that are also English or
#: another listed language's ordinary word ("wag", "tak", "non", Tagalog "hindi", the language).
NEGATORS = (
    r"nae|cannae|canna|canny|cannie|dinnae|dinna|didnae|doesnae|disnae|isnae|wasnae|wouldnae|widnae|couldnae|"
    r"cudnae|shouldnae|willnae|winnae|hasnae|havenae|huvnae|urnae|arenae|"
    r"nunca|jamais|niemals|nicht|kein|keine|keinen|nie|huwag|bawal|walang|hapana|jangan|tidak|bukan"
)
#: Of those, the ones that negate only their noun phrase, as "no" does ("nae phones at the table").
DETERMINER_NEGATORS = frozenset("nae kein keine keinen walang".split())  # noqa: SIM905
#: Negators said after what they negate (Hindi/Urdu "karela pasand nahi"): a clause holding one
#: has no polarity the English reading can tell.
POSTPOSED_NEGATOR = re.compile(r"\b(?:nahi|nahin|nahee|nhi)\b", re.I)


_GLOSS = re.compile(r"([^\W\d_]+(?:['’-][^\W\d_]+)*)\s+\(([^\W\d_]+(?:[\s'’-][^\W\d_]+){0,2})\)")


def glosses(summary: str) -> list[tuple[str, list[str]]]:
    """Each (head word, parenthesised words) of the summary's glosses: "shrimp (hipon)"; not an
    apposition that says whose or who someone is ("Dadaji (Arjun's father)", "Maya (daughter)")."""
    found = []
    for m in _GLOSS.finditer(summary):
        head, inside = m.group(1), m.group(2)
        words = [w.lower() for w in re.split(r"[\s'’-]+", _plain(inside)) if w]
        if not _apposition(head, inside, words, summary[: m.start()]):
            found.append((head.lower(), words))
    return found


def _relation(word: str) -> bool:
    return word in RELATION_WORDS or word.removesuffix("s") in RELATION_WORDS


def _apposition(head: str, inside: str, words: list[str], before: str) -> bool:
    """Whether "head (inside)" says whose, who or which someone or something is rather than
    translating a word: a possessive or a relation word ("Dadaji (Arjun's father)", "Maya
    (daughter)", "Ji-woo's mother (Halmeoni)"), or a name on either side, capitalised where a
    sentence does not start ("the Byeol (Stars) class", "Seville (bitter) oranges")."""
    named_head = head[:1].isupper() and before.strip() != "" and before.rstrip()[-1:] not in ".!?:;"
    named_inside = any(w[:1].isupper() for w in inside.split())
    return "s" in words or _relation(head.lower()) or any(_relation(w) for w in words) or named_head or named_inside


def gloss_problem(head: str, words: list[str], held: bool) -> str | None:
    """Why a gloss does not hold: its words, none of them English, are not the turns' (``held``
    false: an English parenthesis the turns do not hold is the word check's), or its
    parenthesis is an English noun for a different thing than the head ("shrimp (crab)")."""
    if not held:
        english = any(senses.senses_of(_base(w), "n") or senses.senses_of(_base(w), "v") for w in words)
        return None if english else f"the turns do not say ({' '.join(words)})"
    if (
        len(words) == 1
        and senses.senses_of(_base(words[0]), "n")
        and senses.senses_of(_base(head), "n")  # two English nouns: "feke (octopus)" is a gloss read backwards
        and senses.relation(head, words[0]) not in ("same", "broader", "narrower")
    ):
        return f"the turns say {words[0]}, not {head}"
    return None


def _base(word: str) -> str:
    for form in (word, word.removesuffix("s"), word.removesuffix("es")):
        if senses.senses_of(form, "n"):
            return form
    return word
