"""A chat's language, told from a sample of its own text: which language's common words it uses most.

Function words (articles, pronouns, particles, auxiliaries) are most of any chat's tokens and differ by
language, while names, links, emoji and borrowed English nouns count for none; a word common to several
lists counts for each of them in equal shares, so Spanish, Portuguese and Italian are told apart by the
words they do not share. Pure and dependency-free: no model is loaded at run time."""

from __future__ import annotations

import re
from collections.abc import Iterable

UNDETERMINED = "und"  # ISO 639-2's "undetermined": too little text to tell; searched as English

# A chat needs this many words, and its best language this many common words, to be decided at all.
MIN_WORDS = 40
MIN_HITS = 12
SAMPLE_WORDS = 3000

# The most frequent words of each language as typed in chats (lower case, with the usual accent-less
# spellings of people typing fast), chosen by hand from frequency lists.
COMMON_WORDS: dict[str, frozenset[str]] = {
    lang: frozenset(words.split())
    for lang, words in {
        "en": """the a an and or but is are was were be been i you he she it we they me my your his her our
            their this that these those what which who to of in on at for with from not no yes do does did
            have has had will would can could should just so if then there here how why when all get got
            im i'm it's dont don't can't gonna wanna lol ok okay yeah thanks about like know think""",
        "de": """der die das und ist nicht ich du er sie es wir ihr ein eine einen einem einer den dem des
            zu mit auf für fur von im in ist sind war hab habe hast hat haben auch aber noch schon so wie was
            wer wo wann warum ja nein doch mal nur dann wenn weil dass oder kann kannst muss will bin bist
            mich dich mir dir uns euch sich kein keine gut heute morgen jetzt gleich nach bei über uber alles
            viel sehr gerade echt oder nix nichts geht machen mach""",
        "es": """el la los las un una unos y o pero que de del en con por para es son está esta están
            estoy estas estás era fue ser hay no sí si yo tú tu él ella nosotros me te se le lo les mi mis
            su sus muy más mas ya también tambien como cuando donde qué porque pues bueno hoy mañana manana
            ahora todo nada algo aquí aqui eso este esto vale vamos tengo tienes tiene hacer voy vas va jaja
            gracias hola mucho dónde""",
        "fr": """le la les un une des et ou mais que qui de du en dans sur pour par avec est sont était
            suis es sommes êtes ai as avons avez ont je tu il elle on nous vous ils elles me te se moi toi
            lui leur mon ma mes ton ta tes son sa ses ce cette ça ca pas ne plus très tres bien oui non
            aussi comme quand où pourquoi alors tout rien demain aujourd'hui maintenant c'est j'ai y au aux
            trop fait faire vais va merci mdr ouais""",
        "pt": """o a os as um uma uns umas e ou mas que de do da dos das em no na nos nas com por para
            pra é são está estou estava foi ser tem tenho não sim eu você voce vc ele ela nós nos eles
            elas me te se lhe meu minha seu sua muito mais já ja também tambem como quando onde porque
            hoje amanhã amanha agora tudo nada aqui isso isto esse essa vou vai obrigado obrigada kkk tá ta
            então entao né ne gente ainda""",
        "it": """il lo la i gli le un uno una e o ma che di del della dei delle in nel nella con per da
            dal è sono era sei siamo ho hai ha abbiamo avete hanno io tu lui lei noi voi loro mi ti si ci
            vi mio mia tuo tua suo sua non sì si molto più piu già gia anche come quando dove perché
            perche oggi domani adesso ora tutto niente qui qua questo questa quello quella vado va grazie
            ciao allora bene però pero cosa fatto""",
        "nl": """de het een en of maar dat die wat wie waar wanneer waarom is zijn was waren ben bent
            heb hebt heeft hebben ik jij je hij zij ze wij we jullie mij me mijn jouw zijn haar ons onze
            niet geen wel ja nee ook nog al dan als te van in op aan met voor bij uit naar om door over
            er hier daar nu vandaag morgen zo heel erg goed kan kun moet wil ga gaat gaan doen dus even
            toch maar hoe""",
        "ru": """и в во не на я ты он она оно мы вы они что это как так но а или да нет то же бы ли
            с со к ко у о об от до по за из для при меня мне тебя тебе его ее её нас вам мой моя твой
            был была было были есть будет может можно нужно надо уже еще ещё только очень все всё вот
            там тут здесь когда где почему сегодня завтра сейчас ну ладно спасибо привет хорошо просто""",
        "tr": """bir ve bu şu o da de ne için icin çok cok ben sen biz siz onlar beni seni onu bunu
            bana sana ona mi mı mu mü misin musun mısın var yok ama gibi daha değil degil evet hayır
            tamam ile diye kadar sonra şimdi simdi yani hiç hic her zaman ki bugün yarın nasıl neden
            niye olur oldu olsun abi ya bi şey sey iyi güzel guzel geliyorum gel git teşekkürler""",
    }.items()
}

LANGUAGES = tuple(COMMON_WORDS)
NAMES = {
    "en": "English", "de": "German", "es": "Spanish", "fr": "French", "pt": "Portuguese", "it": "Italian",
    "nl": "Dutch", "ru": "Russian", "tr": "Turkish",
}  # fmt: skip

_OWN_LETTERS = re.compile("[ışğ]")
_WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?")


def _shares() -> dict[str, dict[str, float]]:
    """Each listed word's weight for each language that lists it: 1 divided among the lists."""
    holders: dict[str, list[str]] = {}
    for lang, words in COMMON_WORDS.items():
        for word in words:
            holders.setdefault(word, []).append(lang)
    return {word: {lang: 1 / len(langs) for lang in langs} for word, langs in holders.items()}


_SHARES = _shares()


def detect(texts: Iterable[str], sample_words: int = SAMPLE_WORDS) -> str:
    """The ISO 639-1 code of the language of ``texts`` (read up to ``sample_words`` words), or
    ``UNDETERMINED`` when there is too little text or too few common words of any language."""
    scores = dict.fromkeys(LANGUAGES, 0.0)
    hits = dict.fromkeys(LANGUAGES, 0)
    words = 0
    for text in texts:
        # A sample's worth of each text: one 50 MB message must not be read whole to tell its language.
        for word in _WORD.findall(text[: sample_words * 16].lower().replace("’", "'")):
            words += 1
            for lang, share in _SHARES.get(word, {}).items():
                scores[lang] += share
                hits[lang] += 1
            if _OWN_LETTERS.search(word):
                # Turkish carries its grammar in suffixes, so it has few function words to count; its
                # dotless ı, ş and ğ, which no other language here writes, count instead.
                scores["tr"] += 1
                hits["tr"] += 1
        if words >= sample_words:
            break
    best = max(LANGUAGES, key=scores.__getitem__)
    if words < MIN_WORDS or hits[best] < MIN_HITS:
        return UNDETERMINED
    return best


# ISO 639-1: the codes `refind import --lang` accepts.
ISO_639_1 = frozenset(
    """aa ab ae af ak am an ar as av ay az ba be bg bi bm bn bo br bs ca ce ch co cr cs cu cv cy da de dv
    dz ee el en eo es et eu fa ff fi fj fo fr fy ga gd gl gn gu gv ha he hi ho hr ht hu hy hz ia id ie ig
    ii ik io is it iu ja jv ka kg ki kj kk kl km kn ko kr ks ku kv kw ky la lb lg li ln lo lt lu lv mg mh
    mi mk ml mn mr ms mt my na nb nd ne ng nl nn no nr nv ny oc oj om or os pa pi pl ps pt qu rm rn ro ru
    rw sa sc sd se sg si sk sl sm sn so sq sr ss st su sv sw ta te tg th ti tk tl tn to tr ts tt tw ty ug
    uk ur uz ve vi vo wa wo xh yi yo za zh zu""".split()
)
