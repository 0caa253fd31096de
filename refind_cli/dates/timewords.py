"""Time words of the languages besides English that ``timeexpr`` reads: German, Spanish, French, Portuguese,
Italian and Russian. Tables only; ``timeexpr`` builds each language's grammar from them.

Words are written as natives write them, with their accents; the grammar also accepts each one without
accents, with German umlauts as ae/oe/ue and ß as ss, with ’ for ', and ё as е, so the tables list a word
once. Inflected forms (German adjective endings, Russian cases) are listed, since no rule derives them.
English lives in ``timeexpr`` itself: its grammar is older and has its own hand-written patterns.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TypeVar

T = TypeVar("T")

# Canonical roles, spelled as the English grammar spells them: offsets -2..2, units, and the prefix words.
DAY, WEEK, MONTH, YEAR, WEEKEND, MINUTE, HOUR = "day", "week", "month", "year", "weekend", "minute", "hour"
IN, FROM, BETWEEN = "in", "from", "between"  # fills: the expression means what it names
SINCE, AFTER, BEFORE = "since", "after", "before"  # modifiers: open-ended, only since/after give a range
TO, AND = "to", "and"  # connectors between the two ends of a range


@dataclass(frozen=True)
class Words:
    """One language's time words. Keys are words or phrases as typed (any case); values are what they mean."""

    months: dict[str, int]  # full names and their case forms
    month_abbr: dict[str, int]  # read only as a whole --since value, as in English
    weekdays: dict[str, int]  # Monday is 0
    weekday_abbr: dict[str, int]
    seasons: dict[str, int]  # 0 winter .. 3 autumn
    days: dict[str, int]  # yesterday: -1, the day after tomorrow: 2
    now: tuple[str, ...]
    rel_before: dict[str, int]  # "letzte" Woche: -1; before a unit, month, season or weekday
    rel_after: dict[str, int]  # la semaine "dernière": -1; after one
    units: dict[str, str]  # after last/this/next: week, month, year, weekend (in the cases that follow them)
    counted: dict[str, str]  # after a number: day .. year, minute, hour
    numbers: dict[str, int]
    ago_before: tuple[str, ...]  # "vor" 3 Tagen
    ago_after: tuple[str, ...]  # 3 giorni "fa"
    rolling: tuple[str, ...]  # "die letzten" 3 Tage: a window that ends now
    fills: dict[str, str]  # prepositions that keep the range: in, from, between
    mods: dict[str, str]  # prepositions that open it: since, after, before
    connectors: dict[str, str]  # between the ends of a range: to, and
    parts: dict[str, int]  # early 0, mid 1, late 2 (a third of a month, season or year)
    articles: tuple[str, ...] = ()
    part_links: tuple[str, ...] = ()  # "principios *de* marzo"
    of: tuple[str, ...] = ()  # between day and month and between month and year: "15 *de* marzo *de* 2023"
    day_suffix: str = ""  # a regex after the day of the month: "3." in German, "1er" in French
    year_words: tuple[str, ...] = ()  # after a year: "2023 года"
    context: tuple[str, ...] = ()  # besides fills, mods and parts: what makes an ambiguous word a date
    ambiguous: frozenset[str] = frozenset()  # spellings that are a date only after a context word
    accented: frozenset[str] = (
        frozenset()
    )  # words never read without their accents: French "à" ("a" is "has")
    not_after: dict[str, tuple[str, ...]] = field(default_factory=dict)  # "guten morgen" is no tomorrow
    amounts: tuple[str, ...] = ()  # a year followed by these is an amount
    ago_alone: bool = False  # the unit alone means one: "неделю назад"
    rolling_after_number: bool = False  # "les 3 derniers jours"
    since_pairs: bool = False  # the since word also opens a from-to range: "desde marzo hasta mayo"


def _forms(stems: dict[str, int], endings: str) -> dict[str, int]:
    """Every stem with every ending: German adjectives (letzt-e/-en/-er/-es/-em), Russian ones."""
    return {stem + ending: value for stem, value in stems.items() for ending in endings.split()}


def _each(value: T, words: str) -> dict[str, T]:
    return dict.fromkeys(words.split("|"), value)


_DE_REL = _forms(
    {"letzt": -1, "vorig": -1, "vergangen": -1, "vorletzt": -2, "dies": 0, "nächst": 1, "kommend": 1,
     "übernächst": 2},
    "e en er es em",
)  # fmt: skip

GERMAN = Words(
    months={"januar": 1, "jänner": 1, "februar": 2, "märz": 3, "april": 4, "mai": 5, "juni": 6, "juli": 7,
            "august": 8, "september": 9, "oktober": 10, "november": 11, "dezember": 12},
    month_abbr={"jan": 1, "feb": 2, "mär": 3, "mrz": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9,
                "sept": 9, "okt": 10, "nov": 11, "dez": 12},
    weekdays={"montag": 0, "dienstag": 1, "mittwoch": 2, "donnerstag": 3, "freitag": 4, "samstag": 5,
              "sonnabend": 5, "sonntag": 6},
    weekday_abbr={"mo": 0, "di": 1, "mi": 2, "do": 3, "fr": 4, "sa": 5, "so": 6},
    seasons={"winter": 0, "frühling": 1, "frühjahr": 1, "sommer": 2, "herbst": 3},
    days={"heute": 0, "gestern": -1, "morgen": 1, "vorgestern": -2, "übermorgen": 2},
    now=("jetzt",),
    rel_before=_DE_REL,
    rel_after={},
    units={"woche": WEEK, "monat": MONTH, "jahr": YEAR, "wochenende": WEEKEND},
    counted={**_each(DAY, "tag|tage|tagen"), **_each(WEEK, "woche|wochen"), **_each(MONTH, "monat|monate|monaten"),
             **_each(YEAR, "jahr|jahre|jahren"), **_each(MINUTE, "minute|minuten"),
             **_each(HOUR, "stunde|stunden")},
    numbers={"ein": 1, "eine": 1, "einem": 1, "einer": 1, "eins": 1, "zwei": 2, "drei": 3, "vier": 4, "fünf": 5,
             "sechs": 6, "sieben": 7, "acht": 8, "neun": 9, "zehn": 10, "elf": 11, "zwölf": 12,
             "fünfzehn": 15, "zwanzig": 20, "dreißig": 30},
    ago_before=("vor",),
    ago_after=(),
    rolling=("letzten", "vergangenen"),
    fills={"in": IN, "im": IN, "am": IN, "an": IN, "um": IN, "während": IN, "von": FROM, "vom": FROM,
           "zwischen": BETWEEN},
    mods={"seit": SINCE, "ab": SINCE, "nach": AFTER, "vor": BEFORE, "bis": BEFORE},
    connectors={"bis": TO, "und": AND, "-": TO, "–": TO, "—": TO},
    parts={"anfang": 0, "mitte": 1, "ende": 2},
    articles=("der", "die", "das", "den", "dem"),
    day_suffix=r"\.?",
    not_after={"morgen": ("heute", "gestern", "guten", "am", "jeden", "diesen", "den", "einen", "schönen")},
    amounts=("euro", "euros", "eur", "dollar", "franken", "chf", "leute", "personen", "km", "kg", "meter", "mal",
             "seiten", "wörter", "schritte", "kalorien"),
    since_pairs=True,
)  # fmt: skip

SPANISH = Words(
    months={"enero": 1, "febrero": 2, "marzo": 3, "abril": 4, "mayo": 5, "junio": 6, "julio": 7, "agosto": 8,
            "septiembre": 9, "setiembre": 9, "octubre": 10, "noviembre": 11, "diciembre": 12},
    month_abbr={"ene": 1, "feb": 2, "mar": 3, "abr": 4, "may": 5, "jun": 6, "jul": 7, "ago": 8, "sep": 9,
                "sept": 9, "set": 9, "oct": 10, "nov": 11, "dic": 12},
    weekdays={"lunes": 0, "martes": 1, "miércoles": 2, "jueves": 3, "viernes": 4, "sábado": 5, "domingo": 6},
    weekday_abbr={"lun": 0, "mar": 1, "mié": 2, "jue": 3, "vie": 4, "sáb": 5, "dom": 6},
    seasons={"invierno": 0, "primavera": 1, "verano": 2, "otoño": 3},
    days={"hoy": 0, "ayer": -1, "mañana": 1, "anteayer": -2, "antier": -2, "antes de ayer": -2,
          "antes de anoche": -2, "anoche": -1, "pasado mañana": 2},
    now=("ahora",),
    rel_before={"próximo": 1, "próxima": 1, "este": 0, "esta": 0, "pasado": -1, "pasada": -1},
    rel_after={"pasado": -1, "pasada": -1, "anterior": -1, "antepasado": -2, "antepasada": -2, "próximo": 1,
               "próxima": 1, "que viene": 1, "entrante": 1},
    units={"semana": WEEK, "mes": MONTH, "año": YEAR, "fin de semana": WEEKEND, "finde": WEEKEND},
    counted={**_each(DAY, "día|días"), **_each(WEEK, "semana|semanas"), **_each(MONTH, "mes|meses"),
             **_each(YEAR, "año|años"), **_each(MINUTE, "minuto|minutos"), **_each(HOUR, "hora|horas")},
    numbers={"un": 1, "una": 1, "uno": 1, "dos": 2, "tres": 3, "cuatro": 4, "cinco": 5, "seis": 6, "siete": 7,
             "ocho": 8, "nueve": 9, "diez": 10, "once": 11, "doce": 12, "quince": 15, "veinte": 20,
             "treinta": 30, "un par de": 2},
    ago_before=("hace",),
    ago_after=(),
    rolling=("últimos", "últimas"),
    fills={"en": IN, "a": IN, "durante": IN, "de": FROM, "entre": BETWEEN},  # "a principios de marzo"
    mods={"desde": SINCE, "a partir de": SINCE, "después de": AFTER, "antes de": BEFORE, "hasta": BEFORE},
    connectors={"a": TO, "al": TO, "hasta": TO, "y": AND, "-": TO, "–": TO, "—": TO},
    parts={"principios": 0, "comienzos": 0, "inicios": 0, "mediados": 1, "finales": 2, "fines": 2},
    articles=("el", "la", "los", "las"),
    part_links=("de", "del"),
    of=("de", "del"),
    day_suffix=r"(?:º|°)?",
    context=("para", "por", "el"),  # "el viernes", "el fin de semana": on Friday, on the weekend
    not_after={"mañana": ("la", "esta", "una", "cada", "de", "toda", "media", "las")},
    amounts=("euros", "dólares", "pesos", "eur", "usd", "personas", "km", "kg", "metros", "veces", "páginas",
             "palabras", "pasos", "calorías"),
    since_pairs=True,
)  # fmt: skip

FRENCH = Words(
    months={"janvier": 1, "février": 2, "mars": 3, "avril": 4, "mai": 5, "juin": 6, "juillet": 7, "août": 8,
            "septembre": 9, "octobre": 10, "novembre": 11, "décembre": 12},
    month_abbr={"janv": 1, "févr": 2, "fév": 2, "avr": 4, "juil": 7, "sept": 9, "oct": 10, "nov": 11,
                "déc": 12},
    weekdays={"lundi": 0, "mardi": 1, "mercredi": 2, "jeudi": 3, "vendredi": 4, "samedi": 5, "dimanche": 6},
    weekday_abbr={"lun": 0, "mar": 1, "mer": 2, "jeu": 3, "ven": 4, "sam": 5, "dim": 6},
    seasons={"hiver": 0, "printemps": 1, "été": 2, "automne": 3},
    days={"aujourd'hui": 0, "aujourd hui": 0, "aujourdhui": 0, "hier": -1, "demain": 1, "avant-hier": -2,
          "avant hier": -2, "après-demain": 2, "après demain": 2},
    now=("maintenant",),
    rel_before={"ce": 0, "cet": 0, "cette": 0, "prochain": 1, "prochaine": 1, "dernier": -1, "dernière": -1},
    rel_after={"dernier": -1, "dernière": -1, "passé": -1, "passée": -1, "prochain": 1, "prochaine": 1},
    units={"semaine": WEEK, "semaine-ci": WEEK, "mois": MONTH, "mois-ci": MONTH, "année": YEAR, "an": YEAR,
           "année-ci": YEAR, "week-end": WEEKEND, "week end": WEEKEND, "weekend": WEEKEND},
    counted={**_each(DAY, "jour|jours"), **_each(WEEK, "semaine|semaines"), "mois": MONTH,
             **_each(YEAR, "an|ans|année|années"), **_each(MINUTE, "minute|minutes"),
             **_each(HOUR, "heure|heures")},
    numbers={"un": 1, "une": 1, "deux": 2, "trois": 3, "quatre": 4, "cinq": 5, "six": 6, "sept": 7, "huit": 8,
             "neuf": 9, "dix": 10, "onze": 11, "douze": 12, "quinze": 15, "vingt": 20, "trente": 30},
    ago_before=("il y a",),
    ago_after=(),
    rolling=("derniers", "dernières"),
    fills={"en": IN, "au": IN, "à": IN, "pendant": IN, "durant": IN, "de": FROM, "du": FROM, "d'": FROM,
           "entre": BETWEEN},
    mods={"depuis": SINCE, "dès": SINCE, "à partir de": SINCE, "après": AFTER, "avant": BEFORE,
          "jusqu'à": BEFORE, "jusqu'au": BEFORE, "jusqu'en": BEFORE},
    connectors={"à": TO, "au": TO, "jusqu'à": TO, "jusqu'en": TO, "et": AND, "-": TO, "–": TO, "—": TO},
    parts={"début": 0, "mi": 1, "fin": 2},
    articles=("le", "la", "les", "l'"),
    part_links=("de", "d'"),
    day_suffix=r"(?:er)?",
    context=("pour", "le"),  # "le week-end": at the weekend
    ambiguous=frozenset({"été"}),  # also "been": j'ai été
    accented=frozenset({"à"}),
    amounts=("euros", "eur", "dollars", "francs", "personnes", "km", "kg", "mètres", "fois", "pages", "mots",
             "pas", "calories"),
    rolling_after_number=True,
)  # fmt: skip

PORTUGUESE = Words(
    months={"janeiro": 1, "fevereiro": 2, "março": 3, "abril": 4, "maio": 5, "junho": 6, "julho": 7,
            "agosto": 8, "setembro": 9, "outubro": 10, "novembro": 11, "dezembro": 12},
    month_abbr={"jan": 1, "fev": 2, "mar": 3, "abr": 4, "mai": 5, "jun": 6, "jul": 7, "ago": 8, "set": 9,
                "out": 10, "nov": 11, "dez": 12},
    weekdays={"segunda-feira": 0, "segunda feira": 0, "segunda": 0, "terça-feira": 1, "terça feira": 1,
              "terça": 1, "quarta-feira": 2, "quarta feira": 2, "quarta": 2, "quinta-feira": 3,
              "quinta feira": 3, "quinta": 3, "sexta-feira": 4, "sexta feira": 4, "sexta": 4, "sábado": 5,
              "domingo": 6},
    weekday_abbr={"seg": 0, "ter": 1, "qua": 2, "qui": 3, "sex": 4, "sáb": 5, "dom": 6},
    seasons={"inverno": 0, "primavera": 1, "verão": 2, "outono": 3},
    days={"hoje": 0, "ontem": -1, "amanhã": 1, "anteontem": -2, "antes de ontem": -2, "depois de amanhã": 2},
    now=("agora",),
    rel_before={"próximo": 1, "próxima": 1, "este": 0, "esta": 0, "esse": 0, "essa": 0, "neste": 0,
                "nesta": 0, "nesse": 0, "nessa": 0, "último": -1, "última": -1},
    rel_after={"passado": -1, "passada": -1, "retrasado": -2, "retrasada": -2, "próximo": 1, "próxima": 1,
               "que vem": 1},
    units={"semana": WEEK, "mês": MONTH, "ano": YEAR, "fim de semana": WEEKEND, "final de semana": WEEKEND},
    counted={**_each(DAY, "dia|dias"), **_each(WEEK, "semana|semanas"), **_each(MONTH, "mês|meses"),
             **_each(YEAR, "ano|anos"), **_each(MINUTE, "minuto|minutos"), **_each(HOUR, "hora|horas")},
    numbers={"um": 1, "uma": 1, "dois": 2, "duas": 2, "três": 3, "quatro": 4, "cinco": 5, "seis": 6, "sete": 7,
             "oito": 8, "nove": 9, "dez": 10, "onze": 11, "doze": 12, "quinze": 15, "vinte": 20, "trinta": 30},
    ago_before=("há", "faz"),
    ago_after=("atrás",),
    rolling=("últimos", "últimas"),
    fills={"em": IN, "no": IN, "na": IN, "nos": IN, "nas": IN, "durante": IN, "de": FROM, "do": FROM,
           "da": FROM, "entre": BETWEEN},
    mods={"desde": SINCE, "a partir de": SINCE, "depois de": AFTER, "após": AFTER, "antes de": BEFORE,
          "até": BEFORE},
    connectors={"a": TO, "até": TO, "e": AND, "-": TO, "–": TO, "—": TO},
    parts={"início": 0, "começo": 0, "meados": 1, "final": 2, "fim": 2},
    articles=("o", "a", "os", "as"),
    part_links=("de", "do"),
    of=("de",),
    day_suffix=r"(?:º|°)?",
    context=("para", "desta", "dessa"),
    # Ordinals ("a segunda vez"), a farm ("quinta") and a name ("Marco") unless a preposition says otherwise.
    ambiguous=frozenset({"segunda", "terça", "terca", "quarta", "quinta", "sexta", "marco"}),
    amounts=("euros", "reais", "dólares", "eur", "brl", "pessoas", "km", "kg", "metros", "vezes", "páginas",
             "palavras", "passos", "calorias"),
    since_pairs=True,
)  # fmt: skip

ITALIAN = Words(
    months={"gennaio": 1, "febbraio": 2, "marzo": 3, "aprile": 4, "maggio": 5, "giugno": 6, "luglio": 7,
            "agosto": 8, "settembre": 9, "ottobre": 10, "novembre": 11, "dicembre": 12},
    month_abbr={"gen": 1, "feb": 2, "mar": 3, "apr": 4, "mag": 5, "giu": 6, "lug": 7, "ago": 8, "set": 9,
                "sett": 9, "ott": 10, "nov": 11, "dic": 12},
    weekdays={"lunedì": 0, "martedì": 1, "mercoledì": 2, "giovedì": 3, "venerdì": 4, "sabato": 5,
              "domenica": 6},
    weekday_abbr={"lun": 0, "mar": 1, "mer": 2, "gio": 3, "ven": 4, "sab": 5, "dom": 6},
    seasons={"inverno": 0, "primavera": 1, "estate": 2, "autunno": 3},
    days={"oggi": 0, "ieri": -1, "domani": 1, "l'altro ieri": -2, "l'altroieri": -2, "altroieri": -2,
          "ieri l'altro": -2, "dopodomani": 2},
    now=("adesso", "ora"),
    rel_before={"scorso": -1, "scorsa": -1, "prossimo": 1, "prossima": 1, "questo": 0, "questa": 0,
                "quest'": 0},
    rel_after={"scorso": -1, "scorsa": -1, "passato": -1, "passata": -1, "prossimo": 1, "prossima": 1,
               "che viene": 1},
    units={"settimana": WEEK, "mese": MONTH, "anno": YEAR, "weekend": WEEKEND, "fine settimana": WEEKEND,
           "fine-settimana": WEEKEND},
    counted={**_each(DAY, "giorno|giorni"), **_each(WEEK, "settimana|settimane"), **_each(MONTH, "mese|mesi"),
             **_each(YEAR, "anno|anni"), **_each(MINUTE, "minuto|minuti"), **_each(HOUR, "ora|ore")},
    numbers={"un": 1, "uno": 1, "una": 1, "un'": 1, "due": 2, "tre": 3, "quattro": 4, "cinque": 5, "sei": 6,
             "sette": 7, "otto": 8, "nove": 9, "dieci": 10, "undici": 11, "dodici": 12, "quindici": 15,
             "venti": 20, "trenta": 30, "un paio di": 2},
    ago_before=(),
    ago_after=("fa",),
    rolling=("ultimi", "ultime"),
    fills={"a": IN, "ad": IN, "all'": IN, "alla": IN, "in": IN, "nel": IN, "nella": IN, "nell'": IN, "durante": IN,
           "tra": BETWEEN,
           "fra": BETWEEN},
    # "da marzo" is "since March", and "da marzo a maggio" "from March to May" (since_pairs).
    mods={"da": SINCE, "dal": SINCE, "dalla": SINCE, "dall'": SINCE, "a partire da": SINCE, "dopo": AFTER,
          "prima di": BEFORE, "prima del": BEFORE, "fino a": BEFORE, "fino al": BEFORE, "entro": BEFORE},
    connectors={"a": TO, "al": TO, "alla": TO, "fino a": TO, "e": AND, "-": TO, "–": TO, "—": TO},
    parts={"inizio": 0, "metà": 1, "fine": 2},
    articles=("il", "lo", "la", "l'", "i", "gli", "le"),
    part_links=("di", "del"),
    of=("del", "di"),
    day_suffix=r"(?:º|°)?",
    context=("per",),
    amounts=("euro", "eur", "dollari", "persone", "km", "kg", "metri", "volte", "pagine", "parole", "passi",
             "calorie"),
    since_pairs=True,
)  # fmt: skip

_RU_MONTHS = ("январь января январе", "февраль февраля феврале", "март марта марте", "апрель апреля апреле",
              "май мая мае", "июнь июня июне", "июль июля июле", "август августа августе",
              "сентябрь сентября сентябре", "октябрь октября октябре", "ноябрь ноября ноябре",
              "декабрь декабря декабре")  # fmt: skip
_RU_LAST = {"прошл": -1, "предыдущ": -1, "позапрошл": -2}
_RU_NEXT = {"следующ": 1, "будущ": 1}
RUSSIAN = Words(
    # Nominative, genitive ("3 марта") and prepositional ("в марте").
    months={form: n for n, forms in enumerate(_RU_MONTHS, 1) for form in forms.split()},
    month_abbr={"янв": 1, "фев": 2, "мар": 3, "апр": 4, "июн": 6, "июл": 7, "авг": 8, "сен": 9, "сент": 9,
                "окт": 10, "ноя": 11, "нояб": 11, "дек": 12},
    weekdays={**_each(0, "понедельник|понедельника"), **_each(1, "вторник|вторника"), **_each(2, "среда|среду|среды"),
              **_each(3, "четверг|четверга"), **_each(4, "пятница|пятницу|пятницы"),
              **_each(5, "суббота|субботу|субботы"), **_each(6, "воскресенье|воскресенья")},
    weekday_abbr={"пн": 0, "вт": 1, "ср": 2, "чт": 3, "пт": 4, "сб": 5, "вс": 6},
    seasons={**_each(0, "зима|зиму|зимой|зимы"), **_each(1, "весна|весну|весной|весны"),
             **_each(2, "лето|летом|лета"), **_each(3, "осень|осенью|осени")},
    days={"сегодня": 0, "вчера": -1, "завтра": 1, "позавчера": -2, "послезавтра": 2},
    now=("сейчас",),
    rel_before={
        **_forms(_RU_LAST | _RU_NEXT, "ый ий ая ое ее ой ей ом ем ого его ую ым им ые ие ых их"),
        **_each(0, "этот|эта|это|этой|этом|этого|эту|этим|эти|этих|текущий|текущей|текущем|текущую"),
    },
    rel_after={},
    units={**_each(WEEK, "неделя|неделе|неделю"), **_each(MONTH, "месяц|месяце"), **_each(YEAR, "год|году"),
           **_each(WEEKEND, "выходные|выходных")},
    counted={**_each(DAY, "день|дня|дней"), **_each(WEEK, "неделю|недели|недель"),
             **_each(MONTH, "месяц|месяца|месяцев"), **_each(YEAR, "год|года|лет"),
             **_each(MINUTE, "минуту|минуты|минут"), **_each(HOUR, "час|часа|часов")},
    numbers={"один": 1, "одна": 1, "одну": 1, "два": 2, "две": 2, "три": 3, "четыре": 4, "пять": 5, "шесть": 6,
             "семь": 7, "восемь": 8, "девять": 9, "десять": 10, "одиннадцать": 11, "двенадцать": 12,
             "пятнадцать": 15, "двадцать": 20, "тридцать": 30, "пару": 2, "пара": 2},
    ago_before=(),
    ago_after=("назад",),
    rolling=("последние", "за последние"),
    fills={"в": IN, "во": IN, "на": IN, "за": IN},
    mods={"с": SINCE, "со": SINCE, "начиная с": SINCE, "после": AFTER, "до": BEFORE, "к": BEFORE},
    connectors={"по": TO, "до": TO, "и": AND, "-": TO, "–": TO, "—": TO},
    parts={"начале": 0, "середине": 1, "конце": 2},
    day_suffix=r"(?:-?го)?",
    year_words=("года", "году", "год", "г."),
    # Wednesday is also "the environment": "в окружающую среду".
    ambiguous=frozenset({"среда", "среду", "среды"}),
    amounts=("рублей", "рубля", "евро", "долларов", "человек", "км", "кг", "метров", "раз", "страниц", "слов",
             "шагов", "калорий"),
    ago_alone=True,
    since_pairs=True,
)  # fmt: skip

# The languages in the order ``parse_bound`` tries them after English.
LANGUAGES: dict[str, Words] = {
    "de": GERMAN,
    "es": SPANISH,
    "fr": FRENCH,
    "pt": PORTUGUESE,
    "it": ITALIAN,
    "ru": RUSSIAN,
}
