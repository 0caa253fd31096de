"""`refind eval` on tiny hand-made LongMemEval and LoCoMo files (the real dev data is never a test input)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from scripted_llm import ScriptedLLM, text, tool
from typer.testing import CliRunner

import refind_cli.frontends.cli.ask  # noqa: F401  (registers the commands)
from refind_cli.agent.llm import LLMClient, ModelConfig
from refind_cli.errors import InputError
from refind_cli.frontends.cli import app
from refind_cli.method.benchmarks import load_questions
from refind_cli.method.evaluate import evaluate, judge_prompt


def lme_record(qid: str, answer_sessions: list[str]) -> dict:
    sessions = {
        "s_bike": [
            {"role": "user", "content": "I bought a gravel bike last week, a blue one."},
            {"role": "assistant", "content": "Nice, gravel bikes are versatile."},
        ],
        "s_soup": [
            {"role": "user", "content": "Give me a recipe for tomato soup."},
            {"role": "assistant", "content": "Simmer tomatoes, onion and garlic."},
        ],
        "s_road": [
            {"role": "user", "content": "My road bike needs new tires."},
            {"role": "assistant", "content": "Check the tire width first."},
        ],
    }
    return {
        "question_id": qid,
        "question_type": "multi-session",
        "question": "Which bikes do I own?",
        "answer": "A gravel bike and a road bike.",
        "question_date": "2023/06/21 (Wed) 02:24",
        "haystack_session_ids": list(sessions),
        "haystack_dates": ["2023/05/01 (Mon) 10:00", "2023/05/02 (Tue) 10:00", "2023/05/03 (Wed) 10:00"],
        "haystack_sessions": list(sessions.values()),
        "answer_session_ids": answer_sessions,
    }


LOCOMO = [
    {
        "sample_id": "conv-1",
        "conversation": {
            "speaker_a": "Ann",
            "speaker_b": "Ben",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [
                {"speaker": "Ann", "dia_id": "D1:1", "text": "I joined a pottery class on Monday!"},
                {"speaker": "Ben", "dia_id": "D1:2", "text": "Cool, what did you make?"},
                {"speaker": "Ann", "dia_id": "D1:3", "text": "A small bowl.", "blip_caption": "a clay bowl"},
            ],
            "session_2_date_time": "7:00 pm on 20 June, 2023",
            "session_2": [
                {"speaker": "Ben", "dia_id": "D2:1", "text": "My dog Rex learned to fetch."},
                {"speaker": "Ann", "dia_id": "D2:2", "text": "Rex is clever."},
            ],
        },
        "qa": [
            {
                "question": "What did Ann make in pottery class?",
                "answer": "a bowl",
                "evidence": ["D1:3"],
                "category": 4,
            },
            {
                "question": "What is the dog's name?",
                "answer": "Rex",
                "evidence": ["D2:1", "D9:99"],
                "category": 1,
            },
            {
                "question": "Did Ann climb Everest?",
                "evidence": ["D1:1"],
                "category": 5,
                "adversarial_answer": "yes",
            },
        ],
    }
]


def write_jsonl_gz(path: Path, records: list[dict]) -> Path:
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        for r in records:
            fh.write(json.dumps(r) + "\n")
    return path


def test_longmemeval_session_recall_offline(tmp_path: Path) -> None:
    path = write_jsonl_gz(
        tmp_path / "lme.jsonl.gz",
        [lme_record("q1", ["s_bike", "s_road"]), lme_record("q2", ["s_soup"]), lme_record("q3_abs", [])],
    )
    questions = load_questions(path)
    assert [q.qid for q in questions] == ["q1", "q2", "q3_abs"] and questions[2].abstention
    report = evaluate(questions, k=5)
    by_id = {r.qid: r for r in report.results}
    # "bikes" finds both bike sessions and not the soup one.
    assert by_id["q1"].metrics["search_all@5"] == 1.0 and by_id["q1"].metrics["notes_all"] == 1.0
    assert by_id["q2"].metrics["search_any@5"] == 0.0
    assert by_id["q3_abs"].metrics == {}
    overall = report.summary["overall"]
    assert overall["search_any@5_n"] == 2 and overall["search_all@5"] == 0.5
    assert by_id["q1"].evidence_tokens > 0 and by_id["q1"].correct is None
    assert load_questions(path, limit=1)[0].qid == "q1"


def test_locomo_evidence_recall_skips_bad_ids_and_adversarial(tmp_path: Path) -> None:
    path = tmp_path / "locomo.json"
    path.write_text(json.dumps(LOCOMO))
    questions = load_questions(path)
    assert [q.category for q in questions] == ["4", "1", "5"]
    assert questions[0].haystack is questions[1].haystack  # one archive per conversation
    report = evaluate(questions)
    pottery, dog, adversarial = report.results
    assert pottery.metrics | {"answer_evidence": 0.0} == {
        "search_recall": 1.0,
        "notes_recall": 1.0,
        "answer_evidence": 0.0,
        "top3_evidence": 1.0,  # the bowl, Ann's reply to "what did you make?", is among the first three
    }
    assert dog.metrics["search_recall"] == 1.0  # D9:99 does not exist and is skipped
    assert adversarial.metrics == {}
    assert set(report.summary["by_category"]) == {"1", "4", "5"}


@pytest.mark.parametrize(
    ("content", "where"),
    [("{not json", "line 1"), ('[{"foo": 1}]', "[0]"), ('[{"question_id": "x"}]', "[0]")],
)
def test_bad_files_raise_input_error(tmp_path: Path, content: str, where: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(InputError) as caught:
        load_questions(path)
    assert str(caught.value).startswith(f"{path}: {where}: ")


def test_judge_prompts_follow_the_question_type(tmp_path: Path) -> None:
    path = write_jsonl_gz(tmp_path / "lme.jsonl.gz", [lme_record("q1", ["s_bike"]), lme_record("q9_abs", [])])
    normal, abstention = load_questions(path)
    assert "Correct Answer: A gravel bike and a road bike." in judge_prompt(normal, "gravel")
    assert "unanswerable" in judge_prompt(abstention, "I don't know")


def test_eval_with_a_scripted_model_and_judge(tmp_path: Path) -> None:
    path = write_jsonl_gz(tmp_path / "lme.jsonl.gz", [lme_record("q1", ["s_bike", "s_road"])])
    script = [
        tool("search_chat", {"keywords": "bike"}),
        tool("take_note", {"indices": [1, 2]}),
        tool("finish_search"),
        text("A gravel bike [1] and a road bike [2]."),
        text("yes"),
    ]
    with ScriptedLLM(script) as server:
        config = ModelConfig("openai/scripted", api_base=server.api_base, api_key="sk-dummy-eval")
        report = evaluate(
            load_questions(path), config=config, client_factory=lambda c: LLMClient(c, retry_delays=(0.01,))
        )
        assert (
            "Model Response: A gravel bike [1] and a road bike [2]."
            in server.requests[-1]["messages"][0]["content"]
        )
    (result,) = report.results
    assert result.correct is True and result.llm_tokens == 480 and result.judge_tokens == 120
    assert report.summary["overall"]["accuracy"] == 1.0 and report.mode == "openai/scripted"


def test_eval_command_json_and_table(tmp_path: Path) -> None:
    path = tmp_path / "locomo.json"
    path.write_text(json.dumps(LOCOMO))
    result = CliRunner().invoke(app, ["eval", str(path), "--json", "--limit", "2"])
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["benchmark"] == "locomo" and data["mode"] == "offline" and len(data["questions"]) == 2
    assert data["token_estimate"] == "characters / 4"
    assert data["summary"]["overall"]["search_recall"] == 1.0
    table = CliRunner().invoke(app, ["eval", str(path)], env={"COLUMNS": "200"})
    assert table.exit_code == 0 and "search_recall" in table.stdout
    missing = CliRunner().invoke(app, ["eval", str(tmp_path / "nope.json"), "--json"])
    assert missing.exit_code == 2 and "cannot read" in json.loads(missing.stdout)["error"]


def test_a_truncated_or_binary_file_is_a_one_line_error(tmp_path: Path) -> None:
    import gzip

    whole = gzip.compress(json.dumps(LOCOMO).encode())
    cut = tmp_path / "cut.json.gz"
    cut.write_bytes(whole[: len(whole) // 2])
    binary = tmp_path / "binary.jsonl"
    binary.write_bytes(b"\xff\xfe\x00garbage\n")
    for path, says in ((cut, "cut short or damaged"), (binary, "not UTF-8")):
        result = CliRunner().invoke(app, ["eval", str(path), "--json"])
        assert result.exit_code == 2, result.output
        error = json.loads(result.stdout)["error"]
        assert error.startswith(str(path)) and says in error
        assert result.stderr.count("\n") == 1


def test_eval_budget_bounds_the_evidence_tokens_of_every_question(tmp_path: Path) -> None:
    path = tmp_path / "locomo.json"
    path.write_text(json.dumps(LOCOMO))
    tokens = {}
    for budget in ("40", "4000"):
        result = CliRunner().invoke(app, ["eval", str(path), "--json", "--budget", budget])
        assert result.exit_code == 0, result.stderr
        data = json.loads(result.stdout)
        assert data["budget"] == int(budget)
        tokens[budget] = [q["evidence_tokens"] for q in data["questions"]]
        assert all(0 < t <= int(budget) for t in tokens[budget])
        assert data["summary"]["overall"]["evidence_tokens"] == pytest.approx(
            sum(tokens[budget]) / len(tokens[budget]), abs=0.1
        )
    assert sum(tokens["40"]) < sum(tokens["4000"])
    table = CliRunner().invoke(app, ["eval", str(path), "--budget", "40"], env={"COLUMNS": "200"})
    # Into a pipe (as here) the table is TSV (issue 24); the budget is in the JSON above.
    assert "evidence_tokens" in table.stdout.splitlines()[0].split("\t")
    assert CliRunner().invoke(app, ["eval", str(path), "--budget", "0"]).exit_code == 2
