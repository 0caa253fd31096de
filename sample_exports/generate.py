"""Writes the two JSON sample exports from the conversation scripts below:

- ``slack-export-acme/``: an unpacked Slack workspace export (channels, users, DMs, one file per day),
- ``telegram-result.json``: a Telegram Desktop single-chat export ("Export chat history", JSON).

Run from anywhere: ``python sample_exports/generate.py [OUT_DIR]``. Output is deterministic: seconds,
microseconds and ids come from hashes of the script, never from a clock or a random generator.

Script syntax (one message per line):

    # 2026-04-07                    a day; the times below are Europe/Berlin wall clock
    09:48 tobias {flags} text       time, sender, optional {flags}, then the text
        more text                   a line indented by 4 spaces continues the message above

Slack flags (``;``-separated): ``thread=KEY`` starts a thread, ``reply=KEY`` answers it, ``join`` is a
channel_join, ``edited`` marks a later edit, ``react=NAME:who,who|NAME:who``. In Slack text ``<@name>``
becomes the user's id; everything else is already Slack markup (``&amp;``, ``<url|label>``, ``:emoji:``).

Telegram flags: ``id=KEY`` names a message, ``re=KEY`` replies to it, ``call=SECONDS`` / ``missed`` are
phone-call service messages, ``sticker=EMOJI``, ``photo=WxH``, ``edited=HH:MM``. In Telegram text
``**bold**`` and ``__italic__`` become entities and bare ``https://`` URLs become links, as the app
detects them.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

HERE = Path(__file__).resolve().parent
BERLIN = ZoneInfo("Europe/Berlin")

# --------------------------------------------------------------------------------------------------
# Conversation scripts
# --------------------------------------------------------------------------------------------------

SLACK_TEAM = "T01ACM3X7QZ"

# short name -> (id, handle, real name, display name, title)
SLACK_USERS = {
    "maya": ("U05A1MLQ7RZ", "maya.lindqvist", "Maya Lindqvist", "Maya", "Data Analyst"),
    "tobias": ("U03TKR9L2MB", "tobias.krueger", "Tobias Kr\u00fcger", "Tobias", "Lead, Data & Analytics"),
    "priya": ("U04PRM83XQA", "priya.raman", "Priya Raman", "Priya", "Senior Data Analyst"),
    "felix": ("U05FHT2K9VD", "felix.hartmann", "Felix Hartmann", "felix", "Backend Engineer"),
    "sophie": (
        "U02SBR6N1CW",
        "sophie.brandt",
        "Sophie Brandt",
        "Sophie (People & Office)",
        "People & Office",
    ),
    "dmitri": ("U06DVK4M8PJ", "dmitri.volkov", "Dmitri Volkov", "Dmitri", "Data Engineer"),
}

# folder name -> (id, created, creator, members, topic, purpose, script)
SLACK_CHANNELS: dict[str, tuple[str, int, str, tuple[str, ...], str, str, str]] = {
    "general": (
        "C02GEN4K7JQ",
        1612173600,
        "sophie",
        ("sophie", "tobias", "priya", "felix", "maya", "dmitri"),
        "Company-wide announcements",
        "This channel is for workspace-wide communication and announcements.",
        """
# 2026-03-02
09:02 sophie Good morning! The dishwasher in the kitchen is being repaired today, please don't put anything in it :pray:
09:10 felix RIP dishwasher
# 2026-03-16
09:41 dmitri {join}
10:02 sophie {react=wave:tobias,priya,maya,felix} Please welcome <@dmitri>, who joins the data team as a data engineer today! :wave: He comes from a logistics startup and brought homemade pierogi for his first day, so he's already winning
10:05 maya welcome Dmitri!! :tada:
10:07 dmitri thank you all! pierogi are in the kitchen, the ones with the fork marks are potato &amp; cheese
# 2026-04-02
11:30 sophie Reminder: the office is closed on Good Friday (3 April) and Easter Monday (6 April). Happy Easter everyone :hatching_chick:
# 2026-04-20
14:00 sophie {react=raised_hands:maya,felix} Q&amp;A with the founders this Thursday at 16:00 in the big room. Please add your questions to <https://docs.google.com/forms/d/e/1FAIpQLSdQm8Zx3vK7tW2rN5yHc0pLaE4sJ9uB/viewform|this form> by Wednesday
# 2026-05-11
10:15 sophie Two public holidays coming up: Ascension Day on 14 May and Whit Monday on 25 May. The office is closed on both days
# 2026-06-02
09:30 sophie {thread=address} If you moved recently, please update your address in Personio by 15 June so payroll gets it right :house:
09:52 maya {reply=address} done! new address is in
09:58 sophie {reply=address} thanks Maya, and congrats on the new place!
# 2026-06-03
10:12 felix {reply=address} same, updated. (I moved from 3rd floor to 3rd floor, very exciting)
# 2026-06-30
17:00 sophie {thread=summer;react=sun_with_face:felix,priya} Summer party on Friday 10 July on the boat at Treptower Park :sun_with_face: RSVP in this thread
17:12 felix {reply=summer} in!
17:20 maya {reply=summer} I'm in Lisbon that week :sob: have fun for me
17:31 dmitri {reply=summer} in, +1 if that's ok
# 2026-07-20
09:12 maya {react=heart_eyes:felix,priya,tobias,dmitri|pray:sophie} brought past\u00e9is de nata from Lisbon, they're in the kitchen, first come first served :yum:
# 2026-09-10
15:00 sophie {react=evergreen_tree:maya,priya,dmitri,felix} Save the date: team offsite on 24\u201325 September at Werbellinsee :evergreen_tree: Bus leaves the office Thursday 9:00. Details and room list: <https://docs.google.com/document/d/1tWq9Lr4NbX2kE7sV0cJ3yH8mZ5pA6dF/edit|offsite doc>
15:20 felix is there a sauna
15:21 sophie there is a sauna
15:21 felix {react=joy:maya,dmitri} then I'm in
# 2026-10-01
16:30 sophie Heads-up: 3 October (German Unity Day) falls on a Saturday this year, so no extra day off, sorry :sweat_smile: Have a nice weekend anyway!
""",
    ),
    "random": (
        "C02RND8P1LS",
        1612173600,
        "sophie",
        ("sophie", "tobias", "priya", "felix", "maya", "dmitri"),
        "Non-work banter and water cooler conversation",
        "A place for non-work-related flimflam.",
        """
# 2026-03-10
12:48 felix who took my oat milk from the fridge. it had my NAME on it
12:50 priya it said "Felix" in pencil, that's not legally binding
12:50 maya :joy:
12:52 felix {edited} I will be putting a lock on the fridge. a small one. with a code
# 2026-03-19
13:05 maya lunch at the Vietnamese place on Torstra\u00dfe? 12:30?
13:06 priya in
13:06 dmitri in, I don't know it yet
13:07 felix I'll come if they still have the salt &amp; pepper tofu
# 2026-04-22
10:30 priya {react=birthday:maya,tobias,felix,dmitri,sophie} cake in the kitchen, it's my birthday :birthday:
10:31 maya happy birthday Priya!! :tada:
10:33 tobias happy birthday! what kind of cake
10:34 priya carrot cake, my mum's recipe, don't ask for it
# 2026-04-30
16:00 felix {react=beers:maya,priya,dmitri,tobias} Feierabend drinks on the roof at 17:30, it's finally warm
16:05 priya coming after my last call
16:06 maya :raised_hands:
# 2026-05-18
09:14 felix anyone else watch Eurovision? the glitter cape guy deserved it
09:20 maya deserved it more than anyone has ever deserved anything
09:21 dmitri I have been in Germany 2 months and I still don't understand this contest
# 2026-06-17
17:45 felix World Cup public viewing tonight at the Mauerpark biergarten, who's in?
17:46 dmitri in
17:50 maya in, it's 5 min from my new place now :smile:
# 2026-07-29
11:02 dmitri unpopular opinion: the office coffee machine is fine
11:03 priya it's not fine
11:03 felix it's not fine Dmitri
# 2026-09-02
14:22 felix {thread=charger} found a USB-C charger in meeting room 2, anyone?
14:30 maya {reply=charger} not mine. mine is living its best life in a caf\u00e9 in Sintra
14:31 priya {reply=charger} mine!! thank you
# 2026-10-06
09:05 priya how was everyone's weekend?
09:10 maya had my housewarming on Saturday, still finding bottle caps in weird places
09:11 felix thanks for having us! the balcony is great
""",
    ),
    "team-data": (
        "C04TD7A9MXQ",
        1654077600,
        "tobias",
        ("tobias", "priya", "maya", "dmitri"),
        "Nordlicht dashboard \u2192 release 14 April | churn model v3",
        "Data & analytics team: pipelines, dashboards, requests",
        """
# 2026-03-03
09:31 tobias Morning! Quick planning for the next weeks: Nordlicht Energie dashboard release is planned for 21 April. <@priya> owns the data model, <@maya> the KPI pages, I'll do the client side
09:35 maya sounds good. I'll also take the churn model refresh
09:36 priya :+1:
# 2026-03-16
09:58 dmitri {join}
10:01 tobias welcome to the team <@dmitri>! :wave: first job: get the Nordlicht feeds into the warehouse
10:03 dmitri hi all! happy to be here
# 2026-03-24
14:12 priya the Nordlicht data dump arrived. it's 40GB of CSV with semicolons &amp; commas mixed :upside_down_face:
14:14 dmitri I'll write a loader that sniffs the delimiter per file
14:15 maya and the dates are in three formats, I checked
14:15 priya of course they are
# 2026-03-31
11:20 priya {thread=kpi} <@maya> can you double-check the definition of "active turbine" for the KPI page? the client has two in their docs
11:32 maya {reply=kpi} went with the one from the contract appendix: producing for at least 1h in the day. wrote it down in the plan
11:33 priya {reply=kpi} perfect, thanks
# 2026-04-07
09:48 tobias {thread=deadline;react=grimacing:maya,priya,dmitri} Heads-up: Nordlicht moved their board meeting, so the dashboard release moves forward from 21 April to *Tuesday 14 April*. That's a week less. Updated plan: <https://docs.google.com/document/d/1Nq7lR2xVd8pK0wYtH3sZbF4mC6uJ9eA/edit|Nordlicht release plan>. I need everyone on deck on the 14th
09:52 priya {reply=deadline} oof. ok, data model can be frozen by Friday
09:55 maya {reply=deadline} I have a dentist appointment on the morning of the 14th, I'll move it
09:57 tobias {reply=deadline} thanks <@maya>, sorry about that :pray:
# 2026-04-08
09:20 maya {reply=deadline} moved the dentist to 28 April, so I'm all yours on the 14th
09:24 dmitri {reply=deadline} the ingestion job for the Nordlicht feeds is ready for review
09:31 tobias {reply=deadline} great, thank you both :muscle:
# 2026-04-13
18:40 priya data model frozen :snowflake: don't touch it
18:42 maya KPI pages are done, QA tomorrow at 8
# 2026-04-14
08:03 maya morning! running the final data checks on the Nordlicht KPIs now
10:21 maya found one: the capacity factor was summing instead of averaging per turbine. fixed &amp; redeployed
10:25 priya good catch
17:40 tobias {react=rocket:maya,priya,dmitri|tada:maya,priya,dmitri} Nordlicht dashboard is LIVE :rocket: the client loved it. Thank you all, especially for the last week
17:41 maya :tada:
# 2026-04-27
10:26 maya fyi my dentist appointment tomorrow got cancelled, the dentist is ill. So I'm in all day on the 28th. New date is 6 May, I'll be in around 10:30 that day
10:30 tobias no problem, get well to your dentist :sweat_smile:
# 2026-05-06
10:41 maya back from the dentist, one filling richer. online now
10:43 priya :tooth: welcome back
# 2026-05-12
11:00 tobias {thread=leave} Planning summer cover. <@maya> you're off 29 May and 1 June for the move and 9\u201316 July for Lisbon, right? <@priya> anything from you?
11:05 maya {reply=leave} yes, exactly. 29 May + 1 June, then 9\u201316 July
11:09 priya {reply=leave} I'm off 3\u201314 August
11:10 tobias {reply=leave} :+1: thanks, it's all in the cover sheet
# 2026-06-02
09:15 maya I'm back! moved to Prenzlauer Berg over the weekend. arms are sore, flat is great
09:17 dmitri congrats! did the sofa fit?
09:18 maya eventually. with the feet off
# 2026-06-23
10:00 tobias reminder: quarterly numbers for the board are due Friday
10:05 maya churn section is ready, waiting for the June data to close
10:07 dmitri the June load finished last night, all yours
# 2026-07-08
16:50 maya last day before Lisbon :airplane: handover for the churn dashboard: <https://docs.google.com/document/d/1hV3pT8sKx2mQ9wL4cR7nB0yF5eJ6gZd/edit|churn handover>. <@priya> is my backup, the weekly refresh runs on its own
16:55 priya {react=heart:maya} have fun!! eat everything
# 2026-07-17
09:30 maya back from Lisbon :wave: catching up on messages
09:31 tobias welcome back!
# 2026-08-24
10:05 dmitri the dbt migration for the Nordlicht models is done, all tests green :white_check_mark:
10:08 tobias {react=clap:maya,priya} amazing, thanks Dmitri
# 2026-09-14
14:30 tobias agenda for the offsite: roadmap for Q4, the churn model v3, and a session on our on-call rota. Ideas welcome
14:35 maya can we add a retro on the Nordlicht release? lots to learn from that crunch
14:36 tobias good idea, added
""",
    ),
}

SLACK_DM = (
    "D05MT2K8QZP",
    1683021600,
    ("maya", "tobias"),
    """
# 2026-04-07
10:02 maya Hi Tobias, quick one: I had a dentist appointment on 14 April at 8:30. I'll move it so I'm there for the release
10:06 tobias Thanks Maya, really appreciate it. Sorry for the short notice, the client gave us no choice
# 2026-04-09
16:45 maya also good news: I got a new flat! moving end of May. Could I take 29 May and 1 June off for the move?
16:52 tobias congrats!! :tada: yes of course, just put it in Personio
# 2026-05-04
14:10 maya Another holiday request, sorry :sweat_smile: I'm going to Lisbon with a friend, 9\u201316 July. That's 6 working days. Priya said she can cover the churn reports
14:18 tobias approved! enjoy, and bring past\u00e9is de nata
# 2026-07-20
10:02 tobias how was Lisbon? didn't get to ask on Friday
10:05 maya amazing. we stayed in Alfama, did a day trip to Sintra on the Monday. I left my charger in a caf\u00e9 there, but otherwise perfect
10:06 tobias classic holiday move
# 2026-09-21
09:12 tobias can we move our 1:1 to Thursday? Wednesday is full of offsite prep
09:13 maya {edited} sure, Thursday 11:00 works
""",
)

TELEGRAM_NAME = "Aylin Demir"
TELEGRAM_ID = 583920174
TELEGRAM_FIRST_ID = 48211
TELEGRAM_PEOPLE = {
    "aylin": ("Aylin Demir", "user583920174"),
    "maya": ("Maya Lindqvist", "user291847563"),
}

TELEGRAM_SCRIPT = """
# 2026-03-03
19:20 maya ok it's official, I'm flat hunting. help
19:21 aylin oh no
19:21 aylin I mean: yay!! but also oh no
19:25 aylin ok my survival guide:
    1. ImmoScout Plus. yes it's evil, yes you need it
    2. Schufa, pay for the fast one
    3. Mietschuldenfreiheitsbescheinigung from Yilmaz
    4. answer every ad within 10 minutes, **always**
19:26 maya 10 minutes??
19:26 aylin **always**
19:28 aylin and make a folder. a physical one. landlords love a folder
19:30 aylin this helped me a lot too https://www.wg-gesucht.de/wohnungen-in-Berlin.8.2.1.0.html
19:32 maya {call=734}
# 2026-03-12
20:15 maya Friedrichshain viewing: 60 people. I didn't even get to see the bathroom
20:17 aylin Friedrichshain is a bloodsport
20:17 aylin {sticker=\U0001f480}
# 2026-03-18
22:10 aylin update from my date: he brought his own cutlery to the restaurant
22:11 maya WHY
22:11 aylin "hygiene"
22:12 maya ok but was he nice
22:13 aylin he was nice. the forks were also nice. still no
# 2026-03-25
17:40 aylin still on for Gleimstra\u00dfe at 18:30? I'm at Sch\u00f6nhauser Allee already
17:41 maya yes, 10 min
19:22 maya {id=carpet} we're never speaking of that bathroom again
19:23 aylin {re=carpet} the carpet. the CARPET, Maya
# 2026-04-01
21:55 maya Schliemannstra\u00dfe was amazing. 4th floor, balcony, the courtyard has a chestnut tree
21:56 maya {photo=1280x960}
21:58 aylin ok that's the one. I feel it. send the application tonight
21:59 maya sent it 10 min after. like you taught me
22:00 aylin {sticker=\U0001f64c}
# 2026-04-09
16:28 maya I GOT IT. Schliemannstra\u00dfe 21!!
16:28 aylin I KNEW IT
16:29 aylin {sticker=\U0001f389}
16:31 aylin lease start?
16:32 maya 15 May, moving 30 May. you're invited to carry boxes
16:32 aylin honoured
# 2026-04-20
21:10 aylin ok hear me out
21:10 aylin Lisbon. July. you and me
21:12 maya YES
21:12 maya wait let me check when I can take holidays. but YES
21:15 aylin I'm free the whole of July except the last week
# 2026-04-26
11:04 aylin flights! easyJet BER\u2192LIS **Thu 9 July 06:40**, back **Thu 16 July 18:10**. 143\u20ac each with a bag
11:06 maya 06:40 is a crime but ok
11:06 maya book it
11:20 aylin booked \u2705 confirmation is in your inbox
# 2026-04-27
10:40 maya dentist cancelled AGAIN lol. Dr. Okafor is sick, tomorrow is off, now it's 6 May
10:45 aylin at this point it's a saga
10:45 aylin __The Dentist Chronicles, part 3__
# 2026-04-28
20:30 aylin found one in Alfama!! https://www.airbnb.com/rooms/48210937
20:31 aylin Rua dos Rem\u00e9dios, 2 bedrooms, tiny terrace with a view over the river. 812\u20ac for the week
20:33 maya book it before someone else does
20:41 aylin booked! the host is called In\u00eas and she already sent a 9 page guide
20:42 maya I love her already
# 2026-05-04
19:02 aylin still 30 May for the move? I'll bring my dad's hand truck
19:03 maya yes! 9:00 at Weserstra\u00dfe. you're an angel
# 2026-05-12
17:15 maya JONAS GOT THE JOB
17:15 maya Wellenwerk, data engineer, in Hamburg. starts 1 July
17:16 aylin noooo we're losing him to Hamburg
17:16 aylin I mean congrats Jonas. but noooo
# 2026-05-16
19:30 aylin bringing the Eurovision scoring sheets, I printed 2
19:31 maya I made Kartoffelsalat-level snacks
19:32 aylin that's not a unit of measure
19:32 maya it is in my family
# 2026-05-30
08:44 aylin on my way with the hand truck \U0001f6fb
21:48 aylin my arms are noodles
21:49 maya thank you for today, you were a hero with that hand truck
21:50 aylin the sofa moment will live in my nightmares
# 2026-06-05
18:12 maya Lena signed for Weserstra\u00dfe! she takes over the flat from 15 June, so I'm out earlier
18:13 aylin yesss, my colleague says her sister is very happy
18:14 maya handing back the keys to Yilmaz on 12 June
# 2026-06-10
19:15 maya what was the name of the Turkish bakery on Sch\u00f6nhauser with the simit
19:17 aylin Simit Evi! get the one with the cheese
19:17 maya you're a treasure
# 2026-06-15
20:02 aylin {call=1392}
# 2026-06-26
18:05 aylin see you at Prater Garten at 7? I got a card for Jonas, you have to sign it
18:06 maya yes! probably running late, the M10 is a mess
18:06 aylin you're always late when the M10 is involved
# 2026-06-29
19:40 aylin Lisbon planning: Sintra on **Monday 13 July**? Pena Palace needs a time slot
19:42 maya yes! morning train from Rossio?
19:45 aylin booked Pena for 10:30, then Quinta da Regaleira after lunch
19:46 aylin and I reserved a fado place in Alfama for Tuesday night
19:46 maya {id=fado} you're the best travel agent
# 2026-07-08
21:20 maya do we need a plug adapter for Portugal?
21:21 aylin no, same plugs as here
21:21 aylin just bring your charger lol
# 2026-07-09
04:52 aylin taxi is downstairs
04:52 maya coming!!
# 2026-07-13
20:58 maya where is my charger
21:01 maya I think I left it at the caf\u00e9 in Sintra. the one with the queijadas
21:02 aylin Piriquita??
21:02 maya yes
21:03 aylin they closed at 8 \U0001f62d
21:03 aylin use mine tonight, we'll get you a new one tomorrow
# 2026-07-14
12:30 maya bought a new one at Worten, 24\u20ac. the old one lives in Sintra now
12:31 aylin may it have a good life
# 2026-07-16
15:20 aylin {edited=15:24} flight is delayed 2 hours. we land at 00:45 now
15:21 maya at least we get one more pastel de nata at the airport
# 2026-07-17
10:30 aylin {photo=1280x960}
10:30 aylin {photo=960x1280}
10:31 aylin best trip. Sintra day was my favourite
10:33 maya mine too. minus the charger
# 2026-08-03
18:40 aylin I started climbing!! the big hall at Ostkreuz. my forearms are dead
18:41 maya welcome to the club, Jonas will be so proud
18:42 aylin tell him nothing, he'll send me training plans
# 2026-08-12
19:15 maya {missed}
19:40 aylin sorry was at the climbing gym, what's up?
19:41 maya nothing urgent, just wanted to say the Lisbon photo book arrived \U0001f60d
# 2026-09-19
08:10 maya happy birthday Aylin!!! \U0001f382 dinner on me next week
08:45 aylin thank youuu \u2764\ufe0f
# 2026-09-24
19:02 aylin thank you for dinner yesterday!! the lamb was unreal
19:03 maya happy birthday week \U0001f382
# 2026-10-01
18:20 aylin housewarming saturday: what should I bring?
18:22 maya ice and your speaker. Jonas comes from Hamburg, he's sleeping on the famous sofa
18:23 aylin the sofa that almost killed us
# 2026-10-04
12:12 aylin thanks for the party! Erik's sofa speech \U0001f602
12:14 maya he says he's turning it into a book
"""

# --------------------------------------------------------------------------------------------------
# Script parsing (shared by both formats)
# --------------------------------------------------------------------------------------------------

LINE = re.compile(r"(?P<hm>\d\d:\d\d) (?P<who>\w+) (?:\{(?P<flags>[^}]*)\} ?)?(?P<text>.*)")


@dataclass(frozen=True, slots=True)
class Line:
    when: datetime  # aware, Europe/Berlin; seconds are filled in later
    who: str
    flags: dict[str, str]
    text: str


def parse_script(script: str) -> list[Line]:
    lines: list[Line] = []
    day: date | None = None
    for raw in script.strip("\n").split("\n"):
        if raw.startswith("# "):
            day = date.fromisoformat(raw[2:])
        elif raw.startswith("    ") and lines:
            last = lines[-1]
            lines[-1] = Line(last.when, last.who, last.flags, f"{last.text}\n{raw[4:]}")
        elif (m := LINE.fullmatch(raw)) and day is not None:
            hm = time.fromisoformat(m["hm"])
            flags = dict(_flag(f) for f in (m["flags"] or "").split(";") if f)
            lines.append(Line(datetime.combine(day, hm, BERLIN), m["who"], flags, m["text"].rstrip()))
        else:
            raise ValueError(f"bad script line: {raw!r}")
    return lines


def _flag(text: str) -> tuple[str, str]:
    key, _, value = text.partition("=")
    return key, value


def _digest(*parts: object) -> int:
    return int.from_bytes(hashlib.sha256("|".join(map(str, parts)).encode()).digest()[:8], "big")


def with_seconds(lines: list[Line], salt: str) -> Iterator[tuple[Line, datetime, int]]:
    """Each line with a full timestamp and a microsecond fraction: seconds spread deterministically over
    the minute, always increasing inside one minute so the script order is the time order."""
    prev: datetime | None = None
    for i, line in enumerate(lines):
        if prev is not None and line.when < prev.replace(second=0):
            raise ValueError(f"script out of order at {line.when:%Y-%m-%d %H:%M} {line.who}")
        h = _digest(salt, i, line.text)
        stamp = line.when + timedelta(seconds=h % 45)
        if prev is not None and stamp <= prev:
            stamp = prev + timedelta(seconds=1 + h % 4)
        # A wall-clock time that does not exist (spring gap) or exists twice (autumn) would make the
        # local/UTC pair ambiguous; the scripts avoid those hours, and this keeps them honest.
        utc = stamp.astimezone(UTC)
        if utc.astimezone(BERLIN).replace(tzinfo=None) != stamp.replace(tzinfo=None):
            raise ValueError(f"nonexistent local time {stamp}")
        prev = stamp
        yield line, stamp, (h >> 20) % 1_000_000


# --------------------------------------------------------------------------------------------------
# Slack
# --------------------------------------------------------------------------------------------------

MENTION = re.compile(r"<@(\w+)>")
TOKEN = re.compile(r"<@(U\w+)>|<(https?://[^|>]+)(?:\|([^>]*))?>|:([a-z0-9_+-]+):")


def _uid(name: str) -> str:
    return SLACK_USERS[name][0]


def _slack_text(text: str) -> str:
    return MENTION.sub(lambda m: f"<@{_uid(m[1])}>", text)


def _unescape(text: str) -> str:
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")


def _rich_text(text: str, salt: str) -> list[dict[str, object]]:
    """The ``blocks`` Slack stores beside ``text``: the same message as rich-text elements."""
    elements: list[dict[str, object]] = []
    pos = 0
    for m in TOKEN.finditer(text):
        if m.start() > pos:
            elements.append({"type": "text", "text": _unescape(text[pos : m.start()])})
        if m[1]:
            elements.append({"type": "user", "user_id": m[1]})
        elif m[2]:
            link: dict[str, object] = {"type": "link", "url": m[2]}
            if m[3]:
                link["text"] = _unescape(m[3])
            elements.append(link)
        else:
            elements.append({"type": "emoji", "name": m[4]})
        pos = m.end()
    if pos < len(text):
        elements.append({"type": "text", "text": _unescape(text[pos:])})
    alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+="
    h = _digest("block", salt)
    block_id = "".join(alphabet[(h >> (6 * k)) % 64] for k in range(5))
    return [
        {
            "type": "rich_text",
            "block_id": block_id,
            "elements": [{"type": "rich_text_section", "elements": elements}],
        }
    ]


def _profile(name: str) -> dict[str, object]:
    uid, handle, real, display, _ = SLACK_USERS[name]
    avatar = f"{_digest('avatar', uid):012x}"[:12]
    return {
        "avatar_hash": avatar,
        "image_72": f"https://avatars.slack-edge.com/2024-02-12/{_digest('img', uid) % 10**13}_{avatar}_72.jpg",
        "first_name": real.split()[0],
        "real_name": real,
        "display_name": display,
        "team": SLACK_TEAM,
        "name": handle,
        "is_restricted": False,
        "is_ultra_restricted": False,
    }


def _ts(stamp: datetime, micro: int) -> str:
    return f"{int(stamp.timestamp())}.{micro:06d}"


def slack_messages(folder: str, script: str) -> list[dict[str, object]]:
    """One channel's messages, in time order, with thread metadata filled in on the parents."""
    messages: list[dict[str, object]] = []
    parents: dict[str, dict[str, object]] = {}
    for line, stamp, micro in with_seconds(parse_script(script), folder):
        uid = _uid(line.who)
        ts = _ts(stamp, micro)
        if "join" in line.flags:
            messages.append(
                {
                    "user": uid,
                    "type": "message",
                    "subtype": "channel_join",
                    "ts": ts,
                    "text": f"<@{uid}> has joined the channel",
                }
            )
            continue
        text = _slack_text(line.text)
        msg: dict[str, object] = {
            "user": uid,
            "type": "message",
            "ts": ts,
            "client_msg_id": str(uuid.uuid5(uuid.NAMESPACE_URL, f"acme/{folder}/{ts}")),
            "text": text,
            "team": SLACK_TEAM,
            "user_team": SLACK_TEAM,
            "source_team": SLACK_TEAM,
            "user_profile": _profile(line.who),
        }
        if "edited" in line.flags:
            msg["edited"] = {"user": uid, "ts": f"{int(stamp.timestamp()) + 95}.000000"}
        if key := line.flags.get("thread"):
            msg.update(
                thread_ts=ts,
                reply_count=0,
                reply_users_count=0,
                latest_reply=ts,
                reply_users=[],
                is_locked=False,
                subscribed=False,
            )
            parents[key] = msg
        if key := line.flags.get("reply"):
            parent = parents[key]
            msg["thread_ts"] = parent["ts"]
            msg["parent_user_id"] = parent["user"]
            users = parent["reply_users"]
            assert isinstance(users, list)
            if uid not in users:
                users.append(uid)
            parent["reply_count"] = int(str(parent["reply_count"])) + 1
            parent["reply_users_count"] = len(users)
            parent["latest_reply"] = ts
        msg["blocks"] = _rich_text(text, f"{folder}/{ts}")
        if spec := line.flags.get("react"):
            reactions = []
            for part in spec.split("|"):
                emoji, _, who = part.partition(":")
                ids = [_uid(w) for w in who.split(",")]
                reactions.append({"name": emoji, "users": ids, "count": len(ids)})
            msg["reactions"] = reactions
        messages.append(msg)
    return messages


def _slack_json(obj: object) -> str:
    # Slack's exporter escapes every "/" and every non-ASCII character; "/" only occurs inside strings.
    return json.dumps(obj, indent=4, ensure_ascii=True).replace("/", "\\/")


def write_day_files(folder: Path, messages: list[dict[str, object]]) -> None:
    days: dict[str, list[dict[str, object]]] = {}
    for msg in messages:
        moment = datetime.fromtimestamp(float(str(msg["ts"])), UTC)
        # Day files are named by UTC date; the scripts keep Slack chatter between 08:00 and 22:00 Berlin
        # time so that the UTC date and the local date always agree.
        if moment.date() != moment.astimezone(BERLIN).date():
            raise ValueError(f"{folder.name}: {moment} falls on different days in UTC and Berlin")
        days.setdefault(moment.date().isoformat(), []).append(msg)
    folder.mkdir(parents=True, exist_ok=True)
    for day, batch in days.items():
        (folder / f"{day}.json").write_text(_slack_json(batch), encoding="utf-8")


def _topic(value: str, creator: str, last_set: int) -> dict[str, object]:
    return {"value": value, "creator": _uid(creator), "last_set": last_set}


def write_slack(out: Path) -> None:
    root = out / "slack-export-acme"
    users = []
    for name, (uid, handle, real, display, title) in SLACK_USERS.items():
        users.append(
            {
                "id": uid,
                "team_id": SLACK_TEAM,
                "name": handle,
                "deleted": False,
                "color": f"{_digest('color', uid) % 0xFFFFFF:06x}",
                "real_name": real,
                "tz": "Europe/Berlin",
                "tz_label": "Central European Summer Time",
                "tz_offset": 7200,
                "profile": {
                    "title": title,
                    "phone": "",
                    "skype": "",
                    "real_name": real,
                    "real_name_normalized": real.replace("\u00fc", "u"),
                    "display_name": display,
                    "display_name_normalized": display,
                    "status_text": "",
                    "status_emoji": "",
                    "first_name": real.split()[0],
                    "last_name": real.split()[1],
                    "team": SLACK_TEAM,
                    **{k: v for k, v in _profile(name).items() if k in ("avatar_hash", "image_72")},
                },
                "is_admin": name in ("sophie", "tobias"),
                "is_owner": name == "sophie",
                "is_primary_owner": name == "sophie",
                "is_restricted": False,
                "is_ultra_restricted": False,
                "is_bot": False,
                "is_app_user": False,
                "updated": 1772460000 + _digest("upd", uid) % 100000,
                "is_email_confirmed": True,
            }
        )
    channels = []
    for folder, (cid, created, creator, members, topic, purpose, script) in SLACK_CHANNELS.items():
        channels.append(
            {
                "id": cid,
                "name": folder,
                "created": created,
                "creator": _uid(creator),
                "is_archived": False,
                "is_general": folder == "general",
                "members": [_uid(m) for m in members],
                "topic": _topic(topic, creator, created + 3600),
                "purpose": _topic(purpose, creator, created),
            }
        )
        write_day_files(root / folder, slack_messages(folder, script))
    dm_id, dm_created, dm_members, dm_script = SLACK_DM
    dms = [{"id": dm_id, "created": dm_created, "members": [_uid(m) for m in dm_members]}]
    write_day_files(root / dm_id, slack_messages(dm_id, dm_script))
    for name, payload in (("users.json", users), ("channels.json", channels), ("dms.json", dms)):
        (root / name).write_text(_slack_json(payload), encoding="utf-8")


# --------------------------------------------------------------------------------------------------
# Telegram
# --------------------------------------------------------------------------------------------------

RICH = re.compile(r"\*\*(.+?)\*\*|__(.+?)__|(https?://\S+)")
NOT_INCLUDED = "(File not included. Change data exporting settings to download.)"


def telegram_text(text: str) -> tuple[str | list[object], list[dict[str, str]]]:
    """``text`` and ``text_entities`` as Telegram Desktop writes them: a plain string when the message
    is one plain part, otherwise an array mixing strings and entity objects."""
    entities: list[dict[str, str]] = []
    pos = 0
    for m in RICH.finditer(text):
        if m.start() > pos:
            entities.append({"type": "plain", "text": text[pos : m.start()]})
        kind = "bold" if m[1] else "italic" if m[2] else "link"
        entities.append({"type": kind, "text": m[1] or m[2] or m[3]})
        pos = m.end()
    if pos < len(text):
        entities.append({"type": "plain", "text": text[pos:]})
    if not entities:
        return "", []
    if len(entities) == 1 and entities[0]["type"] == "plain":
        return entities[0]["text"], entities
    return [e["text"] if e["type"] == "plain" else dict(e) for e in entities], entities


def _local(stamp: datetime) -> tuple[str, str]:
    return stamp.replace(tzinfo=None).isoformat(), str(int(stamp.timestamp()))


def telegram_export() -> dict[str, object]:
    messages: list[dict[str, object]] = []
    ids: dict[str, int] = {}
    next_id = TELEGRAM_FIRST_ID
    for line, stamp, _ in with_seconds(parse_script(TELEGRAM_SCRIPT), "telegram"):
        name, from_id = TELEGRAM_PEOPLE[line.who]
        date_text, unix = _local(stamp)
        msg: dict[str, object] = {"id": next_id, "type": "message", "date": date_text, "date_unixtime": unix}
        # Telegram ids are per account, not per chat, so a 1:1 chat shows gaps where other chats spoke.
        next_id += 1 + _digest("gap", next_id) % 3
        if "call" in line.flags or "missed" in line.flags:
            msg.update(type="service", actor=name, actor_id=from_id, action="phone_call")
            if "call" in line.flags:
                msg.update(duration_seconds=int(line.flags["call"]), discard_reason="hangup")
            else:
                msg["discard_reason"] = "missed"
            msg.update(text="", text_entities=[])
            messages.append(msg)
            continue
        if "edited" in line.flags:
            edited = datetime.combine(stamp.date(), time.fromisoformat(line.flags["edited"]), BERLIN)
            msg["edited"], msg["edited_unixtime"] = _local(edited)
        msg.update({"from": name, "from_id": from_id})
        if key := line.flags.get("re"):
            msg["reply_to_message_id"] = ids[key]
        if emoji := line.flags.get("sticker"):
            msg.update(
                file=NOT_INCLUDED,
                thumbnail=NOT_INCLUDED,
                media_type="sticker",
                sticker_emoji=emoji,
                width=512,
                height=512,
            )
        if size := line.flags.get("photo"):
            width, height = (int(v) for v in size.split("x"))
            msg.update(photo=NOT_INCLUDED, width=width, height=height)
        msg["text"], msg["text_entities"] = telegram_text(line.text)
        if key := line.flags.get("id"):
            ids[key] = int(str(msg["id"]))
        messages.append(msg)
    return {"name": TELEGRAM_NAME, "type": "personal_chat", "id": TELEGRAM_ID, "messages": messages}


def write_telegram(out: Path) -> None:
    # Telegram Desktop indents by one space and writes UTF-8 unescaped.
    text = json.dumps(telegram_export(), indent=1, ensure_ascii=False)
    (out / "telegram-result.json").write_text(text, encoding="utf-8")


def main(out: Path) -> None:
    write_slack(out)
    write_telegram(out)


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE)
