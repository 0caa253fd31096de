"""Output of `refind eval`: a progress bar while questions run, the table of figures, and the JSON report."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.text import Text

if TYPE_CHECKING:
    from refind_cli.method.evaluate import EvalReport

TOKEN_ESTIMATE = "characters / 4"


@contextlib.contextmanager
def eval_progress(console: Console, total: int) -> Iterator[Callable[[int, int], None]]:
    """A progress bar on stderr when it is a terminal (else rich would still print its last state into a
    log); yields the tick."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    if not console.is_terminal:
        yield lambda _done, _total: None
        return
    with Progress(
        TextColumn("questions"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(), console=console
    ) as progress:
        task = progress.add_task("eval", total=total)
        yield lambda done, _total: progress.update(task, completed=done)


def _fmt(value: Any) -> str:
    return f"{value:.3f}" if isinstance(value, float) else str(value)


def print_eval(report: EvalReport, console: Console) -> None:
    """The figures as a table on a terminal, as TSV into a pipe (as every table of refind)."""
    from rich.table import Table

    from refind_cli.frontends.render.rows import table_format, write_rows

    summary = report.summary
    overall = summary["overall"]
    metrics = [m for m in overall if not m.endswith("_n") and m != "questions"]
    rows = [("all", overall), *summary["by_category"].items()]
    fmt = table_format(csv_out=False, tsv_out=False)
    if fmt != "table":
        header = ["category", "questions", *metrics]
        write_rows(
            header,
            ([name, values["questions"], *(values.get(m, "") for m in metrics)] for name, values in rows),
            fmt,
        )
        return
    title = f"{report.benchmark} · {report.mode} · k={report.k} · budget={report.budget:,} evidence tokens"
    table = Table(title=title, title_justify="left")
    table.add_column("category")
    table.add_column("questions", justify="right")
    for m in metrics:
        table.add_column(m, justify="right")
    for name, values in rows:
        table.add_row(name, str(values["questions"]), *(_fmt(values.get(m, "")) for m in metrics))
    console.print(table)
    console.print(
        Text(
            f"evidence_tokens: tokens of notes stage 2 reads, estimated as {TOKEN_ESTIMATE}; "
            "search_*: one search of the question; notes_*: the agent's notes; answer_evidence, "
            "top3_evidence: the answer's first citation, one of its first three, is gold evidence; "
            "when_date: a when question's direct answer names the gold date.",
            style="dim",
        ),
        soft_wrap=True,
    )


def eval_json(report: EvalReport) -> dict[str, Any]:
    return {
        "file": report.file,
        "benchmark": report.benchmark,
        "mode": report.mode,
        "k": report.k,
        "budget": report.budget,
        "token_estimate": TOKEN_ESTIMATE,
        "summary": report.summary,
        "questions": [
            {
                "id": r.qid,
                "category": r.category,
                "abstention": r.abstention,
                "metrics": r.metrics,
                "evidence_tokens": r.evidence_tokens,
                "notes": r.notes,
                "searches": r.searches,
                "llm_tokens": r.llm_tokens,
                "judge_tokens": r.judge_tokens,
                "seconds": round(r.seconds, 3),
                "correct": r.correct,
                "answer": r.answer,
            }
            for r in report.results
        ],
    }
