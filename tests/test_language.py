"""A chat's language: told from its own text at import, stored, shown, and overridable with --lang."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from cli_runs import run

from refind_cli.storage.archive import Archive
from refind_cli.text.language import UNDETERMINED, detect

# Chats as people type them: short lines, no capitals, English words, emoji.
CHATS = {
    "de": """hey, bist du schon zuhause? 😅
ja gerade angekommen, der zug hatte mal wieder 20 min delay
typisch deutsche bahn lol
hast du heute abend zeit? wir wollten ins kino, der neue film soll echt gut sein
klingt gut aber ich muss noch was für die arbeit fertig machen, deadline ist morgen 🙈
ach komm, nur kurz. das meeting ist doch erst um 10
na gut, wann treffen wir uns?
um acht vor dem kino? ich hol die tickets
perfekt, bis dann! kannst du mir noch die nummer von lisa schicken
klar mach ich gleich""",
    "es": """oye ya llegaste a casa? 😂
sí, acabo de llegar, el metro iba lleno como siempre
qué horror jaja
tienes tiempo esta noche? queremos ir al cine, dicen que la peli nueva está muy buena
me encantaría pero tengo que terminar algo del trabajo, el deadline es mañana 🙈
venga, solo un rato. la reunión es a las 10
vale, a qué hora nos vemos?
a las ocho delante del cine? yo compro las entradas
perfecto, nos vemos! me pasas el número de lucía porfa
claro ahora te lo mando""",
    "fr": """t'es rentré ? 😅
oui je viens d'arriver, le rer était encore en retard
la galère mdr
t'as le temps ce soir ? on voulait aller au ciné, le nouveau film a l'air trop bien
j'aimerais bien mais je dois finir un truc pour le boulot, la deadline c'est demain 🙈
allez juste un peu, la réunion est à 10h
bon ok, on se retrouve à quelle heure ?
à huit heures devant le ciné ? je prends les places
parfait, à tout à l'heure ! tu peux m'envoyer le numéro de julie stp
oui je te l'envoie tout de suite""",
    "pt": """e aí, já chegou em casa? 😂
já, acabei de chegar, o metrô tava lotado de novo
que saco kkk
você tem tempo hoje à noite? a gente queria ir no cinema, dizem que o filme novo é muito bom
queria muito mas tenho que terminar uma coisa do trabalho, o deadline é amanhã 🙈
ah vai, só um pouquinho. a reunião é só às 10
tá bom, que horas a gente se encontra?
às oito na frente do cinema? eu compro os ingressos
perfeito, até mais! me manda o número da juliana por favor
claro, já te mando""",
    "it": """ehi sei già a casa? 😅
sì sono appena arrivato, il treno era di nuovo in ritardo
che palle ahah
hai tempo stasera? volevamo andare al cinema, dicono che il film nuovo è molto bello
mi piacerebbe ma devo finire una cosa per il lavoro, la deadline è domani 🙈
dai solo un po'. la riunione è alle 10
va bene, a che ora ci vediamo?
alle otto davanti al cinema? prendo io i biglietti
perfetto, a dopo! mi mandi il numero di giulia per favore
certo te lo mando subito""",
    "nl": """hé ben je al thuis? 😅
ja net aangekomen, de trein had weer vertraging
typisch ns haha
heb je vanavond tijd? we wilden naar de film, de nieuwe film schijnt echt goed te zijn
zou ik wel willen maar ik moet nog iets voor werk afmaken, de deadline is morgen 🙈
kom op, even maar. de meeting is pas om 10 uur
oké, hoe laat spreken we af?
om acht uur voor de bios? ik haal de kaartjes
perfect, tot straks! kun je me het nummer van lotte nog sturen
ja doe ik zo""",
    "ru": """привет, ты уже дома? 😅
да только что пришла, метро опять опоздало
ну как всегда
у тебя есть время сегодня вечером? мы хотели в кино, говорят новый фильм очень хороший
я бы с радостью но мне надо доделать кое-что по работе, дедлайн завтра 🙈
да ладно, только на часик. встреча же только в 10
ну хорошо, во сколько встречаемся?
в восемь у кинотеатра? я куплю билеты
отлично, до встречи! скинь мне номер кати пожалуйста
да, сейчас скину""",
    "tr": """eve vardın mı? 😅
evet şimdi geldim, metro yine gecikti
her zamanki gibi ya
bu akşam vaktin var mı? sinemaya gitmek istiyorduk, yeni film çok güzelmiş
çok isterdim ama iş için bir şey bitirmem lazım, deadline yarın 🙈
hadi ama biraz sadece. toplantı zaten 10da
tamam, saat kaçta buluşalım?
sekizde sinemanın önünde? biletleri ben alırım
süper, görüşürüz! bana ayşenin numarasını atar mısın
tabii hemen atıyorum""",
    "en": """hey are you home yet? 😅
yeah just got in, the train was late again
of course it was lol
do you have time tonight? we wanted to go to the movies, the new one is supposed to be really good
i'd love to but i have to finish something for work, the deadline is tomorrow 🙈
come on, just for a bit. the meeting isn't until 10
ok fine, when do we meet?
at eight in front of the cinema? i'll get the tickets
perfect, see you then! can you send me lisa's number
sure doing it now""",
}

MIXED_DE_EN = """ok guys, das meeting ist moved to 3pm
hab das deck schon updated, check mal die slides
the numbers look good but der forecast für q3 ist noch nicht final
kannst du das bitte mit sales abstimmen? die brauchen das asap
sure, mach ich nach dem lunch
btw der client hat gefragt ob wir das feature bis friday shippen können
no way, das schaffen wir nicht, sag ihm nächste woche
alright 👍 ich schreib ihm gleich"""


@pytest.mark.parametrize("lang", sorted(CHATS))
def test_each_language_is_told_from_a_short_chat(lang: str):
    assert detect(CHATS[lang].splitlines()) == lang


def test_a_german_chat_full_of_english_words_is_german():
    assert detect(MIXED_DE_EN.splitlines()) == "de"


def test_too_little_text_is_undetermined():
    assert detect(["ok 👍", "haha", "bis morgen"]) == UNDETERMINED
    assert detect([]) == UNDETERMINED


def test_telling_a_chat_is_fast():
    texts = CHATS["de"].splitlines() * 100  # past the sample
    start = time.perf_counter()
    for _ in range(20):
        detect(texts)
    assert (time.perf_counter() - start) / 20 < 0.1


def _whatsapp(path: Path, lines: list[str], start_day: int = 1) -> Path:
    body = "".join(
        f"{start_day + i // 20:02d}.03.24, 10:{i % 60:02d} - {'Anna' if i % 2 else 'Ben'}: {line}\n"
        for i, line in enumerate(lines)
    )
    path.write_text(body, encoding="utf-8")
    return path


def _chats(home: Path) -> list[dict]:
    r = run(home, "chats", "--json")
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)["chats"]


def test_import_stores_the_language_and_chats_shows_it(tmp_path: Path):
    home = tmp_path / "home"
    export = _whatsapp(tmp_path / "WhatsApp Chat with Anna.txt", CHATS["es"].splitlines())
    assert run(home, "import", "--tz", "Europe/Berlin", str(export)).exit_code == 0
    assert [c["lang"] for c in _chats(home)] == ["es"]
    table = run(home, "chats", "--tsv").stdout.splitlines()
    assert table[0].split("\t")[-2:] == ["lang", "language"] and table[1].split("\t")[-2:] == [
        "es",
        "Spanish",
    ]
    assert "Spanish" in run(home, "chats").stdout


def test_lang_overrides_and_survives_a_reimport(tmp_path: Path):
    home = tmp_path / "home"
    export = _whatsapp(tmp_path / "WhatsApp Chat with Anna.txt", CHATS["es"].splitlines())
    assert run(home, "import", "--tz", "Europe/Berlin", "--lang", "PT", str(export)).exit_code == 0
    assert [c["lang"] for c in _chats(home)] == ["pt"]
    # The chat grows far past double, in Spanish: still the language the user gave.
    grown = _whatsapp(export, CHATS["es"].splitlines() * 5)
    assert run(home, "import", "--tz", "Europe/Berlin", str(grown)).exit_code == 0
    assert [c["lang"] for c in _chats(home)] == ["pt"]


def test_a_reimport_tells_again_only_once_the_chat_doubled(tmp_path: Path):
    home = tmp_path / "home"
    export = tmp_path / "WhatsApp Chat with Anna.txt"
    english = CHATS["en"].splitlines()
    german = CHATS["de"].splitlines() * 3
    assert run(home, "import", "--tz", "Europe/Berlin", str(_whatsapp(export, english))).exit_code == 0
    assert [c["lang"] for c in _chats(home)] == ["en"]
    # Nine long German messages more (not doubled, though most of the words now): the language stays.
    _whatsapp(export, [*english, *[" ".join(german)] * 9])
    assert run(home, "import", "--tz", "Europe/Berlin", str(export)).exit_code == 0
    assert [c["lang"] for c in _chats(home)] == ["en"]
    # Now the chat has more than doubled, mostly in German lately: told again.
    _whatsapp(export, english + german)
    assert run(home, "import", "--tz", "Europe/Berlin", str(export)).exit_code == 0
    assert [c["lang"] for c in _chats(home)] == ["de"]


def test_an_unknown_lang_is_one_line_exit_2(tmp_path: Path):
    home = tmp_path / "home"
    export = _whatsapp(tmp_path / "WhatsApp Chat with Anna.txt", CHATS["es"].splitlines())
    r = run(home, "import", "--lang", "german", str(export))
    assert r.exit_code == 2
    assert r.output.strip().splitlines() == [
        "refind: error: --lang: 'german' is not an ISO 639-1 language code (e.g. en, de, es)"
    ]
    with Archive.open(home) as archive:
        assert archive.chats() == []


def test_a_chat_with_a_third_of_its_messages_in_english_is_told_bilingual_its_own_language_first() -> None:
    from language_chats import ENGLISH_CHAT, LANGUAGES

    english = [line.split(": ", 1)[1] for line in ENGLISH_CHAT.splitlines() if line]
    for code, lang in LANGUAGES.items():
        own = [line.split(": ", 1)[1] for line in lang.chat.splitlines() if line]
        mixed = [english[i % len(english)] if i % 3 == 2 else text for i, text in enumerate(own)]
        assert detect(mixed) == f"{code}+en", code


def test_a_huge_message_is_told_from_its_beginning_not_read_whole() -> None:
    german = "ich habe die Wohnung gestern gesehen und sie ist nicht schlecht " * 1_000
    # Read whole, the English that follows would outweigh it; a 50 MB message is sampled, not read.
    assert detect([german + "the and you it is " * 2_000_000]) == "de"
