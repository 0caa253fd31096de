"""Chats in twenty languages, in the shape of issue 21, for tests/test_world_languages.py and
bench/language_bench.py.

Each language has a WhatsApp family chat as people text: everyday filler full of function words, and eight
cases. A case is a message (the needle), a question a native speaker would type for it, using other inflected
forms of the needle's words (plural for singular, another tense or person, another case ending), and a
distractor: a message that shares one stem with the question but is not what it asks about. German and Dutch
chats also hold compounds whose part a question names alone ("arzt" for "Zahnarzt" and "Arzttermin").

HELD_OUT names the languages whose chats were written last and measured only with the code in its final form:
nothing was tuned on them."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class World:
    code: str  # ISO 639-1
    names: tuple[str, str]  # the two people texting
    filler: tuple[str, ...]
    cases: tuple[tuple[str, str, str], ...]  # (needle, question, distractor)
    compounds: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (a part alone, the needles holding it)


GERMAN = World(
    "de",
    ("Lena", "Jonas"),
    (
        "hey na wie gehts euch so?",
        "alles gut bei uns, und bei dir?",
        "ja passt schon, ist halt viel los gerade",
        "ich bin gleich da, bin noch kurz beim bäcker",
        "kannst du mir mal die nummer von der tante schicken?",
        "haha ja genau das hab ich mir auch gedacht",
        "ok bis später dann 👍",
        "weiß ich nicht mehr, frag mal die anderen",
        "hast du das schon gesehen?? 😂",
        "nee noch nicht, mach ich heute abend",
    ),
    (
        (
            "die wohnung in der südstadt können wir samstag besichtigen, hat sogar nen balkon",
            "wann war die besichtigung der wohnungen",
            "die alte wohnung von oma steht immer noch leer",
        ),
        (
            "war heute mit den katzen beim tierarzt, impfungen sind jetzt alle durch",
            "wann wurde die katze geimpft, welche impfung",
            "die katze hat wieder aufs sofa gekotzt 🤢",
        ),
        (
            "die einladungen zur hochzeit von tim und sarah sind heute gekommen!!",
            "wann kam die einladung zu der hochzeit",
            "die hochzeit von paul letztes jahr war ja echt schön",
        ),
        (
            "ich fahre oma am freitag zum flughafen, ihr flieger geht um 7",
            "wer fährt die oma zu den flughäfen",
            "oma hat übrigens angerufen, sie fragt ob ihr sonntag kommt",
        ),
        (
            "ferienwohnung in zingst ist gebucht, mit sauna 🏖️",
            "haben wir die ferienwohnungen schon gebucht",
            "die sauna im fitnessstudio ist seit wochen kaputt",
        ),
        (
            "die waschmaschine ist kaputt, der keller steht unter wasser",
            "was war mit den waschmaschinen los",
            "im keller liegen noch die alten fahrräder",
        ),
        (
            "ich hab die geschenke für papas geburtstag schon eingepackt 🎁",
            "wer packt das geschenk zum geburtstag ein",
            "papa will zum geburtstag bloß keine party",
        ),
        (
            "die stromrechnung war dieses jahr echt heftig, 900 euro nachzahlung",
            "wie hoch waren die stromrechnungen",
            "kannst du die nachzahlung für die versicherung überweisen",
        ),
    ),
    (
        (
            "arzt",
            (
                "ich hab morgen früh einen termin beim zahnarzt",
                "mein arzttermin wurde auf donnerstag verschoben",
            ),
        ),
        ("weihnachten", ("die weihnachtsfeier von der firma ist am 19.",)),
    ),
)

DUTCH = World(
    "nl",
    ("Sanne", "Daan"),
    (
        "hoi hoe is het daar?",
        "goed hoor, en met jou?",
        "ja prima, beetje druk met werk",
        "ik ben er zo, sta nog even in de file",
        "kun je mij het nummer van tante sturen?",
        "haha ja dat dacht ik ook al",
        "oké tot straks dan 👍",
        "weet ik niet meer, vraag het even aan de anderen",
        "heb je dat al gezien?? 😂",
        "nee nog niet, doe ik vanavond wel",
    ),
    (
        (
            "we hebben zaterdag het huis in utrecht bekeken, mooie tuin",
            "wanneer bekijken we de huizen",
            "het oude huis van opa staat nog steeds leeg",
        ),
        (
            "de katten zijn vandaag gevaccineerd bij de dierenarts",
            "wanneer werd de kat gevaccineerd",
            "de kat heeft weer op de bank overgegeven 🤢",
        ),
        (
            "de uitnodiging voor de bruiloft van tim en sarah is binnen!!",
            "wanneer kwamen de uitnodigingen voor bruiloften",
            "de bruiloft van paul vorig jaar was echt mooi",
        ),
        (
            "ik breng oma vrijdag naar het vliegveld, haar vlucht gaat om 7",
            "wie brengt oma naar de vliegvelden",
            "oma belde trouwens, ze vraagt of jullie zondag komen eten",
        ),
        (
            "vakantiehuisje in zeeland is geboekt, met sauna 🏖️",
            "hebben we de vakantiehuisjes al geboekt",
            "de sauna in de sportschool is al weken kapot",
        ),
        (
            "de wasmachine is kapot, de kelder staat onder water",
            "wat was er met de wasmachines",
            "in de kelder staan nog de oude fietsen",
        ),
        (
            "ik heb de cadeaus voor papa's verjaardag al ingepakt 🎁",
            "wie pakt het cadeau voor de verjaardag in",
            "papa wil voor zijn verjaardag echt geen feest",
        ),
        (
            "de energierekening was dit jaar heftig, 900 euro bijbetalen",
            "hoe hoog waren de energierekeningen",
            "kun jij de bijbetaling voor de verzekering overmaken",
        ),
    ),
    (
        (
            "arts",
            ("ik heb morgen een afspraak bij de tandarts", "mijn artsbezoek is naar donderdag verschoven"),
        ),
    ),
)

SWEDISH = World(
    "sv",
    ("Elin", "Oskar"),
    (
        "hej hur är det med er?",
        "bara bra här, och med dig?",
        "jo det är lugnt, lite mycket på jobbet bara",
        "jag är där snart, står fortfarande i kön",
        "kan du skicka numret till moster till mig?",
        "haha ja det tänkte jag också",
        "okej vi ses sen då 👍",
        "vet inte, fråga de andra",
        "har du sett det?? 😂",
        "nej inte än, gör det i kväll",
    ),
    (
        (
            "vi tittade på lägenheten på söder i lördags, den har en stor balkong",
            "när tittar vi på lägenheter",
            "mormors gamla lägenhet står fortfarande tom",
        ),
        (
            "katterna blev vaccinerade hos veterinären idag",
            "när vaccinerades katten",
            "katten har kräkts på soffan igen 🤢",
        ),
        (
            "inbjudan till bröllopet för tim och sara kom idag!!",
            "när kom inbjudningarna till bröllopen",
            "pauls bröllop förra året var så fint",
        ),
        (
            "jag kör mormor till flygplatsen på fredag, planet går 7",
            "vem kör mormor till flygplatser",
            "mormor ringde förresten, hon undrar om ni kommer på söndag",
        ),
        (
            "stugan i dalarna är bokad, med bastu 🏖️",
            "har vi bokat stugorna",
            "bastun på gymmet har varit trasig i veckor",
        ),
        (
            "tvättmaskinen är trasig, källaren står under vatten",
            "vad hände med tvättmaskinerna",
            "i källaren står de gamla cyklarna kvar",
        ),
        (
            "jag har redan slagit in presenterna till pappas födelsedag 🎁",
            "vem slår in presenten till födelsedagen",
            "pappa vill inte ha något kalas på sin födelsedag",
        ),
        (
            "elräkningen var skyhög i år, 9000 kronor",
            "hur höga var elräkningarna",
            "kan du betala räkningen för försäkringen",
        ),
    ),
)

DANISH = World(
    "da",
    ("Freja", "Mads"),
    (
        "hej hvordan går det med jer?",
        "det går fint her, hvad med dig?",
        "jo det er okay, bare lidt travlt på arbejdet",
        "jeg er der snart, holder stadig i kø",
        "kan du sende mig nummeret til moster?",
        "haha ja det tænkte jeg også",
        "okay vi ses senere så 👍",
        "det ved jeg ikke, spørg de andre",
        "har du set det?? 😂",
        "nej ikke endnu, gør det i aften",
    ),
    (
        (
            "vi så lejligheden på nørrebro i lørdags, den har en stor altan",
            "hvornår så vi lejlighederne",
            "mormors gamle lejlighed står stadig tom",
        ),
        (
            "kattene blev vaccineret hos dyrlægen i dag",
            "hvornår blev katten vaccineret",
            "katten har kastet op på sofaen igen 🤢",
        ),
        (
            "invitationen til brylluppet for tim og sara kom i dag!!",
            "hvornår kom invitationerne til bryllupper",
            "pauls bryllup sidste år var så fint",
        ),
        (
            "jeg kører mormor til lufthavnen på fredag, flyet går klokken 7",
            "hvem kører mormor til lufthavne",
            "mormor ringede forresten, hun spørger om I kommer på søndag",
        ),
        (
            "sommerhuset i skagen er booket, med sauna 🏖️",
            "har vi booket sommerhusene",
            "saunaen i fitnesscentret har været i stykker i ugevis",
        ),
        (
            "vaskemaskinen er gået i stykker, kælderen står under vand",
            "hvad skete der med vaskemaskinerne",
            "i kælderen står de gamle cykler stadig",
        ),
        (
            "jeg har allerede pakket gaverne ind til fars fødselsdag 🎁",
            "hvem pakker gaven ind til fødselsdagen",
            "far vil ikke have nogen fest til sin fødselsdag",
        ),
        (
            "elregningen var vildt høj i år, 9000 kroner",
            "hvor høje var elregningerne",
            "kan du betale regningen for forsikringen",
        ),
    ),
)

NORWEGIAN = World(
    "nb",
    ("Ingrid", "Henrik"),
    (
        "hei hvordan går det med dere?",
        "bare bra her, hva med deg?",
        "jo det går fint, bare litt mye på jobb",
        "jeg er der snart, står fortsatt i kø",
        "kan du sende meg nummeret til tante?",
        "haha ja det tenkte jeg også",
        "ok vi sees senere da 👍",
        "vet ikke, spør de andre",
        "har du sett det?? 😂",
        "nei ikke ennå, gjør det i kveld",
    ),
    (
        (
            "vi så på leiligheten på grünerløkka på lørdag, den har stor balkong",
            "når så vi på leilighetene",
            "bestemors gamle leilighet står fortsatt tom",
        ),
        (
            "kattene ble vaksinert hos veterinæren i dag",
            "når ble katten vaksinert",
            "katten har kastet opp på sofaen igjen 🤢",
        ),
        (
            "invitasjonen til bryllupet til tim og sara kom i dag!!",
            "når kom invitasjonene til bryllupene",
            "bryllupet til paul i fjor var så fint",
        ),
        (
            "jeg kjører bestemor til flyplassen på fredag, flyet går klokka 7",
            "hvem kjører bestemor til flyplasser",
            "bestemor ringte forresten, hun lurer på om dere kommer på søndag",
        ),
        (
            "hytta på geilo er booket, med badstue 🏖️",
            "har vi booket hyttene",
            "badstua på treningssenteret har vært ødelagt i ukevis",
        ),
        (
            "vaskemaskinen er ødelagt, kjelleren står under vann",
            "hva skjedde med vaskemaskinene",
            "i kjelleren står de gamle syklene fortsatt",
        ),
        (
            "jeg har allerede pakket inn gavene til pappas bursdag 🎁",
            "hvem pakker inn gaven til bursdagen",
            "pappa vil ikke ha noe selskap på bursdagen sin",
        ),
        (
            "strømregningen var skyhøy i år, 9000 kroner",
            "hvor høye var strømregningene",
            "kan du betale regningen for forsikringen",
        ),
    ),
)

FINNISH = World(
    "fi",
    ("Aino", "Mikko"),
    (
        "moi mitä teille kuuluu?",
        "hyvää kiitos, entä sulle?",
        "ihan ok, vähän kiirettä töissä vaan",
        "oon kohta siellä, vielä jonossa",
        "voitko laittaa mulle tädin numeron?",
        "haha joo niin mäkin ajattelin",
        "okei nähdään sitten myöhemmin 👍",
        "en tiedä, kysy muilta",
        "ootko nähny tän?? 😂",
        "en vielä, katon illalla",
    ),
    (
        (
            "kävimme katsomassa asuntoa kalliossa lauantaina, iso parveke",
            "milloin katsottiin asunnot",
            "mummon vanha asunto on edelleen tyhjillään",
        ),
        (
            "kissat rokotettiin tänään eläinlääkärissä",
            "milloin kissa rokotettiin",
            "kissa oksensi taas sohvalle 🤢",
        ),
        (
            "kutsu timin ja saran häihin tuli tänään!!",
            "milloin kutsut häihin tulivat",
            "paulin häät viime vuonna oli tosi kauniit",
        ),
        (
            "vien mummon lentokentälle perjantaina, kone lähtee seitsemältä",
            "kuka vie mummon lentokentälle",
            "mummo soitti muuten, kysyy tuutteko sunnuntaina",
        ),
        (
            "mökki lapista on varattu, saunan kanssa 🏖️",
            "onko mökit varattu",
            "salin sauna on ollut rikki viikkoja",
        ),
        (
            "pesukone meni rikki, kellari on veden alla",
            "mitä pesukoneelle tapahtui",
            "kellarissa on vielä ne vanhat pyörät",
        ),
        (
            "paketoin jo lahjat isän syntymäpäiville 🎁",
            "kuka paketoi lahjan syntymäpäivälle",
            "isä ei halua mitään juhlia syntymäpäivänään",
        ),
        (
            "sähkölasku oli tänä vuonna tosi iso, 900 euroa",
            "kuinka isoja sähkölaskut olivat",
            "voitko maksaa vakuutuksen laskun",
        ),
    ),
)

HUNGARIAN = World(
    "hu",
    ("Anna", "Bence"),
    (
        "szia mi újság veletek?",
        "minden oké nálunk, és veled?",
        "jó, csak sok a meló mostanában",
        "mindjárt ott vagyok, még sorban állok",
        "el tudod küldeni a nagynéni számát?",
        "haha igen én is erre gondoltam",
        "oké akkor később találkozunk 👍",
        "nem tudom, kérdezd meg a többieket",
        "láttad már ezt?? 😂",
        "még nem, majd este megnézem",
    ),
    (
        (
            "szombaton megnéztük a lakást a belvárosban, nagy erkélye van",
            "mikor néztük meg a lakásokat",
            "a nagyi régi lakása még mindig üresen áll",
        ),
        (
            "a macskákat ma beoltották az állatorvosnál",
            "mikor oltották be a macskát",
            "a macska megint lehányta a kanapét 🤢",
        ),
        (
            "ma jött meg a meghívó tim és sára esküvőjére!!",
            "mikor jöttek a meghívók az esküvőkre",
            "paul esküvője tavaly nagyon szép volt",
        ),
        (
            "pénteken kiviszem a nagyit a repülőtérre, hétkor indul a gépe",
            "ki viszi a nagyit a repülőtérhez",
            "a nagyi amúgy hívott, kérdezi jöttök-e vasárnap",
        ),
        (
            "lefoglaltam a nyaralót a balatonon, szaunával 🏖️",
            "lefoglaltuk már a nyaralókat",
            "a konditerem szaunája hetek óta rossz",
        ),
        (
            "elromlott a mosógép, a pince víz alatt van",
            "mi történt a mosógéppel",
            "a pincében még ott vannak a régi biciklik",
        ),
        (
            "már becsomagoltam az ajándékokat apa születésnapjára 🎁",
            "ki csomagolja be az ajándékot a születésnapra",
            "apa nem akar bulit a születésnapján",
        ),
        (
            "az idei villanyszámla nagyon durva volt, 90 ezer forint",
            "mennyi volt a villanyszámlák összege",
            "be tudod fizetni a biztosítás számláját",
        ),
    ),
)

ROMANIAN = World(
    "ro",
    ("Ioana", "Andrei"),
    (
        "salut ce mai faceți?",
        "bine la noi, tu ce faci?",
        "bine, doar că e mult de lucru acum",
        "ajung imediat, mai stau la coadă",
        "poți să-mi trimiți numărul mătușii?",
        "haha da și eu m-am gândit la asta",
        "ok ne vedem mai târziu atunci 👍",
        "nu mai știu, întreabă-i pe ceilalți",
        "ai văzut asta?? 😂",
        "nu încă, mă uit diseară",
    ),
    (
        (
            "sâmbătă am văzut apartamentul din centru, are un balcon mare",
            "când am văzut apartamentele",
            "apartamentul vechi al bunicii e tot gol",
        ),
        (
            "pisicile au fost vaccinate azi la veterinar",
            "când a fost vaccinată pisica",
            "pisica a vomitat iar pe canapea 🤢",
        ),
        (
            "invitația la nunta lui tim și a sarei a venit azi!!",
            "când au venit invitațiile la nunți",
            "nunta lui paul de anul trecut a fost foarte frumoasă",
        ),
        (
            "o duc pe bunica vineri la aeroport, avionul pleacă la 7",
            "cine o duce pe bunica la aeroporturi",
            "bunica a sunat apropo, întreabă dacă veniți duminică",
        ),
        (
            "cabana de la munte e rezervată, cu saună 🏖️",
            "am rezervat cabanele",
            "sauna de la sală e stricată de săptămâni",
        ),
        (
            "mașina de spălat s-a stricat, pivnița e inundată",
            "ce s-a întâmplat cu mașinile de spălat",
            "în pivniță sunt încă bicicletele vechi",
        ),
        (
            "am împachetat deja cadourile pentru ziua lui tata 🎁",
            "cine împachetează cadoul pentru ziua lui",
            "tata nu vrea petrecere de ziua lui",
        ),
        (
            "factura la curent a fost enormă anul ăsta, 900 de lei",
            "cât de mari au fost facturile",
            "poți să plătești asigurarea mașinii",
        ),
    ),
)

GREEK = World(
    "el",
    ("Μαρία", "Νίκος"),
    (
        "γεια τι κάνετε;",
        "καλά είμαστε, εσύ τι κάνεις;",
        "καλά, απλά έχω πολλή δουλειά τώρα",
        "έρχομαι σε λίγο, είμαι ακόμα στην ουρά",
        "μπορείς να μου στείλεις το τηλέφωνο της θείας;",
        "χαχα ναι κι εγώ αυτό σκέφτηκα",
        "οκ τα λέμε αργότερα τότε 👍",
        "δεν ξέρω, ρώτα τους άλλους",
        "το είδες αυτό;; 😂",
        "όχι ακόμα, θα το δω το βράδυ",
    ),
    (
        (
            "το σάββατο είδαμε το διαμέρισμα στο κέντρο, έχει μεγάλο μπαλκόνι",
            "πότε είδαμε τα διαμερίσματα",
            "το παλιό διαμέρισμα της γιαγιάς είναι ακόμα άδειο",
        ),
        (
            "οι γάτες εμβολιάστηκαν σήμερα στον κτηνίατρο",
            "πότε εμβολιάστηκε η γάτα",
            "η γάτα ξέρασε πάλι στον καναπέ 🤢",
        ),
        (
            "ήρθε σήμερα η πρόσκληση για τον γάμο του τίμου και της σάρας!!",
            "πότε ήρθαν οι προσκλήσεις για τους γάμους",
            "ο γάμος του παύλου πέρσι ήταν πολύ ωραίος",
        ),
        (
            "την παρασκευή πάω τη γιαγιά στο αεροδρόμιο, η πτήση της είναι στις 7",
            "ποιος πάει τη γιαγιά στα αεροδρόμια",
            "η γιαγιά πήρε τηλέφωνο, ρωτάει αν θα έρθετε την κυριακή",
        ),
        (
            "το εξοχικό στη νάξο είναι κλεισμένο, με σάουνα 🏖️",
            "κλείσαμε τα εξοχικά",
            "η σάουνα στο γυμναστήριο είναι χαλασμένη εδώ και βδομάδες",
        ),
        (
            "το πλυντήριο χάλασε, το υπόγειο πλημμύρισε",
            "τι έγινε με τα πλυντήρια",
            "στο υπόγειο είναι ακόμα τα παλιά ποδήλατα",
        ),
        (
            "τύλιξα ήδη τα δώρα για τα γενέθλια του μπαμπά 🎁",
            "ποιος τυλίγει το δώρο για τα γενέθλια",
            "ο μπαμπάς δεν θέλει πάρτι στα γενέθλιά του",
        ),
        (
            "ο λογαριασμός του ρεύματος ήταν τεράστιος φέτος, 900 ευρώ",
            "πόσο ήταν οι λογαριασμοί",
            "μπορείς να πληρώσεις την ασφάλεια του αυτοκινήτου",
        ),
    ),
)

ARABIC = World(
    "ar",
    ("ليلى", "عمر"),
    (
        "مرحبا كيف حالكم؟",
        "الحمد لله بخير، وأنت كيف حالك؟",
        "تمام، بس عندي شغل كثير هذه الأيام",
        "أنا جاي بعد شوي، لسه في الطابور",
        "ممكن ترسل لي رقم خالتي؟",
        "هههه نعم وأنا كمان فكرت في هذا",
        "تمام نشوفكم بعدين 👍",
        "ما أعرف، اسأل الباقين",
        "شفت هذا؟؟ 😂",
        "لا لسه، بشوفه في الليل",
    ),
    (
        (
            "يوم السبت شفنا الشقة في وسط البلد، فيها بلكونة كبيرة",
            "متى شفنا الشقق",
            "شقة جدتي القديمة لا تزال فارغة",
        ),
        (
            "تطعيم القطط تم اليوم عند البيطري",
            "متى تطعمت القطة",
            "القطة استفرغت مرة ثانية على الكنبة 🤢",
        ),
        (
            "وصلت اليوم دعوة عرس تيم وسارة!!",
            "متى وصلت الدعوات للأعراس",
            "عرس بول السنة الماضية كان جميل جدا",
        ),
        (
            "بوصل جدتي للمطار يوم الجمعة، طيارتها الساعة ٧",
            "مين يوصل جدتي للمطارات",
            "جدتي اتصلت بالمناسبة، تسأل إذا بتجوا يوم الأحد",
        ),
        (
            "حجزنا الشاليه في البحر الميت، فيه ساونا 🏖️",
            "هل حجزت الشاليهات",
            "الساونا في النادي خربانة من أسابيع",
        ),
        (
            "الغسالة خربت، والقبو كله ماء",
            "شو صار للغسالات",
            "في القبو لسه الدراجات القديمة",
        ),
        (
            "غلفت الهدايا لعيد ميلاد بابا 🎁",
            "مين يغلف الهدية لعيد الميلاد",
            "بابا ما يبغى حفلة في عيد ميلاده",
        ),
        (
            "فاتورة الكهرباء كانت غالية جدا هذه السنة، ٩٠٠ دينار",
            "كم كانت فواتير الكهرباء",
            "ممكن تدفع التأمين حق السيارة",
        ),
    ),
)

INDONESIAN = World(
    "id",
    ("Putri", "Budi"),
    (
        "halo apa kabar kalian?",
        "baik kok, kamu gimana?",
        "baik, cuma lagi banyak kerjaan aja",
        "aku bentar lagi sampai, masih antri",
        "bisa kirim nomor tante ke aku?",
        "haha iya aku juga mikir gitu",
        "oke sampai nanti ya 👍",
        "nggak tahu, tanya yang lain aja",
        "udah lihat ini belum?? 😂",
        "belum, nanti malam aku lihat",
    ),
    (
        (
            "sabtu kemarin kami melihat apartemen di kemang, balkonnya besar",
            "kapan kita lihat apartemennya",
            "apartemen lama nenek masih kosong",
        ),
        (
            "kucing-kucing sudah divaksinasi di dokter hewan hari ini",
            "kapan vaksinasi kucingnya",
            "kucingnya muntah lagi di sofa 🤢",
        ),
        (
            "undangan pernikahan tim dan sarah datang hari ini!!",
            "kapan undangannya datang untuk nikahan",
            "pernikahan paul tahun lalu bagus banget",
        ),
        (
            "aku mengantar nenek ke bandara hari jumat, pesawatnya jam 7",
            "siapa yang antar nenek ke bandara",
            "nenek tadi telepon, tanya kalian datang hari minggu nggak",
        ),
        (
            "villa di bali sudah dipesan, ada saunanya 🏖️",
            "sudah pesan villanya belum",
            "sauna di gym rusak sudah berminggu-minggu",
        ),
        (
            "mesin cucinya rusak, gudangnya kebanjiran",
            "kenapa mesin cuci kita",
            "di gudang masih ada sepeda-sepeda lama",
        ),
        (
            "aku sudah membungkus kado untuk ulang tahun ayah 🎁",
            "siapa yang bungkus kadonya untuk ulang tahun",
            "ayah nggak mau pesta di ulang tahunnya",
        ),
        (
            "tagihan listrik tahun ini mahal banget, 900 ribu",
            "berapa tagihannya listrik",
            "bisa bayar asuransi mobil nggak",
        ),
    ),
)

CZECH = World(
    "cs",
    ("Tereza", "Jakub"),
    (
        "ahoj jak se máte?",
        "dobře, a co ty?",
        "v pohodě, jen mám teď hodně práce",
        "budu tam za chvíli, ještě stojím ve frontě",
        "můžeš mi poslat číslo na tetu?",
        "haha jo to jsem si taky myslel",
        "ok tak se uvidíme pozdějc 👍",
        "nevím, zeptej se ostatních",
        "viděl jsi to?? 😂",
        "ještě ne, podívám se večer",
    ),
    (
        (
            "v sobotu jsme si prohlédli byt na vinohradech, má velký balkon",
            "kdy jsme si prohlíželi byty",
            "babiččin starý byt je pořád prázdný",
        ),
        (
            "kočky dnes dostaly očkování u veterináře",
            "kdy byla kočka očkovaná",
            "kočka zase zvracela na gauč 🤢",
        ),
        (
            "dneska přišla pozvánka na svatbu tima a sáry!!",
            "kdy přišly pozvánky na svatby",
            "pavlova svatba loni byla moc hezká",
        ),
        (
            "v pátek vezu babičku na letiště, letadlo letí v 7",
            "kdo veze babičku na letiště",
            "babička mimochodem volala, ptá se jestli přijedete v neděli",
        ),
        (
            "chata v krkonoších je zarezervovaná, se saunou 🏖️",
            "máme zarezervované chaty",
            "sauna ve fitku je už týdny rozbitá",
        ),
        (
            "pračka se rozbila, sklep je pod vodou",
            "co se stalo s pračkou",
            "ve sklepě jsou pořád ty staré kola",
        ),
        (
            "už jsem zabalila dárky k tátovým narozeninám 🎁",
            "kdo balí dárek k narozeninám",
            "táta na narozeniny nechce žádnou oslavu",
        ),
        (
            "účet za elektřinu byl letos šílený, 9000 korun",
            "kolik byly účty za elektřinu",
            "můžeš zaplatit pojištění auta",
        ),
    ),
)

POLISH = World(
    "pl",
    ("Kasia", "Tomek"),
    (
        "cześć co tam u was?",
        "wszystko dobrze, a u ciebie?",
        "spoko, tylko dużo roboty teraz",
        "zaraz będę, jeszcze stoję w kolejce",
        "możesz mi wysłać numer do cioci?",
        "haha no ja też tak pomyślałam",
        "ok to do zobaczenia później 👍",
        "nie wiem, zapytaj innych",
        "widziałeś to?? 😂",
        "jeszcze nie, obejrzę wieczorem",
    ),
    (
        (
            "w sobotę oglądaliśmy mieszkanie na mokotowie, ma duży balkon",
            "kiedy oglądamy mieszkania",
            "stare mieszkanie babci dalej stoi puste",
        ),
        (
            "koty zostały dziś zaszczepione u weterynarza",
            "kiedy zaszczepiono kota",
            "kot znowu zwymiotował na kanapę 🤢",
        ),
        (
            "dziś przyszło zaproszenie na ślub tima i sary!!",
            "kiedy przyszły zaproszenia na śluby",
            "ślub pawła w zeszłym roku był naprawdę piękny",
        ),
        (
            "w piątek zawożę babcię na lotnisko, samolot ma o 7",
            "kto zawiezie babcię na lotniska",
            "babcia dzwoniła, pyta czy przyjedziecie w niedzielę",
        ),
        (
            "domek w zakopanem zarezerwowany, z sauną 🏖️",
            "czy zarezerwowaliśmy domki",
            "sauna na siłowni od tygodni jest zepsuta",
        ),
        (
            "pralka się zepsuła, piwnica jest zalana",
            "co się stało z pralkami",
            "w piwnicy dalej stoją stare rowery",
        ),
        (
            "już zapakowałam prezenty na urodziny taty 🎁",
            "kto pakuje prezent na urodziny",
            "tata nie chce żadnej imprezy na urodziny",
        ),
        (
            "rachunek za prąd był w tym roku kosmiczny, 900 złotych",
            "ile wynosiły rachunki za prąd",
            "możesz zapłacić ubezpieczenie auta",
        ),
    ),
)

UKRAINIAN = World(
    "uk",
    ("Оксана", "Дмитро"),
    (
        "привіт як ви там?",
        "все добре, а в тебе як?",
        "нормально, просто багато роботи зараз",
        "я скоро буду, ще стою в черзі",
        "можеш скинути мені номер тітки?",
        "хаха так я теж так подумала",
        "ок тоді побачимось пізніше 👍",
        "не знаю, спитай інших",
        "ти це бачив?? 😂",
        "ще ні, подивлюсь увечері",
    ),
    (
        (
            "у суботу ми дивилися квартиру на подолі, там великий балкон",
            "коли ми подивимося квартири",
            "стара квартира бабусі досі стоїть порожня",
        ),
        (
            "котам сьогодні зробили щеплення у ветеринара",
            "коли коту робили щеплення",
            "кіт знову виблював на диван 🤢",
        ),
        (
            "сьогодні прийшло запрошення на весілля тіма і сари!!",
            "коли прийшли запрошення на весілля",
            "весілля павла минулого року було дуже гарне",
        ),
        (
            "у п'ятницю везу бабусю в аеропорт, літак о 7",
            "хто везе бабусю до аеропорту",
            "бабуся дзвонила, питає чи ви приїдете в неділю",
        ),
        (
            "будиночок у карпатах заброньований, з сауною 🏖️",
            "чи ми забронювали будиночки",
            "сауна в спортзалі зламана вже кілька тижнів",
        ),
        (
            "пральна машина зламалася, підвал затопило",
            "що сталося з пральною машиною",
            "у підвалі досі стоять старі велосипеди",
        ),
        (
            "я вже запакувала подарунки на день народження тата 🎁",
            "хто пакує подарунок на день народження",
            "тато не хоче ніякої вечірки на день народження",
        ),
        (
            "рахунок за світло цього року був величезний, 900 гривень",
            "скільки були рахунки за світло",
            "можеш оплатити страховку машини",
        ),
    ),
)

BULGARIAN = World(
    "bg",
    ("Мария", "Георги"),
    (
        "здравейте как сте?",
        "добре сме, ти как си?",
        "добре, просто имам много работа сега",
        "идвам след малко, още съм на опашката",
        "можеш ли да ми пратиш номера на леля?",
        "хаха да и аз така си помислих",
        "ок ще се видим по-късно тогава 👍",
        "не знам, питай другите",
        "видя ли това?? 😂",
        "още не, ще го видя довечера",
    ),
    (
        (
            "в събота разгледахме апартамента в центъра, има голяма тераса",
            "кога разглеждаме апартаментите",
            "старият апартамент на баба още стои празен",
        ),
        (
            "котките бяха ваксинирани днес при ветеринаря",
            "кога ваксинираха котката",
            "котката пак повърна на дивана 🤢",
        ),
        (
            "днес дойде поканата за сватбата на тим и сара!!",
            "кога дойдоха поканите за сватбите",
            "сватбата на павел миналата година беше много хубава",
        ),
        (
            "в петък карам баба до летището, самолетът ѝ е в 7",
            "кой кара баба до летищата",
            "баба се обади между другото, пита дали ще дойдете в неделя",
        ),
        (
            "вилата в банско е резервирана, със сауна 🏖️",
            "резервирахме ли вилите",
            "сауната във фитнеса е развалена от седмици",
        ),
        (
            "пералнята се развали, мазето е наводнено",
            "какво стана с пералните",
            "в мазето още стоят старите колела",
        ),
        (
            "вече опаковах подаръците за рождения ден на татко 🎁",
            "кой опакова подаръка за рождения ден",
            "татко не иска никакво парти за рождения си ден",
        ),
        (
            "сметката за тока беше огромна тази година, 900 лева",
            "колко бяха сметките за тока",
            "можеш ли да платиш застраховката на колата",
        ),
    ),
)

SLOVAK = World(
    "sk",
    ("Zuzana", "Martin"),
    (
        "ahoj ako sa máte?",
        "dobre, a čo ty?",
        "v pohode, len mám teraz veľa roboty",
        "budem tam o chvíľu, ešte stojím v rade",
        "môžeš mi poslať číslo na tetu?",
        "haha hej aj ja som si to myslela",
        "ok tak sa uvidíme neskôr 👍",
        "neviem, opýtaj sa ostatných",
        "videl si to?? 😂",
        "ešte nie, pozriem večer",
    ),
    (
        (
            "v sobotu sme si pozreli byt v petržalke, má veľký balkón",
            "kedy sme pozerali byty",
            "starý byt starej mamy je stále prázdny",
        ),
        (
            "mačky dnes dostali očkovanie u veterinára",
            "kedy bola mačka očkovaná",
            "mačka zase vracala na gauč 🤢",
        ),
        (
            "dnes prišla pozvánka na svadbu tima a sáry!!",
            "kedy prišli pozvánky na svadby",
            "pavlova svadba minulý rok bola veľmi pekná",
        ),
        (
            "v piatok veziem babku na letisko, lietadlo letí o 7",
            "kto vezie babku na letiská",
            "babka mimochodom volala, pýta sa či prídete v nedeľu",
        ),
        (
            "chata v tatrách je zarezervovaná, so saunou 🏖️",
            "máme zarezervované chaty",
            "sauna vo fitku je už týždne pokazená",
        ),
        (
            "práčka sa pokazila, pivnica je pod vodou",
            "čo sa stalo s práčkami",
            "v pivnici sú stále tie staré bicykle",
        ),
        (
            "už som zabalila darčeky na oteckove narodeniny 🎁",
            "kto balí darček na narodeniny",
            "otecko na narodeniny nechce žiadnu oslavu",
        ),
        (
            "účet za elektrinu bol tento rok šialený, 900 eur",
            "koľko boli účty za elektrinu",
            "môžeš zaplatiť poistenie auta",
        ),
    ),
)

HEBREW = World(
    "he",
    ("נועה", "איתי"),
    (
        "היי מה שלומכם?",
        "הכל טוב אצלנו, ומה איתך?",
        "בסדר, פשוט יש לי הרבה עבודה עכשיו",
        "אני מגיע עוד מעט, עדיין בתור",
        "אתה יכול לשלוח לי את המספר של הדודה?",
        "חחח כן גם אני חשבתי על זה",
        "אוקיי נתראה אחר כך 👍",
        "לא יודע, תשאל את האחרים",
        "ראית את זה?? 😂",
        "עוד לא, אני אראה בערב",
    ),
    (
        (
            "בשבת ראינו את הדירה בפלורנטין, יש לה מרפסת גדולה",
            "מתי ראינו דירות",
            "הדירה הישנה של סבתא עדיין ריקה",
        ),
        (
            "החתולים קיבלו היום חיסון אצל הווטרינר",
            "מתי החתול קיבל חיסונים",
            "החתול הקיא שוב על הספה 🤢",
        ),
        (
            "ההזמנה לחתונה של תום ושרה הגיעה היום!!",
            "מתי הגיעו ההזמנות לחתונות",
            "החתונה של פול בשנה שעברה הייתה מאוד יפה",
        ),
        (
            "ביום שישי אני לוקח את סבתא לשדה התעופה, הטיסה שלה ב7",
            "מי לוקח את סבתא לטיסות",
            "סבתא התקשרה דרך אגב, שואלת אם אתם באים בשבת",
        ),
        (
            "הצימר בגליל הוזמן, עם סאונה 🏖️",
            "הזמנו את הצימרים",
            "הסאונה בחדר כושר מקולקלת כבר שבועות",
        ),
        (
            "מכונת הכביסה התקלקלה, המחסן מוצף",
            "מה קרה למכונות הכביסה",
            "במחסן עדיין יש את האופניים הישנים",
        ),
        (
            "כבר עטפתי את המתנות ליום ההולדת של אבא 🎁",
            "מי עוטף מתנה ליום ההולדת",
            "אבא לא רוצה מסיבה ביום ההולדת שלו",
        ),
        (
            "חשבון החשמל השנה היה מטורף, 900 שקל",
            "כמה היו חשבונות החשמל",
            "אתה יכול לשלם את הביטוח של האוטו",
        ),
    ),
)

SPANISH = World(
    "es",
    ("Lucía", "Pablo"),
    (
        "hola qué tal estáis?",
        "todo bien por aquí, y tú qué tal?",
        "bien, solo que tengo mucho trabajo ahora",
        "ya casi llego, todavía estoy en la cola",
        "me puedes pasar el número de la tía?",
        "jajaja sí yo también lo pensé",
        "vale nos vemos luego entonces 👍",
        "no sé, pregúntales a los demás",
        "has visto esto?? 😂",
        "todavía no, lo veo esta noche",
    ),
    (
        (
            "el sábado visitamos el piso de malasaña, tiene un balcón enorme",
            "cuándo visitaremos los pisos",
            "el piso viejo de la abuela sigue vacío",
        ),
        (
            "hoy vacunaron a los gatos en el veterinario",
            "cuándo vacunamos al gato",
            "el gato vomitó otra vez en el sofá 🤢",
        ),
        (
            "hoy llegó la invitación a la boda de tim y sara!!",
            "cuándo llegaron las invitaciones para las bodas",
            "la boda de pablo el año pasado fue preciosa",
        ),
        (
            "el viernes llevo a la abuela al aeropuerto, su vuelo sale a las 7",
            "quién lleva a la abuela a los aeropuertos",
            "la abuela llamó por cierto, pregunta si venís el domingo",
        ),
        (
            "la casa rural en asturias ya está reservada, con sauna 🏖️",
            "hemos reservado las casas rurales",
            "la sauna del gimnasio lleva semanas rota",
        ),
        (
            "la lavadora se estropeó, el sótano está inundado",
            "qué pasó con las lavadoras",
            "en el sótano siguen las bicis viejas",
        ),
        (
            "ya envolví los regalos para el cumpleaños de papá 🎁",
            "quién envuelve el regalo del cumple",
            "papá no quiere fiesta para su cumpleaños",
        ),
        (
            "la factura de la luz fue brutal este año, 900 euros",
            "cuánto fueron las facturas de la luz",
            "puedes pagar el seguro del coche",
        ),
    ),
)

PORTUGUESE = World(
    "pt",
    ("Ana", "Pedro"),
    (
        "oi tudo bem com vocês?",
        "tudo ótimo por aqui, e você?",
        "tudo certo, só muito trabalho agora",
        "já tô chegando, ainda tô na fila",
        "pode me mandar o número da tia?",
        "kkkk sim eu também pensei nisso",
        "beleza a gente se vê depois então 👍",
        "não sei, pergunta pros outros",
        "você viu isso?? 😂",
        "ainda não, vejo à noite",
    ),
    (
        (
            "no sábado visitamos o apartamento em pinheiros, tem uma varanda enorme",
            "quando visitaremos os apartamentos",
            "o apartamento antigo da vovó continua vazio",
        ),
        (
            "os gatos foram vacinados hoje no veterinário",
            "quando vacinamos o gato",
            "o gato vomitou de novo no sofá 🤢",
        ),
        (
            "hoje chegou o convite do casamento do tim e da sara!!",
            "quando chegaram os convites dos casamentos",
            "o casamento do paulo ano passado foi lindo",
        ),
        (
            "na sexta levo a vovó ao aeroporto, o voo dela sai às 7",
            "quem leva a vovó aos aeroportos",
            "a vovó ligou aliás, pergunta se vocês vêm no domingo",
        ),
        (
            "a casa na praia já está reservada, com sauna 🏖️",
            "reservamos as casas",
            "a sauna da academia está quebrada há semanas",
        ),
        (
            "a máquina de lavar quebrou, o porão está alagado",
            "o que aconteceu com as máquinas de lavar",
            "no porão ainda estão as bicicletas velhas",
        ),
        (
            "já embrulhei os presentes pro aniversário do papai 🎁",
            "quem embrulha o presente de aniversário",
            "o papai não quer festa no aniversário dele",
        ),
        (
            "a conta de luz foi absurda esse ano, 900 reais",
            "quanto foram as contas de luz",
            "você pode pagar o seguro do carro",
        ),
    ),
)

ITALIAN = World(
    "it",
    ("Giulia", "Marco"),
    (
        "ciao come state?",
        "tutto bene qui, e tu come stai?",
        "bene, solo che ho un sacco di lavoro adesso",
        "arrivo tra poco, sono ancora in coda",
        "mi mandi il numero della zia?",
        "ahah sì l'ho pensato anch'io",
        "ok ci vediamo dopo allora 👍",
        "non lo so, chiedi agli altri",
        "hai visto questo?? 😂",
        "non ancora, lo guardo stasera",
    ),
    (
        (
            "sabato abbiamo visitato l'appartamento a trastevere, ha un balcone enorme",
            "quando visiteremo gli appartamenti",
            "il vecchio appartamento della nonna è ancora vuoto",
        ),
        (
            "oggi hanno vaccinato i gatti dal veterinario",
            "quando abbiamo vaccinato il gatto",
            "il gatto ha vomitato di nuovo sul divano 🤢",
        ),
        (
            "oggi è arrivato l'invito al matrimonio di tim e sara!!",
            "quando sono arrivati gli inviti ai matrimoni",
            "il matrimonio di paolo l'anno scorso è stato bellissimo",
        ),
        (
            "venerdì porto la nonna all'aeroporto, il volo parte alle 7",
            "chi porta la nonna agli aeroporti",
            "la nonna ha chiamato comunque, chiede se venite domenica",
        ),
        (
            "la casa in montagna è prenotata, con la sauna 🏖️",
            "abbiamo prenotato le case",
            "la sauna in palestra è rotta da settimane",
        ),
        (
            "la lavatrice si è rotta, la cantina è allagata",
            "cosa è successo alle lavatrici",
            "in cantina ci sono ancora le bici vecchie",
        ),
        (
            "ho già incartato i regali per il compleanno di papà 🎁",
            "chi incarta il regalo di compleanno",
            "papà non vuole una festa per il suo compleanno",
        ),
        (
            "la bolletta della luce quest'anno è stata pazzesca, 900 euro",
            "quanto erano le bollette della luce",
            "puoi pagare l'assicurazione della macchina",
        ),
    ),
)

WORLDS = {
    w.code: w
    for w in (
        GERMAN, DUTCH, SWEDISH, DANISH, NORWEGIAN, FINNISH, HUNGARIAN, ROMANIAN, GREEK, ARABIC, INDONESIAN,
        CZECH, POLISH, UKRAINIAN, BULGARIAN, SLOVAK, HEBREW, SPANISH, PORTUGUESE, ITALIAN,
    )
}  # fmt: skip
HELD_OUT = frozenset({"ro", "cs", "sk", "he"})


def world_chat(world: World) -> str:
    """The chat of ``world`` in the "Sender: text" form of ``language_chats.whatsapp_export``: one session a
    case, its needle among filler and another case's distractor, the two people taking turns so that every
    message is a turn of its own; the compounds' needles in a last session."""
    a, b = world.names
    sessions = []
    n = len(world.cases)
    for i, (needle, _, _) in enumerate(world.cases):
        lines = [
            world.filler[i % len(world.filler)],
            world.cases[(i + 3) % n][2],
            world.filler[(i + 4) % len(world.filler)],
            needle,
            world.filler[(i + 7) % len(world.filler)],
            world.filler[(i + 2) % len(world.filler)],
        ]
        sessions.append("\n".join(f"{(a, b)[j % 2]}: {text}" for j, text in enumerate(lines)))
    extra = [needle for _, needles in world.compounds for needle in needles]
    if extra:
        lines = [x for needle in extra for x in (needle, world.filler[len(needle) % len(world.filler)])]
        sessions.append("\n".join(f"{(b, a)[j % 2]}: {text}" for j, text in enumerate(lines)))
    return "\n\n".join(sessions)


# The English side of the bilingual chat: needles of tests/language_chats.py's English chat, asked in other forms.
ENGLISH_QUESTIONS = (
    ("booked the flat in cornwall", "when did we book the holiday flats"),
    ("the war movie last night was so sad", "which movies did we watch, so sad"),
    ("did you call the plumber about the sink", "calling a plumber for the sinks"),
    ("mum says the party is at 3 on sunday", "what time are the parties on sunday"),
)


def bilingual_chat(english_chat: str) -> str:
    """A couple texting in two languages: the German chat's messages and ``english_chat``'s taking turns,
    sessions of twelve messages."""
    german = [line.split(": ", 1)[1] for line in world_chat(GERMAN).splitlines() if line.strip()]
    english = [line.split(": ", 1)[1] for line in english_chat.splitlines() if line.strip()]
    lines: list[str] = []
    for i, de in enumerate(german):
        lines += [f"Lena: {de}", f"Sam: {english[i % len(english)]}"]
        if i % 6 == 5:
            lines.append("")
    return "\n".join(lines).strip()
