"""The chats and queries of the language tests (tests/test_languages.py) and of bench/language_bench.py: for
each of eight languages a family or friends chat as people type it, and queries a native speaker would type,
each with the message that answers it in other inflected forms."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path


@dataclass(frozen=True)
class Case:
    query: str
    answer: str  # the message that answers the query, as it stands in the chat
    joins: tuple[tuple[str, str], ...]  # (a word of the query, a word of the answer): other forms, one stem


@dataclass(frozen=True)
class Language:
    code: str  # ISO 639-1, as `refind chats` shows it
    stemmer: str  # snowballstemmer's name
    chat: str  # sessions apart by blank lines; each line "Sender: text"
    cases: tuple[Case, ...]


GERMAN = Language(
    "de",
    "german",
    """Lena: leute ich hab vielleicht ne wohnung gefunden!!
Mama: oh wie toll, wo denn?
Lena: die wohnung in der südstadt können wir samstag um 11 besichtigen, hat sogar nen balkon 😍
Jonas: südstadt ist nice, da wohnt doch auch der felix
Mama: soll ich mitkommen? vier augen sehen mehr als zwei
Lena: ja gerne!! die heizung in meiner jetzigen wohnung spinnt übrigens schon wieder 🥶
Jonas: ruf halt den vermieter an

Jonas: war heute mit den katzen beim tierarzt, impfungen sind jetzt alle durch 👍
Mama: sehr gut! was hat das gekostet?
Jonas: 85 euro 🙄
Lena: aua
Mama: naja gesundheit geht vor
Jonas: die katze hat übrigens wieder aufs sofa gekotzt 🤢
Lena: armes sofa 😂

Mama: ratet mal was heute in der post war
Mama: die einladung zur hochzeit von tim und sarah!! august an der ostsee 😍
Lena: neeein wie schön, endlich
Jonas: die hochzeit von paul letztes jahr war ja echt schön, mal sehen ob die das toppen 😄
Mama: ich muss mir auf jeden fall noch ein kleid kaufen

Mama: oma fliegt freitag zu tante gerda nach mallorca ☀️
Lena: ich fahre oma am freitag zum flughafen, ihr flieger geht um 7
Mama: danke schatz ❤️
Jonas: oma hat übrigens angerufen, sie fragt ob ihr sonntag zum essen kommt
Lena: klar, ich bring nachtisch mit
Jonas: wer kann am samstag den rasen mähen? ich bin auf nem festival 🤘
Mama: papa macht das schon

Mama: ferienwohnung in zingst ist gebucht!! 3. bis 10. august 🏖️
Jonas: geil, mit sauna?
Mama: ja mit sauna 😄
Lena: hast du die zugtickets schon gebucht?
Mama: noch nicht, mach ich am wochenende

Jonas: welche pizza hatten wir letztes mal beim italiener? die war so gut
Lena: die mit trüffel glaub ich
Jonas: ah stimmt 🤤
Jonas: ich hol mir morgen früh nen flat white, will wer was?
Mama: wann war die letzte stromrechnung? die war ja echt heftig letztes jahr
Lena: keine ahnung, frag papa
Lena: wo sind eigentlich die autoschlüssel? find sie nirgends
Mama: am schlüsselbrett, wie immer 🙄""",
    (
        Case(
            "wann war die besichtigung der wohnungen",
            "die wohnung in der südstadt können wir samstag um 11 besichtigen, hat sogar nen balkon 😍",
            (("besichtigung", "besichtigen"), ("wohnungen", "wohnung")),
        ),
        Case(
            "impfung katze",
            "war heute mit den katzen beim tierarzt, impfungen sind jetzt alle durch 👍",
            (("impfung", "impfungen"), ("katze", "katzen")),
        ),
        Case(
            "wo sind die einladungen für die hochzeit",
            "die einladung zur hochzeit von tim und sarah!! august an der ostsee 😍",
            (("einladungen", "einladung"),),
        ),
        Case(
            "wer kann oma zum flughafen fahren",
            "ich fahre oma am freitag zum flughafen, ihr flieger geht um 7",
            (("fahren", "fahre"),),
        ),
        Case(
            "welche ferienwohnungen hatten wir gebucht",
            "ferienwohnung in zingst ist gebucht!! 3. bis 10. august 🏖️",
            (("ferienwohnungen", "ferienwohnung"),),
        ),
    ),
)

SPANISH = Language(
    "es",
    "spanish",
    """Lucía: ayer visité dos pisos en lavapiés, el segundo me encantó, tiene una terraza que flipas
Carmen: qué bien hija!! y de precio qué tal?
Lucía: un poco caro pero bueno, ya veremos
Pablo: los del piso de arriba están de obras otra vez 😤 no se puede ni dormir
Carmen: paciencia jaja
Pablo: ¿cuándo vamos a ver a los tíos? hace siglos que no vamos

Pablo: he llevado a los perros al veterinario, ya están vacunados los dos 🐶
Carmen: genial, gracias cariño
Lucía: y qué tal se portaron?
Pablo: fatal jajaja, el pequeño lloraba como un bebé
Lucía: el perro del vecino no para de ladrar 🙄 llevo toda la mañana oyéndolo
Carmen: pues díselo al presidente de la comunidad

Lucía: para el cumpleaños de la abuela podríamos regalarle un viaje a galicia, siempre dice que quiere volver
Pablo: me parece buena idea, pongo 50
Carmen: yo también me apunto
Carmen: por cierto la abuela pregunta si venís el domingo a comer
Pablo: sí claro, llevo el postre
Lucía: me ha llegado el regalo de amazon por fin, tardó un montón

Carmen: ya nos ha llegado la invitación de la boda de marta y javi!! en septiembre en sevilla 😍
Lucía: qué ilusión!! por fin
Pablo: la boda de mi prima fue un desastre jajaja a ver esta
Carmen: no seas así 😂
Pablo: ¿dónde están las llaves del coche? no las encuentro
Carmen: en la entrada como siempre

Pablo: ya he reservado el vuelo a tenerife, salimos el 12 a las 7 de la mañana ✈️
Lucía: tan pronto?? madre mía
Pablo: era el más barato jaja
Carmen: ¿cuándo reservamos mesa para la cena de navidad? luego no hay sitio
Lucía: yo llamo mañana al restaurante
Carmen: vale, gracias""",
    (
        Case(
            "cuándo visitamos el piso",
            "ayer visité dos pisos en lavapiés, el segundo me encantó, tiene una terraza que flipas",
            (("visitamos", "visité"), ("piso", "pisos")),
        ),
        Case(
            "vacunas del perro",
            "he llevado a los perros al veterinario, ya están vacunados los dos 🐶",
            (("vacunas", "vacunados"), ("perro", "perros")),
        ),
        Case(
            "regalo cumpleanos abuela",
            "para el cumpleaños de la abuela podríamos regalarle un viaje a galicia, siempre dice que quiere"
            " volver",
            (("regalo", "regalarle"), ("cumpleanos", "cumpleaños")),
        ),
        Case(
            "dónde están las invitaciones de la boda",
            "ya nos ha llegado la invitación de la boda de marta y javi!! en septiembre en sevilla 😍",
            (("invitaciones", "invitación"),),
        ),
        Case(
            "cuándo reservamos los vuelos",
            "ya he reservado el vuelo a tenerife, salimos el 12 a las 7 de la mañana ✈️",
            (("reservamos", "reservado"), ("vuelos", "vuelo")),
        ),
    ),
)

FRENCH = Language(
    "fr",
    "french",
    """Camille: on a visité deux apparts samedi, celui de la rue victor hugo est top mais un peu cher
Maman: ah super, il y a un balcon ?
Camille: oui et une cuisine ouverte 😍
Hugo: tu viens quand à la maison ? mamie demande de tes nouvelles
Camille: ce week-end normalement

Hugo: j'ai emmené les chats chez le véto ce matin, ils sont vaccinés 👍
Maman: merci mon grand, ça a coûté combien ?
Hugo: 90 balles 🙄
Camille: le chat du voisin a encore dormi sur notre voiture 😂
Maman: il est mignon quand même

Camille: idée de cadeaux pour l'anniversaire de mamie : un album photo avec toute la famille ?
Maman: trop bien, je peux retrouver les vieilles photos
Hugo: je suis partant
Hugo: joyeux anniversaire julien au fait, il m'a écrit hier 🎉
Maman: mamie a appelé, elle veut savoir si vous venez dimanche

Hugo: c'est bon, j'ai réservé le vol ! départ le 14 à 6h45 d'orly ✈️
Camille: 6h45 sérieux ?? 😭
Hugo: c'était le moins cher
Maman: quand est-ce qu'on mange dimanche, midi ou le soir ?
Camille: midi c'est mieux pour mamie
Hugo: faut réserver le resto pour samedi ?
Maman: oui je m'en occupe

Maman: le garagiste a rappelé, ils ont fini de réparer la voiture, on peut la récupérer demain
Hugo: nickel, c'était quoi le problème ?
Maman: les freins, 400 euros 😬
Camille: aïe
Hugo: j'ai pris ta voiture pour aller au boulot lundi, ok ?
Maman: pas de souci

Camille: le mariage de léa et tom c'est en juin finalement
Maman: on a reçu l'invitation hier
Hugo: je sais pas quoi mettre 😅
Camille: un costume, comme tout le monde mdr""",
    (
        Case(
            "visite de l'appartement",
            "on a visité deux apparts samedi, celui de la rue victor hugo est top mais un peu cher",
            (("visite", "visité"), ("appartement", "apparts")),
        ),
        Case(
            "vaccin du chat",
            "j'ai emmené les chats chez le véto ce matin, ils sont vaccinés 👍",
            (("vaccin", "vaccinés"), ("chat", "chats")),
        ),
        Case(
            "cadeau anniversaire mamie",
            "idée de cadeaux pour l'anniversaire de mamie : un album photo avec toute la famille ?",
            (("cadeau", "cadeaux"),),
        ),
        Case(
            "quand est-ce qu'on a réservé les vols",
            "c'est bon, j'ai réservé le vol ! départ le 14 à 6h45 d'orly ✈️",
            (("vols", "vol"),),
        ),
        Case(
            "voiture réparée au garage",
            "le garagiste a rappelé, ils ont fini de réparer la voiture, on peut la récupérer demain",
            (("réparée", "réparer"),),
        ),
    ),
)

PORTUGUESE = Language(
    "pt",
    "portuguese",
    """Ana: visitei aquele apartamento na vila madalena hj, é pequeno mas a varanda é top
Mãe: que legal filha! e o preço?
Ana: meio salgado kkk
Rafa: o apartamento da carol ficou lindo depois da reforma
Rafa: quando a gente vai na casa da tia? faz séculos
Mãe: no feriado quem sabe

Rafa: levei o cachorro no veterinário hoje, ele já tá vacinado 🐶
Mãe: ai que bom, obrigada filho
Ana: ele se comportou?
Rafa: chorou igual um bebê kkkkk
Ana: os cachorros do vizinho latiram a noite toda 🙄 não dormi nada
Mãe: fala com o síndico

Ana: pro aniversário da vovó pensei em dar uns presentes simples, tipo um álbum de fotos da família
Mãe: amei a ideia
Rafa: tô dentro
Mãe: a vovó ligou perguntando se vcs vêm domingo
Rafa: vou sim, levo a sobremesa

Mãe: chegou o convite do casamento da ju e do léo!! vai ser em outubro em floripa 😍
Ana: aaaa que lindo
Rafa: cadê os documentos do carro? não acho em lugar nenhum
Mãe: na gaveta da cozinha
Rafa: achei valeu

Mãe: o cara da oficina ligou, o carro tá consertado, dá pra buscar amanhã
Rafa: quanto ficou?
Mãe: 800 reais 😬 era o freio
Ana: nossa
Rafa: quando a gente vai trocar de carro? esse já tá caindo aos pedaços
Mãe: quando sobrar dinheiro né kkk""",
    (
        Case(
            "quando a gente visitou os apartamentos",
            "visitei aquele apartamento na vila madalena hj, é pequeno mas a varanda é top",
            (("visitou", "visitei"), ("apartamentos", "apartamento")),
        ),
        Case(
            "vacina dos cachorros",
            "levei o cachorro no veterinário hoje, ele já tá vacinado 🐶",
            (("vacina", "vacinado"), ("cachorros", "cachorro")),
        ),
        Case(
            "presente aniversario vovo",
            "pro aniversário da vovó pensei em dar uns presentes simples, tipo um álbum de fotos da família",
            (("presente", "presentes"), ("aniversario", "aniversário"), ("vovo", "vovó")),
        ),
        Case(
            "cadê os convites do casamento",
            "chegou o convite do casamento da ju e do léo!! vai ser em outubro em floripa 😍",
            (("convites", "convite"),),
        ),
        Case(
            "quando consertaram o carro",
            "o cara da oficina ligou, o carro tá consertado, dá pra buscar amanhã",
            (("consertaram", "consertado"),),
        ),
    ),
)

ITALIAN = Language(
    "it",
    "italian",
    """Giulia: sono andata a visitare l'appartamento in via dante, è luminoso ma la cucina è minuscola
Mamma: e l'affitto quanto?
Giulia: 900 più spese 😩
Marco: quando abbiamo visto la zia l'ultima volta? mi ha scritto
Mamma: a pasqua credo

Marco: ho portato il gatto dal veterinario stamattina, è vaccinato 👍
Mamma: bravo! quanto hai speso?
Marco: 70 euro
Giulia: i gatti della vicina sono di nuovo sul nostro balcone 😂
Mamma: lasciali stare poverini

Giulia: per il compleanno della nonna pensavo a un regalo tutti insieme, tipo una cena al lago?
Marco: ci sto
Mamma: bellissima idea
Mamma: la nonna chiede se domenica venite a pranzo
Giulia: certo!!
Marco: grazie mille per i regali di ieri comunque!! 😍

Marco: ho prenotato il biglietto per il treno delle 7:40, arriviamo a napoli alle 12
Giulia: così presto? 😭
Marco: costava la metà
Mamma: il treno di ieri era in ritardo di nuovo, che palle
Giulia: come sempre

Mamma: il meccanico ha finito di riparare la macchina, la posso ritirare domani
Marco: quanto ti ha chiesto?
Mamma: 350, erano i freni
Giulia: quando hanno detto che arriva il pacco? lo aspetto da una settimana
Marco: boh, controlla il tracking
Giulia: ok""",
    (
        Case(
            "quando abbiamo visitato gli appartamenti",
            "sono andata a visitare l'appartamento in via dante, è luminoso ma la cucina è minuscola",
            (("visitato", "visitare"), ("appartamenti", "appartamento")),
        ),
        Case(
            "vaccino gatti",
            "ho portato il gatto dal veterinario stamattina, è vaccinato 👍",
            (("vaccino", "vaccinato"), ("gatti", "gatto")),
        ),
        Case(
            "regali compleanno nonna",
            "per il compleanno della nonna pensavo a un regalo tutti insieme, tipo una cena al lago?",
            (("regali", "regalo"),),
        ),
        Case(
            "biglietti del treno prenotati",
            "ho prenotato il biglietto per il treno delle 7:40, arriviamo a napoli alle 12",
            (("biglietti", "biglietto"), ("prenotati", "prenotato")),
        ),
        Case(
            "quando hanno riparato la macchina",
            "il meccanico ha finito di riparare la macchina, la posso ritirare domani",
            (("riparato", "riparare"),),
        ),
    ),
)

DUTCH = Language(
    "nl",
    "dutch",
    """Sanne: zaterdag om 11 uur mogen we het huisje aan de gracht bezichtigen 🏡
Mam: wat leuk! zal ik meegaan?
Sanne: graag!
Daan: ons huis is echt een bende sinds de verbouwing
Mam: wanneer was de laatste keer dat je oma hebt gebeld? 😇
Daan: eh vorige week ofzo

Daan: ben vanochtend met de honden naar de dierenarts geweest, de inentingen zijn gedaan 🐶
Mam: top, wat kostte het?
Daan: 80 euro 🙄
Sanne: het hondje van de buren blaft de hele nacht
Mam: oordoppen 😂

Sanne: voor de verjaardag van oma wil ik een cadeau regelen met z'n allen, misschien een fotoboek?
Daan: goed idee, ik doe mee
Mam: oma belde net, ze vraagt of jullie zondag komen eten
Sanne: ja leuk, ik neem toetje mee
Daan: bedankt trouwens voor het cadeautje van gisteren!! 😍

Daan: heb net de vluchten naar lissabon geboekt! 14 mei om 6:45 vanaf schiphol ✈️
Sanne: zo vroeg?? 😭
Daan: was het goedkoopst
Mam: hebben we nog melk? ik ga zo naar de appie
Sanne: nee bijna op

Mam: ik heb gisteren twee taarten gebakken voor zondag, appel en kwark 😋
Sanne: jaaa
Daan: het feest begint om 3 uur toch?
Mam: half 3
Daan: oké dan ben ik er om kwart over
Sanne: neem jij de slingers mee?""",
    (
        Case(
            "wanneer was de bezichtiging van dat huis",
            "zaterdag om 11 uur mogen we het huisje aan de gracht bezichtigen 🏡",
            (("bezichtiging", "bezichtigen"), ("huis", "huisje")),
        ),
        Case(
            "inenting hond dierenarts",
            "ben vanochtend met de honden naar de dierenarts geweest, de inentingen zijn gedaan 🐶",
            (("inenting", "inentingen"), ("hond", "honden")),
        ),
        Case(
            "cadeautje verjaardag oma",
            "voor de verjaardag van oma wil ik een cadeau regelen met z'n allen, misschien een fotoboek?",
            (("cadeautje", "cadeau"),),
        ),
        Case(
            "hebben we de vlucht al geboekt",
            "heb net de vluchten naar lissabon geboekt! 14 mei om 6:45 vanaf schiphol ✈️",
            (("vlucht", "vluchten"),),
        ),
        Case(
            "taart bakken voor het feest",
            "ik heb gisteren twee taarten gebakken voor zondag, appel en kwark 😋",
            (("taart", "taarten"), ("bakken", "gebakken")),
        ),
    ),
)

RUSSIAN = Language(
    "ru",
    "russian",
    """Катя: в субботу ходили смотреть квартиру возле сокола, светлая, но дороговато
Мама: ну а что хозяйка говорит?
Катя: торговаться не хочет 😒
Миша: квартира у светы просто огонь после ремонта, видела?
Катя: да, красиво

Катя: сегодня возила кошку к ветеринару, прививку сделали 👍
Мама: умничка, сколько заплатила?
Катя: 2500 😬
Миша: у кошки опять шерсть везде, капец
Мама: линяет, весна же

Катя: на др бабушки предлагаю скинуться на один большой подарок, например новый телефон 📱
Миша: я за
Мама: хорошая идея, а то старый совсем тормозит
Мама: бабушке позвони, она спрашивала про тебя
Миша: на др к саше идёшь в субботу?
Катя: иду конечно

Мама: лена с димой прислали приглашения на свадьбу!! 14 сентября в сочи 😍
Катя: ура наконец-то
Миша: на свадьбе у коли было так весело, надеюсь тут тоже
Мама: ну посмотрим

Мама: ключ от дачи оставила у соседки, забери у неё
Миша: ок, завтра заеду
Катя: на даче опять свет отключили 😤
Мама: да, до пятницы обещали починить
Миша: как всегда""",
    (
        Case(
            "квартира на соколе",
            "в субботу ходили смотреть квартиру возле сокола, светлая, но дороговато",
            (("квартира", "квартиру"), ("соколе", "сокола")),
        ),
        Case(
            "прививка кошки",
            "сегодня возила кошку к ветеринару, прививку сделали 👍",
            (("прививка", "прививку"), ("кошки", "кошку")),
        ),
        Case(
            "подарок бабушке на др",
            "на др бабушки предлагаю скинуться на один большой подарок, например новый телефон 📱",
            (("бабушке", "бабушки"),),
        ),
        Case(
            "свадьба приглашение",
            "лена с димой прислали приглашения на свадьбу!! 14 сентября в сочи 😍",
            (("свадьба", "свадьбу"), ("приглашение", "приглашения")),
        ),
        Case(
            "ключи дача",
            "ключ от дачи оставила у соседки, забери у неё",
            (("ключи", "ключ"), ("дача", "дачи")),
        ),
    ),
)

TURKISH = Language(
    "tr",
    "turkish",
    """Ayşe: cumartesi Kadıköy'de bir ev gezdik, balkonu süper ama kira çok yüksek
Annem: ne kadar istiyorlar?
Ayşe: 25 bin 😩
Mehmet: evler çok pahalı olmuş artık ya
Annem: her yer öyle

Ayşe: kediyi bugün veterinere götürdüm, aşıları yapıldı 🐱
Annem: aferin kızım
Mehmet: kediler yine bütün gece miyavladı 😩 uyuyamadım
Ayşe: mama koymayı unutmuşsun ondan

Mehmet: anneannemin doğum günü için hediye olarak tablet alalım mı?
Ayşe: olur bence, ben de katılırım
Annem: çok güzel fikir
Annem: anneanneme bugün uğradım, selam söylüyor
Mehmet: aleyküm selam 😊

Annem: sanayiden aradılar, araban cuma tamirden çıkıyormuş 🔧
Mehmet: süper, ne kadar tuttu?
Annem: 4 bin, balatalar gitmiş
Ayşe: ne zaman geliyorsunuz? yemek hazır
Mehmet: 10 dakikaya ordayız

Mehmet: İzmir'e bilet aldık, cuma sabah 7 uçağı ✈️
Ayşe: bu kadar erken mi ya 😭
Mehmet: en ucuzu oydu
Annem: izmir'de hava nasıl? çok sıcak mı
Ayşe: konser biletleri tükenmiş bu arada 😭
Mehmet: olamaz""",
    (
        Case(
            "kadıköydeki evler",
            "cumartesi Kadıköy'de bir ev gezdik, balkonu süper ama kira çok yüksek",
            (("kadıköydeki", "kadıköy"), ("evler", "ev")),
        ),
        Case(
            "kediler veteriner",
            "kediyi bugün veterinere götürdüm, aşıları yapıldı 🐱",
            (("kediler", "kediyi"), ("veteriner", "veterinere")),
        ),
        Case(
            "anneanneme hediye",
            "anneannemin doğum günü için hediye olarak tablet alalım mı?",
            (("anneanneme", "anneannemin"),),
        ),
        Case(
            "arabamın tamiri ne zaman bitiyor",
            "sanayiden aradılar, araban cuma tamirden çıkıyormuş 🔧",
            (("arabamın", "araban"), ("tamiri", "tamirden")),
        ),
        Case(
            "biletleri aldın mı",
            "İzmir'e bilet aldık, cuma sabah 7 uçağı ✈️",
            (("biletleri", "bilet"), ("aldın", "aldık")),
        ),
        Case(
            "izmir biletler",
            "İzmir'e bilet aldık, cuma sabah 7 uçağı ✈️",
            (("izmir", "İzmir"), ("biletler", "bilet")),
        ),
    ),
)

LANGUAGES = {
    lang.code: lang for lang in (GERMAN, SPANISH, FRENCH, PORTUGUESE, ITALIAN, DUTCH, RUSSIAN, TURKISH)
}
CASES = [(code, case) for code, lang in LANGUAGES.items() for case in lang.cases]

ENGLISH_CHAT = """Sam: booked the flat in cornwall for the first week of august 🏖️
Jess: yesss finally
Sam: it's got a sea view and everything
Jess: when did we last see granny? ages ago
Sam: easter i think

Jess: the war movie last night was so sad, i thought i'd die 😭
Sam: told you it was brutal
Jess: never again lol
Sam: i'm picking up the kids at 4 btw, can you do dinner?
Jess: yep, pasta it is

Sam: did you call the plumber about the sink?
Jess: he's coming thursday between 8 and 12
Sam: of course he is
Jess: can you be home for that? i've got the dentist
Sam: yeah i'll work from home

Jess: mum says the party is at 3 on sunday
Sam: what do we bring?
Jess: just wine i think
Sam: ok i'll grab a couple of bottles on the way
Jess: and don't forget the card this time 😂
Sam: that was ONE time"""

ENGLISH_CASE = Case("when did we book the holiday flat", "booked the flat in cornwall", ())


def whatsapp_export(path: Path, chat: str) -> Path:
    """``chat`` as an Android WhatsApp export: each session on a day of its own, messages two minutes apart."""
    lines = []
    for day, session in enumerate(chat.split("\n\n")):
        start = datetime(2024, 3, 13 + day, 18, 0)
        for i, line in enumerate(session.splitlines()):
            sender, text = line.split(": ", 1)
            lines.append(f"{start + timedelta(minutes=2 * i):%d.%m.%y, %H:%M} - {sender}: {text}\n")
    path.write_text("".join(lines), encoding="utf-8")
    return path
