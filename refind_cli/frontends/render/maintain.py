"""Output of `refind forget` and `refind doctor`."""

from __future__ import annotations

from datetime import tzinfo

from rich.console import Console

from refind_cli.frontends.render import iso, short_time, visible
from refind_cli.reports import ForgetPlan, Health


def plan_json(plan: ForgetPlan, tz: tzinfo | None, *, forgotten: bool) -> dict:
    emptied = {c.seq for c in plan.emptied}
    return {
        "messages": len(plan.message_seqs),
        "sessions": plan.sessions,
        "chats": [
            {"id": c.seq, "name": c.name, "source": c.source, "emptied": c.seq in emptied} for c in plan.chats
        ],
        "first": iso(plan.first, tz),
        "last": iso(plan.last, tz),
        "forgotten": forgotten,
    }


def print_plan(console: Console, plan: ForgetPlan, tz: tzinfo | None) -> None:
    if not plan.message_seqs:
        console.print("Nothing matches: no message would be forgotten.")
        return
    span = f"{short_time(plan.first, tz)} to {short_time(plan.last, tz)}" if plan.first and plan.last else ""
    console.print(f"{len(plan.message_seqs):,} messages in {plan.sessions:,} sessions, {span}:")
    emptied = {c.seq for c in plan.emptied}
    for c in plan.chats:
        note = " (the whole chat)" if c.seq in emptied else ""
        console.print(f"  {visible(c.name)} [{c.source}]{note}", markup=False)


def health_json(health: Health) -> dict:
    return {
        "ok": health.ok,
        "integrity": list(health.integrity),
        "archive_turns": health.archive_turns,
        "index_docs": health.index_docs,
        "queued_sessions": health.queued_sessions,
        "index_agrees": health.index_agrees,
    }


def print_health(console: Console, health: Health) -> None:
    console.print(
        f"archive integrity: {'ok' if not health.integrity else visible('; '.join(health.integrity))}",
        markup=False,
    )
    if health.archive_turns is None or health.queued_sessions is None:
        console.print(
            f"index: {health.index_docs:,} turns indexed; the archive is damaged, so it was neither counted nor"
            " used to rebuild the index. Import your exports again into a new home (--home DIR)."
        )
        return
    console.print(
        f"index: {health.index_docs:,} turns indexed, {health.archive_turns:,} in the archive, "
        f"{health.queued_sessions:,} sessions waiting: {'in agreement' if health.index_agrees else 'out of step'}"
    )
