"""Writes the two assistant sample exports of Maya's story (see README.md):

- ``chatgpt-export.zip``: a ChatGPT data export (``conversations.json`` beside ``chat.html``, ``user.json``,
  ``message_feedback.json``, ``shared_conversations.json`` and the one uploaded image),
- ``claude-export/``: an unpacked Claude.ai data export (``conversations.json``, ``users.json``,
  ``projects.json``, ``memories.json``).

Run from anywhere: ``python sample_exports/generate_assistants.py [OUT_DIR]``. Output is byte-for-byte
deterministic: ids are UUIDs derived from names, fractions of seconds from hashes, zip entries carry a fixed
date.

What the files exercise. ChatGPT: a hidden system message with no time, the custom instructions
(``user_editable_context``), a regenerated answer on a branch ``current_node`` does not lead to, a message
with ``create_time: null``, a conversation resumed three weeks later, an uploaded image (``multimodal_text``
with an ``image_asset_pointer`` and ``metadata.attachments``), code sent to the python tool and its
``execution_output``, browsing (``tether_browsing_display``, ``tether_quote``), reasoning (``thoughts``,
``reasoning_recap``), and one conversation whose ``children`` lists are all empty. Claude: an attachment
with ``extracted_content`` (the lease, in German), a ``thinking`` block, ``tool_use`` / ``tool_result``
blocks, a conversation with an empty ``name``, a ``null`` entry in ``chat_messages``, and a conversation in
the older shape whose messages have only ``text``.
"""

from __future__ import annotations

import hashlib
import io
import json
import sys
import uuid
import zipfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

HERE = Path(__file__).resolve().parent
BERLIN = ZoneInfo("Europe/Berlin")
CHATGPT_ZIP = "chatgpt-export.zip"
CLAUDE_DIR = "claude-export"
NAMESPACE = uuid.UUID("5b0e4c1e-6a3f-4f1e-9d51-8a4a3b8f2c10")
IMAGE_NAME = "file-Lx7Qm2VfNwR4tJ8pKd3Hs1-IMG_4471.png"
# A PNG signature and an empty IEND chunk: a file type sniffer's worth of image.
IMAGE_BYTES = bytes.fromhex("89504e470d0a1a0a0000000049454e44ae426082")
ZIP_DATE = (2026, 10, 31, 12, 0, 0)


def _id(*names: str) -> str:
    return str(uuid.uuid5(NAMESPACE, "/".join(names)))


def _fraction(*names: str) -> float:
    """A stable fraction of a second, so times look like the app's and never change between runs."""
    return int.from_bytes(hashlib.blake2b("/".join(names).encode(), digest_size=3).digest()) / (1 << 24)


def _berlin(stamp: str) -> datetime:
    return datetime.strptime(stamp, "%Y-%m-%d %H:%M:%S").replace(tzinfo=BERLIN)


def _epoch(stamp: str, *names: str) -> float:
    return round(_berlin(stamp).timestamp() + _fraction(stamp, *names), 6)


def _iso(stamp: str, *names: str) -> str:
    at = _berlin(stamp).astimezone(UTC)
    micro = int(_fraction(stamp, *names) * 1_000_000)
    return at.replace(microsecond=micro).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


# --------------------------------------------------------------------------------------------------
# ChatGPT
# --------------------------------------------------------------------------------------------------


class Tree:
    """One ChatGPT conversation's ``mapping``, grown node by node; each node's parent is the last node added
    unless one is named."""

    def __init__(self, key: str, title: str, created: str, model: str = "gpt-4o") -> None:
        self.key = key
        self.conv_id = _id("chatgpt", key)
        self.title = title
        self.created = created
        self.model = model
        self.root = _id("chatgpt", key, "root")
        self.nodes: dict[str, dict[str, Any]] = {
            self.root: {"id": self.root, "message": None, "parent": None, "children": []}
        }
        self.last = self.root
        self.updated = created

    def add(
        self,
        name: str,
        role: str,
        content: dict[str, Any],
        at: str | None,
        *,
        parent: str | None = None,
        author: str | None = None,
        recipient: str = "all",
        metadata: dict[str, Any] | None = None,
    ) -> str:
        nid = _id("chatgpt", self.key, name)
        parent = parent or self.last
        meta: dict[str, Any] = dict(metadata or {})
        if role == "assistant":
            meta.setdefault("model_slug", self.model)
            meta.setdefault("default_model_slug", self.model)
        meta.setdefault("request_id", hashlib.blake2b(nid.encode(), digest_size=8).hexdigest())
        message: dict[str, Any] = {
            "id": nid,
            "author": {"role": role, "name": author, "metadata": {}},
            "create_time": _epoch(at, self.key, name) if at else None,
            "update_time": None,
            "content": content,
            "status": "finished_successfully",
            "end_turn": True if role == "assistant" and recipient == "all" else None,
            "weight": 1.0,
            "metadata": meta,
            "recipient": recipient,
            "channel": None,
        }
        self.nodes[nid] = {"id": nid, "message": message, "parent": parent, "children": []}
        self.nodes[parent]["children"].append(nid)
        self.last = nid
        if at and at > self.updated:
            self.updated = at
        return nid

    def conversation(self, current: str | None = None, *, empty_children: bool = False) -> dict[str, Any]:
        mapping = self.nodes
        if empty_children:  # the trap some exports set: only the parent links tell the tree
            mapping = {nid: dict(node, children=[]) for nid, node in self.nodes.items()}
        return {
            "title": self.title,
            "create_time": _epoch(self.created, self.key, "created"),
            "update_time": _epoch(self.updated, self.key, "updated"),
            "mapping": mapping,
            "moderation_results": [],
            "current_node": current or self.last,
            "plugin_ids": None,
            "conversation_id": self.conv_id,
            "conversation_template_id": None,
            "gizmo_id": None,
            "gizmo_type": None,
            "is_archived": False,
            "is_starred": None,
            "safe_urls": [],
            "default_model_slug": self.model,
            "conversation_origin": None,
            "voice": None,
            "async_status": None,
            "disabled_tool_ids": [],
            "id": self.conv_id,
        }


def _text(*parts: str) -> dict[str, Any]:
    return {"content_type": "text", "parts": list(parts)}


def _dentist() -> dict[str, Any]:
    t = Tree("dentist", "Reschedule dentist appointment", "2026-04-07 10:02:31")
    t.add(
        "system",
        "system",
        _text(""),
        None,
        metadata={"is_visually_hidden_from_conversation": True},
    )
    t.add(
        "context",
        "user",
        {
            "content_type": "user_editable_context",
            "user_profile": "The user provided the following information about themselves: "
            "I'm Maya, a data analyst in Berlin.",
            "user_instructions": "The user provided the additional info about how they would like you to "
            "respond: Keep answers short. I write in English and German.",
        },
        "2026-04-07 10:02:31",
        metadata={"is_visually_hidden_from_conversation": True, "user_context_message_data": {}},
    )
    ask = t.add(
        "ask",
        "user",
        _text(
            "I need to move my dentist appointment. It's on 14 April at 8:30 with Dr. Okafor, but our "
            "Nordlicht dashboard release was just moved to 14 April. Can you write a short email to the "
            "practice asking for 28 April instead?"
        ),
        "2026-04-07 10:03:02",
    )
    t.add(
        "draft-1",
        "assistant",
        _text(
            "Subject: Request to reschedule appointment\n\nDear Sir or Madam,\n\nI am writing to "
            "respectfully request that my appointment with Dr. Okafor on 14 April at 8:30 be rescheduled, "
            "owing to an unavoidable professional obligation. Should 28 April be available, I would be "
            "most grateful.\n\nYours faithfully,\nMaya Lindqvist"
        ),
        "2026-04-07 10:03:09",
    )
    t.add(
        "draft-2",
        "assistant",
        _text(
            "Subject: Moving my appointment on 14 April\n\nHello,\n\nI have an appointment with Dr. Okafor "
            "on Tuesday 14 April at 8:30. Unfortunately a release at work was moved to that day, so I "
            "can't make it. Would Tuesday 28 April, ideally in the morning, be possible instead?\n\n"
            "Thank you and best regards,\nMaya Lindqvist"
        ),
        "2026-04-07 10:03:51",
        parent=ask,
    )
    t.add("shorter", "user", _text("Shorter please, and in German"), "2026-04-07 10:05:12")
    t.add(
        "german",
        "assistant",
        _text(
            "Betreff: Terminverschiebung 14. April\n\nGuten Tag,\n\nleider kann ich meinen Termin bei "
            "Dr. Okafor am 14. April um 8:30 Uhr nicht wahrnehmen. Wäre stattdessen der 28. April "
            "möglich?\n\nVielen Dank und viele Grüße\nMaya Lindqvist"
        ),
        None,  # written so by the app now and then: the time of the prompt before it stands in
    )
    t.add(
        "cancelled",
        "user",
        _text(
            "Update: the practice just called and cancelled the 28th, Dr. Okafor is ill. The new date is "
            "6 May. Can you write me a short reminder for my calendar?"
        ),
        "2026-04-27 10:41:20",
    )
    t.add(
        "reminder",
        "assistant",
        _text(
            "Dentist: Dr. Okafor, Karl-Marx-Straße, Wednesday 6 May 2026. Bring your insurance card. "
            "(Moved from 14 April, then from 28 April.)"
        ),
        "2026-04-27 10:41:33",
    )
    return t.conversation()


def _lisbon() -> dict[str, Any]:
    t = Tree("lisbon", "Lisbon week itinerary", "2026-04-29 21:14:05")
    t.add(
        "flights",
        "user",
        {
            "content_type": "multimodal_text",
            "parts": [
                {
                    "content_type": "image_asset_pointer",
                    "asset_pointer": "file-service://file-Lx7Qm2VfNwR4tJ8pKd3Hs1",
                    "size_bytes": len(IMAGE_BYTES),
                    "width": 1170,
                    "height": 2532,
                    "fovea": None,
                    "metadata": None,
                },
                "Here are our flights. Aylin and I fly BER to LIS on Thursday 9 July at 06:40 and back on "
                "Thursday 16 July at 18:10. We stay in an Airbnb in Alfama, on Rua dos Remédios. Can you "
                "plan the week? We'd like one day trip.",
            ],
        },
        "2026-04-29 21:14:05",
        metadata={
            "attachments": [
                {
                    "id": "file-Lx7Qm2VfNwR4tJ8pKd3Hs1",
                    "name": "IMG_4471.PNG",
                    "size": len(IMAGE_BYTES),
                    "mime_type": "image/png",
                    "width": 1170,
                    "height": 2532,
                }
            ]
        },
    )
    t.add(
        "count",
        "assistant",
        {
            "content_type": "code",
            "language": "python",
            "response_format_name": None,
            "text": "from datetime import date\n(date(2026, 7, 16) - date(2026, 7, 9)).days",
        },
        "2026-04-29 21:14:11",
        recipient="python",
    )
    t.add(
        "count-output",
        "tool",
        {"content_type": "execution_output", "text": "7"},
        "2026-04-29 21:14:12",
        author="python",
    )
    t.add(
        "plan",
        "assistant",
        _text(
            "You have 7 nights. A plan that keeps the day trip on a weekday:\n\n"
            "- Thu 9 July: land around 09:00, drop the bags in Alfama, Miradouro de Santa Luzia, dinner "
            "with fado in Alfama.\n"
            "- Fri 10 July: Baixa and Chiado, the Santa Justa lift, Time Out Market.\n"
            "- Sat 11 July: Belém: the tower, the Jerónimos monastery, pastéis de Belém.\n"
            "- Sun 12 July: LX Factory and a sunset at Miradouro da Senhora do Monte.\n"
            "- Mon 13 July: day trip to Sintra: Pena Palace in the morning, Quinta da Regaleira after "
            "lunch, and travesseiros at Piriquita.\n"
            "- Tue 14 July: Cascais by train, beach afternoon.\n"
            "- Wed 15 July: Gulbenkian museum, Príncipe Real.\n"
            "- Thu 16 July: a slow morning; leave for the airport by 15:30 for the 18:10 flight."
        ),
        "2026-04-29 21:14:40",
    )
    t.add("monday", "user", _text("Is Pena Palace open on Mondays?"), "2026-04-29 21:16:02")
    t.add(
        "search",
        "assistant",
        {"content_type": "code", "language": "unknown", "text": 'search("Pena Palace opening days Monday")'},
        "2026-04-29 21:16:05",
        recipient="browser",
    )
    t.add(
        "results",
        "tool",
        {
            "content_type": "tether_browsing_display",
            "result": "# 【0†Park and Palace of Pena – Parques de Sintra†www.parquesdesintra.pt】\n"
            "Open every day. Palace 9:30–18:30 (last entry 17:45). Timed tickets online.",
            "summary": None,
            "assets": None,
            "tether_id": None,
        },
        "2026-04-29 21:16:09",
        author="browser",
    )
    t.add(
        "quote",
        "tool",
        {
            "content_type": "tether_quote",
            "url": "https://www.parquesdesintra.pt/en/parks-monuments/park-and-palace-of-pena/",
            "domain": "www.parquesdesintra.pt",
            "text": "The Park and Palace of Pena are open every day of the year except 25 December and "
            "1 January.",
            "title": "Park and Palace of Pena | Parques de Sintra",
        },
        "2026-04-29 21:16:10",
        author="browser",
    )
    t.add(
        "thinking",
        "assistant",
        {
            "content_type": "thoughts",
            "thoughts": [
                {
                    "summary": "Checking Monday opening",
                    "content": "The official site says open every day except 25 Dec and 1 Jan, so "
                    "Monday 13 July works; Mondays are busy because other museums close.",
                }
            ],
            "source_analysis_msg_id": None,
        },
        "2026-04-29 21:16:12",
    )
    t.add(
        "recap",
        "assistant",
        {"content_type": "reasoning_recap", "content": "Thought for 4 seconds"},
        "2026-04-29 21:16:13",
    )
    t.add(
        "answer",
        "assistant",
        _text(
            "Yes. Pena Palace is open every day, Mondays included (9:30–18:30, last entry 17:45); it only "
            "closes on 25 December and 1 January. Mondays are busy because many museums in Lisbon close, "
            "so book a timed ticket for 9:30 online and take an early train from Rossio."
        ),
        "2026-04-29 21:16:20",
    )
    return t.conversation(empty_children=True)


def _salad() -> dict[str, Any]:
    t = Tree("salad", "Kartoffelsalat for the moving crew", "2026-05-28 19:32:40")
    t.add(
        "ask",
        "user",
        _text(
            "Mum is making Kartoffelsalat for the people helping me move on Saturday, we're 7. How many "
            "kilos of potatoes?"
        ),
        "2026-05-28 19:32:40",
    )
    t.add(
        "answer",
        "assistant",
        _text(
            "For 7 hungry helpers count about 250 g of potatoes each: roughly 1.8 kg, so buy 2 kg of "
            "waxy potatoes (festkochend). With Frikadellen on the side that is plenty."
        ),
        "2026-05-28 19:32:52",
    )
    return t.conversation()


def chatgpt_files() -> dict[str, bytes]:
    conversations = [_dentist(), _lisbon(), _salad()]
    data = json.dumps(conversations, ensure_ascii=False).encode()
    user = {
        "id": "user-" + hashlib.blake2b(b"maya", digest_size=12).hexdigest(),
        "email": "maya.lindqvist@example.com",
        "chatgpt_plus_user": False,
        "phone_number": None,
    }
    html = (
        "<html><head><meta charset='UTF-8'><title>ChatGPT Data Export</title></head><body>"
        f"<div id='root'></div><script>var jsonData = {data.decode()};</script></body></html>"
    )
    return {
        "chat.html": html.encode(),
        "conversations.json": data,
        "message_feedback.json": b"[]",
        "shared_conversations.json": b"[]",
        "user.json": json.dumps(user).encode(),
        IMAGE_NAME: IMAGE_BYTES,
    }


def chatgpt_chain(ident: str, texts: list[str], start: float, step: float = 1) -> dict[str, Any]:
    """A ChatGPT conversation of one branch: ``texts`` asked and answered in turn, ``step`` seconds apart. Not
    one of the samples: the tests' and the benchmarks' conversations of any length."""
    mapping: dict[str, Any] = {}
    parent = None
    for i, text in enumerate(texts):
        nid = f"{ident}-{i}"
        mapping[nid] = {
            "id": nid,
            "parent": parent,
            "children": [],
            "message": {
                "id": nid,
                "author": {"role": "user" if i % 2 == 0 else "assistant"},
                "create_time": start + step * i,
                "content": {"content_type": "text", "parts": [text]},
                "metadata": {},
            },
        }
        parent = nid
    return {
        "id": ident,
        "title": f"chat {ident}",
        "create_time": start,
        "mapping": mapping,
        "current_node": parent,
    }


def write_zip(path: Path, files: dict[str, bytes]) -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in files.items():
            info = zipfile.ZipInfo(name, date_time=ZIP_DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            zf.writestr(info, data)
    path.write_bytes(buffer.getvalue())


# --------------------------------------------------------------------------------------------------
# Claude
# --------------------------------------------------------------------------------------------------

MAYA_UUID = _id("claude", "maya")
LEASE = (
    "WOHNRAUMMIETVERTRAG\n\n"
    "zwischen Hausverwaltung Kastanienhof GmbH (Vermieterin) und Maya Lindqvist (Mieterin)\n"
    "§ 1 Mietsache: Wohnung im 4. OG links, Schliemannstraße 21, 10437 Berlin, 2 Zimmer, Balkon.\n"
    "§ 3 Mietbeginn: 15.05.2026. Die Schlüsselübergabe erfolgt am Tag des Mietbeginns.\n"
    "§ 4 Miete: Indexmiete, Nettokaltmiete 890,00 EUR zuzüglich Betriebskostenvorauszahlung.\n"
    "§ 6 Kaution: drei Nettokaltmieten (2.670,00 EUR), zahlbar in drei gleichen monatlichen Raten, "
    "die erste Rate zu Beginn des Mietverhältnisses.\n"
    "§ 9 Kleinreparaturen bis 100,00 EUR im Einzelfall trägt die Mieterin.\n"
)


def _claude_message(
    conv: str,
    name: str,
    sender: str,
    at: str,
    blocks: list[dict[str, Any]] | None,
    *,
    text: str = "",
    attachments: list[dict[str, Any]] | None = None,
    parent: str | None = None,
) -> dict[str, Any]:
    created = _iso(at, conv, name)
    message: dict[str, Any] = {
        "uuid": _id("claude", conv, name),
        "text": text or "\n\n".join(b["text"] for b in blocks or [] if b["type"] == "text"),
    }
    if blocks is not None:
        message["content"] = [
            {"start_timestamp": created, "stop_timestamp": created, **b, "citations": []}
            if b["type"] == "text"
            else {"start_timestamp": created, "stop_timestamp": created, **b}
            for b in blocks
        ]
    message |= {
        "sender": sender,
        "created_at": created,
        "updated_at": created,
        "attachments": attachments or [],
        "files": [],
    }
    if parent is not None:
        message["parent_message_uuid"] = parent
    return message


def _claude_conversation(
    key: str, name: str, created: str, updated: str, messages: list[dict[str, Any] | None]
) -> dict[str, Any]:
    return {
        "uuid": _id("claude", key),
        "name": name,
        "summary": "",
        "created_at": _iso(created, key, "created"),
        "updated_at": _iso(updated, key, "updated"),
        "account": {"uuid": MAYA_UUID},
        "chat_messages": messages,
    }


def _moving() -> dict[str, Any]:
    k = "moving"
    ask = _claude_message(
        k,
        "ask",
        "human",
        "2026-05-03 19:55:10",
        [
            {
                "type": "text",
                "text": "Here's my new lease. I move from Weserstraße 48 to Schliemannstraße 21 on Saturday "
                "30 May. Can you make me a moving checklist, and tell me what the lease says about the "
                "deposit?",
            }
        ],
        attachments=[
            {
                "file_name": "Mietvertrag_Schliemannstrasse21.pdf",
                "file_size": 48213,
                "file_type": "pdf",
                "extracted_content": LEASE,
            }
        ],
    )
    reply = _claude_message(
        k,
        "reply",
        "assistant",
        "2026-05-03 19:55:41",
        [
            {
                "type": "thinking",
                "thinking": "She moves on 30 May; keys are on 15 May per § 3. Deposit is § 6: three net "
                "cold rents, 2,670 EUR, in three instalments. Checklist: van, helpers, Anmeldung.",
                "summaries": [{"summary": "Reading the lease for deposit terms."}],
                "cut_off": False,
            },
            {
                "type": "text",
                "text": "**Deposit (§ 6):** three months' net cold rent, 2,670 EUR, payable in three equal "
                "monthly instalments, the first when the tenancy starts (15 May, which is also when you "
                "get the keys).\n\n**Checklist for 30 May**\n- Two weeks before: confirm the van and the "
                "helpers, collect boxes, book a parking permit for the van on both streets.\n- One week "
                "before: forward your mail, tell the electricity provider your meter reading date.\n- On "
                "the day: meter readings in both flats, photos of the old flat.\n- After: register at the "
                "Bürgeramt (Anmeldung) within two weeks, and arrange the handover of the old flat.",
            },
        ],
        parent=ask["uuid"],
    )
    handover = _claude_message(
        k,
        "handover",
        "human",
        "2026-05-03 20:02:37",
        [
            {
                "type": "text",
                "text": "The handover of the old flat is on 12 June with Herr Yilmaz. What should I check "
                "so I get my deposit back?",
            }
        ],
        parent=reply["uuid"],
    )
    advice = _claude_message(
        k,
        "advice",
        "assistant",
        "2026-05-03 20:03:02",
        [
            {
                "type": "text",
                "text": "For 12 June: fill and paint over holes from dowels, clean the flat, read the meters "
                "together, and have Herr Yilmaz sign a handover report (Übergabeprotokoll) listing every "
                "key you return. Take dated photos of each room. Landlords in Germany may keep part of the "
                "deposit for damage, so anything not in the report is hard to charge later.",
            }
        ],
        parent=handover["uuid"],
    )
    return _claude_conversation(
        k,
        "Moving checklist for 30 May",
        "2026-05-03 19:55:02",
        "2026-05-03 20:03:02",
        [ask, reply, handover, advice],
    )


def _charger() -> dict[str, Any]:
    k = "charger"
    ask = _claude_message(
        k,
        "ask",
        "human",
        "2026-07-13 17:20:48",
        [
            {
                "type": "text",
                "text": "I left my phone charger at the café Piriquita in Sintra this afternoon. How do I "
                "ask in Portuguese whether they found it? And where exactly is it?",
            }
        ],
    )
    reply = _claude_message(
        k,
        "reply",
        "assistant",
        "2026-07-13 17:21:05",
        [
            {"type": "tool_use", "name": "web_search", "input": {"query": "Piriquita Sintra address"}},
            {
                "type": "tool_result",
                "name": "web_search",
                "content": [
                    {
                        "type": "knowledge",
                        "title": "Piriquita – pastelaria in Sintra",
                        "url": "https://www.piriquita.pt/",
                        "text": "Rua das Padarias 1, 2710-603 Sintra. Travesseiros and queijadas since 1862.",
                    }
                ],
                "is_error": False,
            },
            {
                "type": "text",
                "text": "Piriquita is at Rua das Padarias 1, in the old town of Sintra. You could call or "
                'say:\n\n"Olá! Esta tarde deixei aqui um carregador de telemóvel branco. Por acaso '
                'encontraram-no?"\n\n(Hello! This afternoon I left a white phone charger here. Did you '
                "happen to find it?)",
            },
        ],
        parent=ask["uuid"],
    )
    again = _claude_message(
        k,
        "again",
        "human",
        "2026-07-14 10:02:11",
        [{"type": "text", "text": "They don't have it. Where can I buy a USB-C charger in Lisbon?"}],
        parent=reply["uuid"],
    )
    shops = _claude_message(
        k,
        "shops",
        "assistant",
        "2026-07-14 10:02:30",
        [
            {
                "type": "text",
                "text": "Worten, the big electronics chain, has USB-C chargers; there is one in the "
                "Armazéns do Chiado, a short walk from Alfama. FNAC in the same building is an "
                "alternative.",
            }
        ],
        parent=again["uuid"],
    )
    # The app writes a null now and then where a message was removed.
    return _claude_conversation(
        k, "", "2026-07-13 17:20:40", "2026-07-14 10:02:30", [ask, reply, None, again, shops]
    )


def _farewell() -> dict[str, Any]:
    k = "farewell"
    # The older shape: a message is its text, without content blocks.
    ask = _claude_message(
        k,
        "ask",
        "human",
        "2026-06-24 21:40:15",
        None,
        text="Help me write a card for my friend Jonas. He's moving to Hamburg for his new job as a data "
        "engineer at Wellenwerk, farewell drinks are at Prater Garten on Friday.",
    )
    card = _claude_message(
        k,
        "card",
        "assistant",
        "2026-06-24 21:40:33",
        None,
        text="Dear Jonas,\n\nBerlin is losing its best Späti philosopher. Wellenwerk has no idea how lucky "
        "they are: may your forecasts be accurate and your wind always offshore. Ottensen is only two hours "
        "away, so the guest sofa had better be ready.\n\nSee you at Prater Garten, and then in Hamburg!\n"
        "Maya",
    )
    return _claude_conversation(
        k, "Farewell card for Jonas", "2026-06-24 21:40:10", "2026-06-24 21:40:33", [ask, card]
    )


def claude_files() -> dict[str, bytes]:
    conversations = [_moving(), _farewell(), _charger()]
    users = [
        {
            "uuid": MAYA_UUID,
            "full_name": "Maya Lindqvist",
            "email_address": "maya.lindqvist@example.com",
            "verified_phone_number": None,
        }
    ]
    projects = [
        {
            "uuid": _id("claude", "project", "flat"),
            "name": "New flat",
            "description": "Everything about the move to Schliemannstraße",
            "is_private": True,
            "is_starter_project": False,
            "prompt_template": "",
            "created_at": _iso("2026-05-03 19:50:00", "project"),
            "updated_at": _iso("2026-05-03 19:50:00", "project"),
            "creator": {"uuid": MAYA_UUID, "full_name": "Maya Lindqvist"},
            "docs": [],
        }
    ]
    memories = [
        {
            "conversations_memory": "Maya lives in Berlin (Prenzlauer Berg since 30 May 2026) and works as a "
            "data analyst.",
            "project_memories": {},
            "account_uuid": MAYA_UUID,
        }
    ]

    def dumps(value: Any) -> bytes:
        return json.dumps(value, ensure_ascii=False).encode()

    return {
        "conversations.json": dumps(conversations),
        "memories.json": dumps(memories),
        "projects.json": dumps(projects),
        "users.json": dumps(users),
    }


def main(out: Path) -> None:
    write_zip(out / CHATGPT_ZIP, chatgpt_files())
    folder = out / CLAUDE_DIR
    folder.mkdir(parents=True, exist_ok=True)
    for name, data in claude_files().items():
        (folder / name).write_bytes(data)


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE)
