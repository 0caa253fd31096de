"""Run every fuzz target for a bounded time and record what happened.

    python fuzz/run.py [--seconds 120] [--targets whatsapp,slack,telegram] [--out fuzz/out]

One target per registered importer (``refind_cli.importers``), each a run of ``fuzz_importer.py NAME``. Per
target: seeds are generated from ``sample_exports/`` into ``OUT/corpus/<target>`` (checked first:
each seed must import cleanly, or the harness itself is wrong), then libFuzzer runs until the time is
spent. A finding stops libFuzzer, so the run is restarted on the grown corpus with the time that is
left; every finding's input is kept under ``OUT/artifacts/``. ``OUT/summary.json`` holds executions,
seconds and findings per target, for ``bench/hostile_figures.py``. Exit code 1 if anything was found.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import shapes

from refind_cli import importers
from refind_cli.errors import InputError

HERE = Path(__file__).resolve().parent
# One input may take this long before libFuzzer calls it a hang; sample-sized inputs take milliseconds.
TIMEOUT_S = 10
RSS_LIMIT_MB = 2048
MAX_LEN = 64 << 10
# A bug found again and again would otherwise turn the whole budget into restarts.
MAX_FINDINGS = 20
_STATS = re.compile(r"^stat::(\w+):\s*(\d+)", re.M)
_PROGRESS = re.compile(r"^#(\d+)\s", re.M)
_ARTIFACT = re.compile(r"Test unit written to (\S+)")
# Atheris prints an uncaught Python exception on stdout, libFuzzer its own verdicts on stderr.
_PY_EXCEPTION = re.compile(r"=== Uncaught Python exception: ===\n([^\n]*)")
_LIBFUZZER = re.compile(r"ERROR: libFuzzer: ([^\n]*)")
_FRAME = re.compile(r'File "[^"]*/(refind_cli/[^"]+)", line (\d+)')


@dataclass
class Finding:
    kind: str  # the exception type and message, or libFuzzer's verdict ("timeout after 10 seconds", ...)
    where: str  # the innermost refind_cli frame of the traceback, "file:line"; "" if there is none
    artifact: str


@dataclass
class TargetResult:
    target: str
    seconds: float = 0.0
    executions: int = 0
    runs: int = 0
    findings: list[Finding] = field(default_factory=list)


def check_seeds(importer: importers.Importer, shape: shapes.Shape, seeds: list[bytes]) -> None:
    """Every seed must import without error: a seed that fails means the shape code is wrong, and the
    fuzzer would spend its time on the error path."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for index, seed in enumerate(seeds):
            try:
                shapes.drain(importer.read(shape.write(seed, folder), shapes.TZ), importer.name)
            except InputError as exc:
                raise SystemExit(
                    f"fuzz/run.py: seed {index} of {importer.name} does not import: {exc}"
                ) from None


def run_target(target: str, seconds: int, out: Path) -> TargetResult:
    corpus = out / "corpus" / target
    artifacts = out / "artifacts"
    corpus.mkdir(parents=True, exist_ok=True)
    artifacts.mkdir(parents=True, exist_ok=True)
    importer = importers.get(target)
    shape = shapes.shape(importer)
    seeds = shape.seeds()
    check_seeds(importer, shape, seeds)
    for index, seed in enumerate(seeds):
        (corpus / f"seed-{index:02d}").write_bytes(seed)
    result = TargetResult(target)
    log_path = out / f"{target}.log"
    deadline = time.monotonic() + seconds
    with log_path.open("w") as log:
        while (left := int(deadline - time.monotonic())) > 0 and len(result.findings) < MAX_FINDINGS:
            started = time.monotonic()
            proc = subprocess.run(
                [
                    sys.executable,
                    str(HERE / "fuzz_importer.py"),
                    target,
                    str(corpus),
                    f"-max_total_time={left}",
                    f"-timeout={TIMEOUT_S}",
                    f"-rss_limit_mb={RSS_LIMIT_MB}",
                    f"-max_len={MAX_LEN}",
                    f"-artifact_prefix={artifacts}/{target}-",
                    "-print_final_stats=1",
                ],
                cwd=HERE,
                capture_output=True,
                text=True,
                errors="replace",
                check=False,
            )
            result.seconds += time.monotonic() - started
            result.runs += 1
            log.write(f"### run {result.runs}, exit {proc.returncode}\n{proc.stderr}\n{proc.stdout}\n")
            result.executions += _executions(proc.stderr)
            artifact = _ARTIFACT.search(proc.stderr)
            if artifact:
                result.findings.append(_finding(proc.stdout + proc.stderr, artifact.group(1)))
            elif proc.returncode != 0:
                raise SystemExit(
                    f"fuzz/run.py: {target} exited {proc.returncode} without a finding; see {log_path}"
                )
    return result


def _executions(stderr: str) -> int:
    stats = dict(_STATS.findall(stderr))
    if "number_of_executed_units" in stats:
        return int(stats["number_of_executed_units"])
    # A crash can cut the final statistics short; the last progress line counts the executions.
    progress = _PROGRESS.findall(stderr)
    return int(progress[-1]) if progress else 0


def _finding(output: str, artifact: str) -> Finding:
    exception = _PY_EXCEPTION.search(output)
    verdict = _LIBFUZZER.search(output)
    kind = exception.group(1) if exception else verdict.group(1) if verdict else "unknown"
    frames = _FRAME.findall(output)
    return Finding(kind.strip(), ":".join(frames[-1]) if frames else "", artifact)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=int, default=120, help="fuzzing time per target")
    parser.add_argument(
        "--targets",
        default=",".join(importers.names()),
        help="comma-separated: " + ", ".join(importers.names()),
    )
    parser.add_argument("--out", type=Path, default=HERE / "out", help="corpus, artifacts, logs, summary")
    args = parser.parse_args()
    targets = [t for t in args.targets.split(",") if t]
    unknown = set(targets) - set(importers.names())
    if unknown:
        parser.error(f"unknown targets: {', '.join(sorted(unknown))}")
    out = args.out.resolve()
    results = []
    for target in targets:
        result = run_target(target, args.seconds, out)
        results.append(result)
        print(
            f"{target}: {result.executions:,} executions in {result.seconds:.0f} s "
            f"({result.runs} libFuzzer run(s)), {len(result.findings)} finding(s)"
        )
        for finding in result.findings:
            print(f"  {finding.kind} at {finding.where or '?'}\n    {finding.artifact}")
    summary = {"finished": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "targets": [asdict(r) for r in results]}
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    return 1 if any(r.findings for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
