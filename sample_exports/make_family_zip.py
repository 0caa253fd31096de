"""Writes ``WhatsApp Chat - Family.zip``: an iOS WhatsApp group export (``_chat.txt`` plus one photo).

Run from anywhere: ``python sample_exports/make_family_zip.py``. The output is byte-for-byte
deterministic (fixed entry timestamps and order), so re-running it never makes a spurious diff.
"""

from __future__ import annotations

import sys
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ZIP_NAME = "WhatsApp Chat - Family.zip"
PHOTO_NAME = "00000012-PHOTO-2026-05-30-14-02-11.jpg"

# A few bytes with a JPEG's start and end markers: enough for anything that sniffs the file type, and
# the demo has no use for real pixels.
PHOTO_BYTES = bytes.fromhex("ffd8ffe000104a46494600010100000100010000ffd9")

# iOS writes the chat with CRLF line ends and marks attachment and system lines with U+200E (LRM),
# both before the bracket and before the body. Written here with LF; converted on output.
CHAT = """\
[01/03/2026, 10:02:13] Family: \u200eMessages and calls are end-to-end encrypted. Only people in this chat can read, listen to, or share them.
[01/03/2026, 10:02:13] Family: \u200eMum created group \u201cFamily\u201d
[01/03/2026, 10:02:13] Family: \u200eMum added you
[01/03/2026, 10:02:14] Family: \u200eMum added Dad
[01/03/2026, 10:02:14] Family: \u200eMum added Erik
[01/03/2026, 10:03:40] Mum: A new group because Erik has a new number again. Please use this one now! \U0001f618
[01/03/2026, 10:05:02] Erik: it was ONE time
[01/03/2026, 10:05:31] Erik: ok two times
[01/03/2026, 10:11:47] Maya: Hej everyone \U0001f44b
[01/03/2026, 10:12:20] Maya: News: I'm looking for a new flat. Weserstra\u00dfe is getting too loud and too small
[01/03/2026, 10:14:05] Dad: Good. That back building never had proper heating.
[01/03/2026, 10:14:59] Mum: Where do you want to go?
[01/03/2026, 10:16:30] Maya: Prenzlauer Berg, closer to work
[01/03/2026, 10:17:12] Erik: fancy
[01/03/2026, 10:17:40] Maya: it's not fancy it's practical
[01/03/2026, 10:17:58] Erik: fancy and practical
[04/03/2026, 18:22:09] Mum: Maya did you make the dentist appointment? Your tooth has been hurting since Christmas
[04/03/2026, 18:40:51] Maya: Yes Mum. Dentist is booked: 14 April, 8:30, Dr. Okafor on Karl-Marx-Stra\u00dfe
[04/03/2026, 18:41:30] Mum: Good \U0001f44d
[04/03/2026, 18:41:44] Dad: That is in 6 weeks
[04/03/2026, 18:42:16] Maya: that was the first free slot, she's popular
\u200e[12/03/2026, 09:31:02] Dad: \u200eimage omitted
[12/03/2026, 09:31:40] Dad: The tomato seedlings. San Marzano and the yellow ones.
[12/03/2026, 09:45:13] Mum: He talks to them in the morning
[12/03/2026, 09:58:27] Erik: they're doing better than me honestly
[22/03/2026, 20:14:06] Erik: tatort tonight?
[22/03/2026, 20:15:11] Dad: Already on the sofa
[22/03/2026, 21:46:30] Mum: I knew it was the brother
[22/03/2026, 21:46:58] Erik: you always say it's the brother
[22/03/2026, 21:47:20] Mum: And I am always right
[29/03/2026, 11:03:47] Dad: Reminder: the clocks went forward last night. Check the oven clock.
[29/03/2026, 11:09:15] Erik: nobody has ever checked the oven clock
[09/04/2026, 16:31:22] Maya: I GOT THE FLAT!!! Schliemannstra\u00dfe 21, Prenzlauer Berg \U0001f389
[09/04/2026, 16:31:58] Maya: 2 rooms, 4th floor, balcony
[09/04/2026, 16:33:10] Mum: Oh wonderful!!! Congratulations darling \u2764\ufe0f\u2764\ufe0f
[09/04/2026, 16:35:43] Erik: 4th floor. lift?
[09/04/2026, 16:36:01] Maya: \U0001f636
[09/04/2026, 16:36:19] Erik: I knew it
[09/04/2026, 16:40:52] Dad: Congratulations. Send me the contract before you sign, I will read it.
[09/04/2026, 16:41:30] Maya: I'm signing on Thursday next week, I'll send it tonight
[14/04/2026, 07:45:12] Mum: Good luck at the dentist today!
[14/04/2026, 08:02:38] Maya: Mum I moved the dentist! Big release at work today. It's on 28 April now
[14/04/2026, 08:03:15] Mum: Oh. Well good luck with the release then
[14/04/2026, 08:03:50] Erik: the tooth sends its regards
[15/04/2026, 21:10:04] Dad: I read the contract. Index rent, not graduated rent. Deposit 3 months. Small repairs clause up to 100 euros. It is fine.
[15/04/2026, 21:12:44] Maya: thank you Papa \U0001f64f
[16/04/2026, 18:20:33] Maya: Signed! Keys on 15 May
\u200e[16/04/2026, 18:20:40] Maya: \u200eimage omitted
[16/04/2026, 18:25:09] Mum: My girl with a balcony \U0001f970
[27/04/2026, 10:30:18] Maya: Dentist cancelled again \U0001f644 Dr. Okafor is ill. New date 6 May
[27/04/2026, 10:34:02] Mum: Oh no, poor woman. Hope she gets better
[27/04/2026, 10:35:20] Erik: at this point just pull it out yourself
[27/04/2026, 10:35:33] Mum: ERIK
[04/05/2026, 20:26:41] Maya: Moving day is Saturday 30 May! I booked the van, a 3.5t Sprinter from the rental on Sonnenallee, 8 to 18
[04/05/2026, 20:27:15] Maya: Erik you're driving, you're the only one with nerves for that
[04/05/2026, 20:29:40] Erik: what do I get
[04/05/2026, 20:30:02] Maya: pizza and eternal gratitude
[04/05/2026, 20:30:13] Erik: deal
[04/05/2026, 20:33:57] Dad: I will bring the drill and the big toolbox. The lamps need to go up.
[04/05/2026, 20:35:24] Mum: And I will cook for everyone. How many helpers?
[04/05/2026, 20:38:01] Maya: Jonas and Aylin are coming, plus Erik and Papa. So 5 with me
[04/05/2026, 20:38:40] Mum: Kartoffelsalat and Frikadellen then
[04/05/2026, 20:39:02] Erik: now we're talking
[06/05/2026, 11:52:47] Maya: Dentist done finally! Small filling, lower left. All fine, face still numb
[06/05/2026, 11:55:30] Mum: Good! And floss every evening now
[06/05/2026, 11:56:02] Maya: yes Mum
[06/05/2026, 11:58:14] Dad: Third time lucky
[15/05/2026, 17:48:05] Maya: keys!!!
\u200e[15/05/2026, 17:48:21] Maya: \u200eimage omitted
\u200e[15/05/2026, 17:48:22] Maya: \u200eimage omitted
[15/05/2026, 17:52:39] Dad: Nice light. The radiator in the second room looks old. Check it.
[15/05/2026, 17:53:47] Mum: It's beautiful!!
[16/05/2026, 23:05:14] Erik: the glitter cape guy WON??
[16/05/2026, 23:06:02] Maya: justice for the glitter cape
[24/05/2026, 13:12:00] Maya: anyone have spare boxes? I'm at 31 and the kitchen isn't done
[24/05/2026, 13:20:44] Dad: We have 10 in the cellar. Erik can bring them.
[24/05/2026, 13:21:30] Erik: Erik can bring them apparently
[29/05/2026, 21:45:10] Maya: Tomorrow:
8:00 Erik picks up the van at Sonnenallee
9:00 everyone at Weserstra\u00dfe 48
~13:00 unloading at Schliemannstra\u00dfe 21
Mum comes with food around 14:00
[29/05/2026, 21:47:51] Mum: I'll be there! Salad is in the fridge
[29/05/2026, 21:49:20] Erik: setting 3 alarms
[30/05/2026, 08:04:16] Erik: got the van. it's huge. wish me luck
[30/05/2026, 08:05:01] Maya: drive safe!!
[30/05/2026, 11:21:40] Dad: Van is full. Jonas is a good packer.
\u200e[30/05/2026, 14:02:11] Erik: \u200e<attached: 00000012-PHOTO-2026-05-30-14-02-11.jpg>
[30/05/2026, 14:02:30] Erik: sofa vs stairwell 0:1
[30/05/2026, 14:03:12] Dad: Take the feet off. Then tilt it.
[30/05/2026, 14:09:55] Erik: it's in. Jonas has lost a bit of skin
[30/05/2026, 14:10:21] Mum: I'm downstairs with the food, someone open the door please
[30/05/2026, 21:30:07] Maya: Thank you all SO much. Papa for the lamps, Erik for driving and the sofa, Mum for the best Kartoffelsalat. I love my flat
[30/05/2026, 21:32:48] Mum: \u2764\ufe0f\u2764\ufe0f\u2764\ufe0f
[30/05/2026, 21:35:13] Erik: van is back, 186 km, no scratches. you owe me a pizza that I already ate
[31/05/2026, 10:20:30] Dad: My back is not happy today. Worth it.
[08/06/2026, 19:02:44] Dad: Reminder: Mum's birthday is Sunday 21st. Lunch at ours in Potsdam, 13:00. Don't be late.
[08/06/2026, 19:03:20] Mum: I can read this you know
[08/06/2026, 19:03:59] Dad: It is a family reminder
[12/06/2026, 18:58:35] Maya: Handed back the keys in Neuk\u00f6lln today. Herr Yilmaz complained about one hole in the wall, otherwise fine
[12/06/2026, 19:01:09] Dad: Did you take photos at the handover? Always take photos.
[12/06/2026, 19:02:00] Maya: yes Papa, 43 photos
[12/06/2026, 19:02:31] Dad: Good
[14/06/2026, 12:15:47] Family: \u200eErik changed this group's icon
[14/06/2026, 12:16:10] Mum: Who is that??
[14/06/2026, 12:16:40] Erik: it's us at midsummer 2009. Maya has a flower crown made of dandelions
[14/06/2026, 12:17:02] Maya: change it back
[14/06/2026, 12:17:05] Erik: never
[21/06/2026, 08:30:21] Maya: Happy birthday Mum!!! 60 and fabulous \U0001f382\U0001f381
[21/06/2026, 08:41:02] Erik: grattis p\u00e5 f\u00f6delsedagen! \U0001f389 see you at 1
[21/06/2026, 09:02:40] Mum: Thank you my darlings!!
[21/06/2026, 18:44:13] Mum: Thank you for the lovely day and the pottery course! I will make you all ugly cups
[21/06/2026, 18:45:40] Maya: we expect nothing less
\u200e[21/06/2026, 18:46:12] Dad: \u200eimage omitted
[01/07/2026, 20:10:51] Maya: btw Jonas started his new job in Hamburg today
[01/07/2026, 20:12:33] Mum: The tall one who carried the sofa? How nice for him. Hamburg is so rainy
[01/07/2026, 20:13:02] Erik: he's gonna come back with a sailor hat
[08/07/2026, 19:18:29] Mum: Have a wonderful time in Lisbon tomorrow! Sunscreen!!
[08/07/2026, 19:20:13] Maya: thanks Mum! flight at 6:40, back on the 16th
[08/07/2026, 19:21:02] Dad: Eat the custard tarts. Not only one.
\u200e[09/07/2026, 14:12:48] Maya: \u200eimage omitted
[09/07/2026, 14:13:10] Maya: our Airbnb in Alfama, look at this view
[09/07/2026, 14:20:32] Mum: Beautiful! Is Aylin with you?
[09/07/2026, 14:24:51] Maya: yes, she says hi!
\u200e[13/07/2026, 20:40:05] Maya: \u200eimage omitted
\u200e[13/07/2026, 20:40:06] Maya: \u200eimage omitted
[13/07/2026, 20:41:22] Maya: Sintra today. Pena Palace is like a cake
[13/07/2026, 20:49:17] Dad: We were there in 1994. It rained the whole day.
[13/07/2026, 20:50:03] Mum: And you were complaining the whole day
[14/07/2026, 10:12:30] Maya: I lost my phone charger in a caf\u00e9 in Sintra yesterday \U0001f926 buying a new one today
[14/07/2026, 10:14:09] Erik: classic maya
[17/07/2026, 01:06:44] Maya: Home! Flight was 2 hours late. Good night
[17/07/2026, 07:32:19] Mum: Welcome home darling
\u200e[26/07/2026, 17:05:55] Dad: \u200eimage omitted
[26/07/2026, 17:06:30] Dad: First tomatoes.
[26/07/2026, 17:20:18] Erik: he's going to frame that picture
[26/07/2026, 17:21:02] Dad: Maybe
[05/08/2026, 21:13:40] Erik: bought a bike. used but basically new. gravel bike
\u200e[05/08/2026, 21:13:52] Erik: \u200eimage omitted
[05/08/2026, 21:16:01] Dad: Get a good lock. Two locks.
[05/08/2026, 21:16:40] Maya: three locks, it's Berlin
[20/08/2026, 12:10:09] Maya: Got my deposit back from Herr Yilmaz! He kept 80 euros for the hole
[20/08/2026, 12:12:48] Dad: That is fair.
[02/09/2026, 19:50:31] Maya: Save the date: housewarming on Saturday 3 October! Coffee and cake from 15:00, party in the evening
[02/09/2026, 19:52:20] Mum: We'll come for the coffee and cake part
[02/09/2026, 19:53:05] Erik: I'll come for the party part
[02/09/2026, 19:53:44] Erik: and I'm preparing a speech
[02/09/2026, 19:53:58] Maya: please don't
[12/09/2026, 09:00:22] Maya: Happy birthday little brother!! \U0001f382
[12/09/2026, 09:01:10] Mum: Happy birthday my boy! 27 years ago I was very tired
[12/09/2026, 09:30:44] Erik: thanks guys \U0001f64f
[12/09/2026, 09:31:02] Erik: mum that's a weird thing to say
[12/09/2026, 09:31:40] Mum: It's true
[03/10/2026, 14:48:12] Mum: On the S-Bahn, bringing the apple cake
[03/10/2026, 14:49:40] Dad: And a plant.
[04/10/2026, 11:02:08] Maya: Thank you for coming yesterday! Erik your speech about the sofa made Jonas cry laughing
[04/10/2026, 11:05:33] Erik: it was a tribute to the sofa's courage
[04/10/2026, 11:06:10] Mum: The flat is lovely now. Much better than Neuk\u00f6lln
[24/10/2026, 20:15:37] Dad: Clocks go back tonight. One more hour of sleep.
[24/10/2026, 20:17:02] Erik: check the oven clock
[24/10/2026, 20:17:30] Dad: Very funny.
"""


def build(out_dir: Path) -> Path:
    """Write the zip into ``out_dir`` and return its path."""
    target = out_dir / ZIP_NAME
    entries = [
        ("_chat.txt", CHAT.replace("\n", "\r\n").encode("utf-8"), (2026, 10, 25, 10, 31, 12)),
        (PHOTO_NAME, PHOTO_BYTES, (2026, 5, 30, 14, 2, 10)),
    ]
    with zipfile.ZipFile(target, "w") as zf:
        for name, data, stamp in entries:
            info = zipfile.ZipInfo(name, date_time=stamp)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            zf.writestr(info, data)
    return target


if __name__ == "__main__":
    print(build(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE))
