"""The remote-provider notice: chat text is about to leave this machine."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from refind_cli.agent.events import EventSink, RemoteNotice

if TYPE_CHECKING:
    from refind_cli.agent.llm import LLMClient


@dataclass
class Notifier:
    """Emits the remote-provider notice once per model, before that model's first call."""

    on_event: EventSink
    told: set[str] = field(default_factory=set)

    def before_call(self, client: LLMClient) -> None:
        provider = client.check()  # unknown model or missing key fail here, before any text is sent
        if client.model not in self.told:
            self.told.add(client.model)
            if not client.local:
                self.on_event(RemoteNotice(client.model, provider))
