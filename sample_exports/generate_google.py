"""Writes the Google Takeout and Grok sample exports of Maya's story (see README.md):

- ``Hangouts.json``: Takeout's Hangouts file, from before Hangouts closed: Maya moving into Weserstraße 48 in
  2021, with Lena (a direct chat with a photo, a link over two lines and a call) and the moving-day group with
  Mum (a rename, Lena added),
- ``Google Chat/``: Takeout's Google Chat folder: the housewarming space with Erik and Aylin (a file, a bot),
  a DM with Priya from work, and ``Users/User …/user_info.json`` naming Maya,
- ``Gemini-MyActivity.json``: Takeout's My Activity for Gemini Apps, newest first: two conversations (the
  housewarming and the Sintra charger), a feedback entry and a "Used" entry,
- ``grok-export/prod-grok-backend.json``: an x.ai data export: one conversation with a regenerated answer.

Run from anywhere: ``python sample_exports/generate_google.py [OUT_DIR]``. Output is byte-for-byte
deterministic.
"""

from __future__ import annotations

import json
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

HERE = Path(__file__).resolve().parent
BERLIN = ZoneInfo("Europe/Berlin")
MAYA = ("1047", "Maya Lindqvist", "maya.lindqvist@example.com")


def _utc(stamp: str) -> datetime:
    return datetime.strptime(stamp, "%Y-%m-%d %H:%M:%S").replace(tzinfo=BERLIN).astimezone(UTC)


def _micros(stamp: str) -> str:
    return str(int(_utc(stamp).timestamp()) * 1_000_000)


def _write(path: Path, value: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")


# --- Hangouts -------------------------------------------------------------------------------------------


def _person(gaia: str, name: str) -> dict[str, Any]:
    return {"id": {"gaia_id": gaia, "chat_id": gaia}, "fallback_name": name, "participant_type": "GAIA"}


def _event(conv: str, n: int, gaia: str, stamp: str, kind: str, **body: Any) -> dict[str, Any]:
    return {
        "conversation_id": {"id": conv},
        "sender_id": {"gaia_id": gaia, "chat_id": gaia},
        "timestamp": _micros(stamp),
        **body,
        "event_id": f"{conv[:6]}-{n:03d}",
        "event_type": kind,
    }


def _text(*pieces: str) -> dict[str, Any]:
    segments: list[dict[str, Any]] = []
    for piece in pieces:
        if piece == "\n":
            segments.append({"type": "LINE_BREAK", "text": "\n"})
        elif piece.startswith("https://"):
            segments.append({"type": "LINK", "text": piece, "link_data": {"link_target": piece}})
        else:
            segments.append({"type": "TEXT", "text": piece})
    return {"chat_message": {"message_content": {"segment": segments}}}


def hangouts() -> dict[str, Any]:
    lena, mum = ("2201", "Lena Hoffmann"), ("2202", "Ingrid Lindqvist")
    me = MAYA[:2]
    direct = "UgwLenaFlat21AaABAQ"
    group = "UgxWeserstr48AaABAQ"

    def conversation(conv: str, kind: str, people: list[tuple[str, str]], name: str | None) -> dict[str, Any]:
        inner: dict[str, Any] = {
            "id": {"id": conv},
            "type": kind,
            "self_conversation_state": {
                "self_read_state": {"participant_id": {"gaia_id": me[0], "chat_id": me[0]}}
            },
            "participant_data": [_person(*p) for p in people],
        }
        if name:
            inner["name"] = name
        return {"conversation_id": {"id": conv}, "conversation": inner}

    d = [
        _event(
            direct,
            1,
            lena[0],
            "2021-03-02 19:04:00",
            "REGULAR_CHAT_MESSAGE",
            **_text("Is the flat in Weserstraße yours now?"),
        ),
        _event(
            direct,
            2,
            me[0],
            "2021-03-02 19:10:00",
            "REGULAR_CHAT_MESSAGE",
            **_text("Yes! Signed today. The listing:", "\n", "https://example.org/wohnung/weserstrasse-48"),
        ),
        _event(
            direct,
            3,
            me[0],
            "2021-03-02 19:11:00",
            "REGULAR_CHAT_MESSAGE",
            chat_message={
                "message_content": {
                    "attachment": [
                        {
                            "embed_item": {
                                "type": ["PLUS_PHOTO"],
                                "plus_photo": {
                                    "url": "https://lh3.googleusercontent.com/weserstrasse-living-room.jpg",
                                    "media_type": "PHOTO",
                                },
                            },
                            "id": "a1",
                        }
                    ]
                }
            },
        ),
        _event(
            direct,
            4,
            lena[0],
            "2021-03-02 19:30:00",
            "HANGOUT_EVENT",
            hangout_event={
                "event_type": "END_HANGOUT",
                "hangout_duration_secs": "754",
                "media_type": "AUDIO_VIDEO",
            },
        ),
        _event(
            direct,
            5,
            lena[0],
            "2021-03-02 19:43:00",
            "REGULAR_CHAT_MESSAGE",
            **_text("Congrats! I'll help you carry on 1 April"),
        ),
    ]
    g = [
        _event(
            group,
            1,
            me[0],
            "2021-04-01 10:00:00",
            "ADD_USER",
            membership_change={"type": "JOIN", "participant_ids": [{"gaia_id": lena[0], "chat_id": lena[0]}]},
        ),
        _event(
            group,
            2,
            mum[0],
            "2021-04-01 10:02:00",
            "RENAME_CONVERSATION",
            conversation_rename={"new_name": "Moving day Weserstraße 48", "old_name": ""},
        ),
        _event(
            group,
            3,
            mum[0],
            "2021-04-01 10:05:00",
            "REGULAR_CHAT_MESSAGE",
            **_text("I'll bring Kartoffelsalat for the helpers"),
        ),
    ]
    return {
        "conversations": [
            {"conversation": conversation(direct, "STICKY_ONE_TO_ONE", [me, lena], None), "events": d},
            {
                "conversation": conversation(group, "GROUP", [me, lena, mum], "Moving day Weserstraße 48"),
                "events": g,
            },
        ]
    }


# --- Google Chat ----------------------------------------------------------------------------------------


def _created(stamp: str) -> str:
    at = _utc(stamp)
    return f"{at:%A, %B} {at.day}, {at.year} at {at.hour % 12 or 12}:{at:%M:%S}\u202f{at:%p} UTC"


def _chat_message(
    group: str, n: int, who: tuple[str, str, str] | None, stamp: str, text: str, **more: Any
) -> dict[str, Any]:
    creator = (
        {"name": who[1], "email": who[2], "user_type": "Human"}
        if who
        else {"name": "Calendar", "user_type": "Bot"}
    )
    return {
        "creator": creator,
        "created_date": _created(stamp),
        "text": text,
        **more,
        "topic_id": f"t{n:02d}",
        "message_id": f"{group}/t{n:02d}/m{n:02d}",
    }


def google_chat() -> dict[str, Any]:
    erik = ("1101", "Erik Lindqvist", "erik.lindqvist@example.com")
    aylin = ("1102", "Aylin Demir", "aylin.demir@example.com")
    priya = ("1103", "Priya Raman", "priya.raman@acme.example")
    space, dm = "AAAAhousewarm", "tXq2bAAAAE"
    people = lambda *ps: [{"name": p[1], "email": p[2], "user_type": "Human"} for p in ps]  # noqa: E731
    return {
        f"Groups/Space {space}/group_info.json": {
            "name": "Housewarming 3 Oct",
            "members": people(MAYA, erik, aylin),
        },
        f"Groups/Space {space}/messages.json": {
            "messages": [
                _chat_message(
                    space,
                    1,
                    MAYA,
                    "2026-09-14 20:01:00",
                    "Housewarming on Saturday 3 October from 18:00, Schliemannstraße 21",
                ),
                _chat_message(
                    space,
                    2,
                    aylin,
                    "2026-09-14 20:07:00",
                    "I'll bring the pastéis de nata from the Portuguese bakery",
                ),
                _chat_message(
                    space,
                    3,
                    erik,
                    "2026-09-14 20:15:00",
                    "I can bring the speakers.\nAnd the folding chairs",
                    attached_files=[{"original_name": "playlist.txt", "export_name": "File-playlist.txt"}],
                ),
                _chat_message(
                    space, 4, None, "2026-10-02 09:00:00", "Reminder: Housewarming tomorrow at 18:00"
                ),
            ]
        },
        f"Groups/DM {dm}/group_info.json": {"members": people(MAYA, priya)},
        f"Groups/DM {dm}/messages.json": {
            "messages": [
                _chat_message(dm, 1, priya, "2026-09-21 12:30:00", "Thanks for the cake on my birthday!"),
                _chat_message(
                    dm, 2, MAYA, "2026-09-21 12:34:00", "Come to the housewarming on 3 October too"
                ),
            ]
        },
        f"Users/User {MAYA[0]}/user_info.json": {
            "user": {"name": MAYA[1], "email": MAYA[2], "user_type": "Human"},
            "membership_info": [
                {
                    "group_name": "Housewarming 3 Oct",
                    "group_id": f"Space {space}",
                    "membership_state": "MEMBER_JOINED",
                }
            ],
        },
    }


# --- Gemini ---------------------------------------------------------------------------------------------


def _activity(stamp: str, title: str, html: str | None = None, **more: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "header": "Gemini Apps",
        "title": title,
        "time": _utc(stamp).strftime("%Y-%m-%dT%H:%M:%S.000Z"),
    }
    if html is not None:
        entry["safeHtmlItem"] = [{"html": html}]
    entry.update(more)
    entry["products"] = ["Gemini Apps"]
    entry["activityControls"] = ["Gemini Apps Activity"]
    return entry


def gemini() -> list[dict[str, Any]]:
    entries = [
        _activity(
            "2026-07-13 21:02:00",
            "Prompted Where can I buy a phone charger in Sintra tonight?",
            "<p>Near the station you can try:</p><ul><li>the <b>Worten</b> in the shopping centre in Portela de Sintra (open till 23:00)</li><li>kiosks on Avenida Heliodoro Salgado</li></ul><p>Bring the old cable to match the plug.</p>",
        ),
        _activity(
            "2026-07-13 21:05:30",
            "Prompted Can I call the café Piriquita about a charger I left there?",
            "<p>Yes, Piriquita is on Rua das Padarias 1. Call in the morning; they keep lost items at the counter.</p>",
        ),
        _activity("2026-07-13 21:06:00", "Gave feedback: Good response"),
        _activity("2026-09-12 18:20:00", "Used Gemini Apps"),
        _activity(
            "2026-09-12 18:21:00",
            "Prompted Write a short housewarming invitation for Saturday 3 October, 18:00",
            "<p><b>You're invited!</b><br>Come and see my new flat on Schliemannstraße on Saturday 3 October from 18:00. Bring a friend, and your appetite.</p>",
            attachedFiles=["flat-photo.jpg"],
        ),
        _activity(
            "2026-09-12 18:24:00",
            "Prompted Make it a bit shorter and add that there is no lift",
            "<p>Housewarming! Saturday 3 October, 18:00, Schliemannstraße 21 (4th floor, no lift). See you there!</p>",
        ),
    ]
    return sorted(entries, key=lambda e: e["time"], reverse=True)  # Takeout writes the newest first


# --- Grok -----------------------------------------------------------------------------------------------


def _date(stamp: str) -> dict[str, Any]:
    return {"$date": {"$numberLong": str(int(_utc(stamp).timestamp() * 1000))}}


def grok() -> dict[str, Any]:
    conv = "5f1c2a9e-7b3d-4e8a-9c61-0d2f4b8a7e10"

    def response(
        ident: str, sender: str, stamp: str, message: str, parent: str | None = None
    ) -> dict[str, Any]:
        body: dict[str, Any] = {
            "_id": ident,
            "conversation_id": conv,
            "message": message,
            "sender": sender,
            "create_time": _date(stamp),
        }
        if parent:
            body["parent_response_id"] = parent
        body["partial"] = False
        return {"response": body}

    return {
        "conversations": [
            {
                "conversation": {
                    "id": conv,
                    "user_id": "maya-x",
                    "create_time": _utc("2026-08-20 19:00:00").isoformat().replace("+00:00", "Z"),
                    "modify_time": _utc("2026-08-20 19:06:00").isoformat().replace("+00:00", "Z"),
                    "title": "Deposit deduction",
                    "starred": False,
                },
                "responses": [
                    response(
                        "g1",
                        "human",
                        "2026-08-20 19:00:00",
                        "My landlord kept 80 € of the deposit for a hole in the wall. Is that allowed in Berlin?",
                    ),
                    response("g2", "ASSISTANT", "2026-08-20 19:00:20", "It depends.", "g1"),
                    response(
                        "g3",
                        "ASSISTANT",
                        "2026-08-20 19:01:10",
                        "Usually yes: a landlord may deduct the cost of repairing damage beyond normal wear. A dowel hole is often normal wear, a large hole is not; ask for the invoice.",
                        "g1",
                    ),
                    response(
                        "g4",
                        "human",
                        "2026-08-20 19:05:00",
                        "It was a big hole from the shelf. I'll let it go.",
                        "g3",
                    ),
                    response(
                        "g5",
                        "ASSISTANT",
                        "2026-08-20 19:05:30",
                        "Sounds fair: 80 € is a normal price for filling and painting that spot.",
                        "g4",
                    ),
                ],
            }
        ],
        "projects": [],
    }


def main(out: Path = HERE) -> None:
    _write(out / "Hangouts.json", hangouts())
    for name, value in google_chat().items():
        _write(out / "Google Chat" / name, value)
    _write(out / "Gemini-MyActivity.json", gemini())
    _write(out / "grok-export" / "prod-grok-backend.json", grok())


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE)
