"""Every shipped benchmark script runs, on a small input, and prints its figures: a script that no longer runs
(a renamed import, a figure for a category the input lacks) fails here, not when someone next measures.

The scripts start fresh processes of their own (each phase's memory is its own), so they run side by side,
a few at a time, from the first test that asks; each test then checks its script's run. Marked ``bench``:
``pytest -m 'not bench'`` leaves them out."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import pytest
from test_eval import LOCOMO, lme_record, write_jsonl_gz

BENCH = Path(__file__).resolve().parent.parent / "bench"
WHATSAPP = BENCH.parent / "sample_exports" / "WhatsApp Chat with Jonas Becker.txt"
pytestmark = pytest.mark.bench


def runs(data: Path, work: Path) -> dict[str, tuple[list[list[str]], str]]:
    """Each script's command lines (mcp_bench reads the archive search_bench builds, so they run in turn) and
    a line of its figures."""
    locomo, lme = data / "locomo.json", data / "lme.jsonl.gz"
    return {
        "import_bench": (
            [
                ["import_bench.py", "--messages", "300", "--workdir", f"{work}/imp"],
                ["import_bench.py", "--messages", "300", "--line", "--workdir", f"{work}/line"],
                [
                    "import_bench.py",
                    "--messages",
                    "300",
                    "--base",
                    str(BENCH.parent),
                    "--rounds",
                    "1",
                    "--workdir",
                    f"{work}/base",
                ],
            ],
            "msg/s",
        ),
        "reimport_bench": (
            [
                [
                    "reimport_bench.py",
                    "--messages",
                    "300",
                    "--added",
                    "50",
                    "--rounds",
                    "1",
                    "--workdir",
                    f"{work}/re",
                ]
            ],
            "resumed / re-read",
        ),
        "index_step_bench": (
            [
                [
                    "index_step_bench.py",
                    "--messages",
                    "300",
                    "--base",
                    str(BENCH.parent),
                    "--rounds",
                    "1",
                    "--workdir",
                    f"{work}/index_step",
                ]
            ],
            "read and analyse",
        ),
        "assistant_import_bench": (
            [["assistant_import_bench.py", "--messages", "300", "--workdir", f"{work}/assistant"]],
            "msg/s",
        ),
        "meta_bench": ([["meta_bench.py", "--messages", "300", "--workdir", f"{work}/meta"]], "msg/s"),
        "google_import_bench": (
            [["google_import_bench.py", "--messages", "300", "--workdir", f"{work}/google"]],
            "the messages per second",
        ),
        "format_memory_bench": (
            [
                [
                    "format_memory_bench.py",
                    "--messages",
                    "200",
                    "--workdir",
                    f"{work}/format_memory",
                    "--formats",
                    "imessage-html",
                    "signal",
                    "instagram",
                    "claude",
                    "grok",
                    "slack-one-folder",
                    "messenger-zip",
                ]
            ],
            "RSS / peer",
        ),
        "sms_bench": (
            [["sms_bench.py", "--messages", "300", "--rounds", "1", "--workdir", f"{work}/sms"]],
            "ratio WhatsApp/SMS",
        ),
        "search_bench and mcp_bench": (
            [
                ["search_bench.py", "--turns", "500", "--queries", "3", "--workdir", f"{work}/search"],
                [
                    "mcp_bench.py",
                    "--workdir",
                    f"{work}/search",
                    "--queries",
                    "3",
                    "--starts",
                    "1",
                    "--rounds",
                    "1",
                ],
            ],
            "search_chat over MCP, seen excluded",
        ),
        "retrieval_eval": (
            [["retrieval_eval.py", "--locomo", str(locomo), "--longmemeval", str(lme)]],
            "| + windows W=2 (default)",
        ),
        "recall_cv": (
            [
                ["recall_cv.py", "--locomo", str(locomo), "--longmemeval", str(lme), "--quick"],
                [
                    "recall_cv.py",
                    "--locomo",
                    str(locomo),
                    "--longmemeval",
                    str(lme),
                    "--time",
                    "--only",
                    "locomo",
                    "--profile",
                ],
            ],
            "knee of cross-validated recall",
        ),
        "assistant_sessions": (
            [["assistant_sessions.py", "--longmemeval", str(lme), "--chain", "2"]],
            "| silence",
        ),
        "language_bench": ([["language_bench.py"]], "per language (refind)"),
        "language_identifiers": ([["language_identifiers.py", "--only", "cld3"]], "cld3 (refind.language)"),
        "detect_equivalence": (
            [
                [
                    "detect_equivalence.py",
                    "--before",
                    str(BENCH.parent / "refind_cli/text/language.py"),
                    "--mixtures",
                    "20",
                ]
            ],
            "told otherwise: 0",
        ),
        "world_bench": (
            [["world_bench.py", "--variants", "none", "--languages", "de,uk"]],
            "compounds found",
        ),
        "time_words_bench": ([["time_words_bench.py"]], "languages with tables"),
        "stamp_probe": ([["stamp_probe.py", "--locales", "de,ko,ar_EG", "--show", "0"]], "files read right"),
        "ablation_probe": (
            [["ablation_probe.py", "--formats", "whatsapp,imessage"]],
            "variants keep the rule",
        ),
        "codepage_bench": ([["codepage_bench.py", "--show", "0"]], "sentence(s)"),
        "catalog_bench": (
            [
                ["catalog_bench.py", "--langs", "pl,ko", "--mixed"],
                ["catalog_bench.py", "--catalog", "system-tune", "--langs", "gd", "--any-word"],
            ],
            "all |",
        ),
        "cldr_dates_bench": (
            [
                ["cldr_dates_bench.py", "--half", "tune", "--langs", "pl,ja,eu"],
                ["cldr_dates_bench.py", "--ask", "--half", "tune", "--langs", "pl"],
            ],
            "all",
        ),
        "bigram_units_bench": ([["bigram_units_bench.py", "--scripts", "Thai"]], "Thai |"),
        "identified_dates_bench": (
            [["identified_dates_bench.py", "--set", "tune", "--langs", "yi,tt,pl"]],
            "all ",
        ),
        "analysis_cost_bench": (
            [["analysis_cost_bench.py", "--turns", "50", "--rounds", "1", "--langs", "de,he"]],
            "load after",
        ),
        "polyglot_bench": (
            [["polyglot_bench.py", "--scripts", "Grek,Yiii,Kore", "--emoji", "2", "--ask"]],
            "asked offline",
        ),
        "import_cpu": (
            [["import_cpu.py", "--base", str(BENCH.parent), "--rounds", "1", str(WHATSAPP)]],
            "medians",
        ),
        "hostile_two_figures": (
            [["hostile_two_figures.py", "--only", "minute", "--lines", "200"]],
            "show SESSION --json (after)",
        ),
        "startup_bench": (
            [
                [
                    "startup_bench.py",
                    "--messages",
                    "300",
                    "--rounds",
                    "1",
                    "--workdir",
                    f"{work}/startup",
                    "--left-log",
                    "--installed",
                    "--where",
                ]
            ],
            "refind search dinner -k 5, log left, first",
        ),
        "disk_bench": (
            [
                ["disk_bench.py", "--messages", "300", "--workdir", f"{work}/disk"],
                # This tree as the older one: its upgrade finds nothing to do, its searches run beside.
                [
                    "disk_bench.py",
                    "--messages",
                    "300",
                    "--workdir",
                    f"{work}/disk",
                    "--before",
                    str(BENCH.parent),
                    "--rounds",
                    "1",
                ],
            ],
            "each tree on its own home",
        ),
        "answer_eval": (
            [["answer_eval.py", "--locomo", str(locomo), "--longmemeval", str(lme)]],
            "LongMemEval · all: answer_evidence=",
        ),
        "answer_cv": (
            [["answer_cv.py", "--locomo", str(locomo), "--longmemeval", str(lme)]],
            "Each rule's part in the held-out figures",
        ),
        "ask_latency_bench": (
            [["ask_latency_bench.py", "--rounds", "1"]],
            "| ask --offline (this checkout) |",
        ),
        "answer_learned": (
            [["answer_learned.py", "--locomo", str(locomo), "--longmemeval", str(lme)]],
            "## lexical: LoCoMo categories 1-4, each conversation held out",
        ),
        "huge_import_figures": (
            [["huge_import_figures.py", "--base", str(BENCH.parent), "--mb", "1", "--rounds", "1"]],
            "1 MB, between",
        ),
        "huge_commands_figures": (
            [
                [
                    "huge_commands_figures.py",
                    *("--base", str(BENCH.parent), "--mb", "1", "--tg-mb", "1", "--after-mb", "1"),
                    *("--only", "WhatsApp, followed", "--only", "LINE, last"),
                ]
            ],
            "forget --matching abc",
        ),
        "split_bench": (
            [["split_bench.py", "--before", str(BENCH.parent), "--rounds", "1", "--data", str(lme)]],
            "first text (import and start)",
        ),
        "huge_insert_ways": ([["huge_insert_ways.py", "zeroblob", "--mb", "1"]], "zeroblob: peak +"),
        "hostile_figures": (
            [
                ["hostile_figures.py", "--huge-only", "--huge-mb", "1", "--burst", "200"],
                ["hostile_figures.py", "--fuzz-only", "--fuzz-summary", f"{data}/no-fuzz-run.json"],
            ],
            "search abc -k 1 --json",
        ),
    }


def run_all(commands: list[list[str]]) -> tuple[int, str]:
    out = []
    for command in commands:
        p = subprocess.run(
            [sys.executable, str(BENCH / command[0]), *command[1:]],
            capture_output=True,
            text=True,
            # A hang guard, not a figure: these scripts run side by side, and at load 30+ (helpers' runs)
            # the re-import bench's seventeen formats took over 600 s (alone at load 11: 109 s, 28 s of CPU).
            timeout=1800,
        )
        out.append(p.stdout + p.stderr)
        if p.returncode:
            return p.returncode, "".join(out)
    return 0, "".join(out)


@pytest.fixture(scope="module")
def started(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[str, tuple[Future[tuple[int, str]], str]]]:
    """The selected scripts, started side by side."""
    selected = {
        item.callspec.params["name"]
        for item in request.session.items
        if isinstance(item, pytest.Function) and hasattr(item, "callspec") and "name" in item.callspec.params
    }
    data = tmp_path_factory.mktemp("bench-data")
    (data / "locomo.json").write_text(json.dumps(LOCOMO))
    write_jsonl_gz(
        data / "lme.jsonl.gz", [lme_record("q1", ["s_bike", "s_road"]), lme_record("q2_abs", ["s_soup"])]
    )
    work = tmp_path_factory.mktemp("bench-work")
    with ThreadPoolExecutor(max_workers=3) as pool:
        yield {
            name: (pool.submit(run_all, commands), figure)
            for name, (commands, figure) in runs(data, work).items()
            if name in selected
        }


def test_every_script_is_run() -> None:
    scripts = {path.stem for path in BENCH.glob("*.py")}
    named = {
        part.removesuffix(".py")
        for commands, _ in runs(Path(), Path()).values()
        for c in commands
        for part in c[:1]
    }
    assert named == scripts


@pytest.mark.parametrize("name", list(runs(Path(), Path())))
def test_a_bench_script_prints_its_figures(
    started: dict[str, tuple[Future[tuple[int, str]], str]], name: str
) -> None:
    future, figure = started[name]
    code, output = future.result()
    assert code == 0, output[-3000:]
    assert figure in output, output[-3000:]
