from __future__ import annotations

import math
import random
from collections import Counter, defaultdict
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from fake_index import MemoryIndex, stored_length
from hypothesis import given, settings
from hypothesis import strategies as st

from refind_cli.errors import RefindError
from refind_cli.index import TurnIndex
from refind_cli.index.tantivy_backend import TantivyIndex as Index
from refind_cli.ingest import import_chat
from refind_cli.method.search import search, speakers_named
from refind_cli.records import Chat, Message, Turn
from refind_cli.request import SearchRequest
from refind_cli.results import SearchResult
from refind_cli.storage.archive import Archive
from refind_cli.text.analysis import analyze
from refind_cli.text.snippet import highlight_spans

T0 = datetime(2026, 1, 1, 9, 0, tzinfo=UTC)


def build(home: Path, chats: dict[Chat, list[Message]]) -> tuple[Archive, Index]:
    arch = Archive.open(home)
    for chat, messages in chats.items():
        import_chat(arch, chat, messages)
    idx = Index.open(home)
    idx.sync(arch)
    return arch, idx


def session(start: datetime, lines: list[str], speakers: tuple[str, str] = ("Alice", "Bob")) -> list[Message]:
    """One session: alternating speakers one minute apart, so every message is its own turn."""
    return [Message(start + timedelta(minutes=i), speakers[i % 2], text) for i, text in enumerate(lines)]


@pytest.fixture(params=["tantivy", "memory"])
def small(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[tuple[Archive, TurnIndex]]:
    """Three sessions in one chat, one in another. Session X has the single best 'dentist' turn; Y and Z
    have many weaker ones, so fusion must prefer them. The method runs on tantivy and on the fake engine."""
    x = session(T0, ["dentist dentist appointment", "ok", "bye"])
    y = session(
        T0 + timedelta(days=10), ["my dentist", "which dentist", "the dentist downtown", "fine", "ok"]
    )
    z = session(T0 + timedelta(days=20), ["dentist again", "another dentist", "lunch", "soup"])
    other = session(T0 + timedelta(days=30), ["paris trip", "dentist in paris"], ("Carol", "Dan"))
    arch, idx = build(
        tmp_path / "home",
        {Chat("test", "c1", "Alice"): x + y + z, Chat("test", "c2", "Carol"): other},
    )
    if request.param == "memory":
        memory = MemoryIndex()
        memory.sync(arch)
        yield arch, memory
    else:
        yield arch, idx
    arch.close()


def test_session_fusion_reorders(small: tuple[Archive, TurnIndex]) -> None:
    arch, idx = small
    flat = search(arch, idx, SearchRequest("dentist", k=1, session_rank=False))
    fused = search(arch, idx, SearchRequest("dentist", k=1, session_rank=True))
    assert flat.hits[0].turn.text == "dentist dentist appointment"
    assert fused.hits[0].turn.text != "dentist dentist appointment"
    assert (
        fused.hits[0].turn.session_id
        == search(arch, idx, SearchRequest("dentist downtown", k=1, session_rank=True))
        .hits[0]
        .turn.session_id
    )
    assert flat.total == fused.total == 7


def test_rrf_formula_and_order(small: tuple[Archive, TurnIndex]) -> None:
    arch, idx = small
    res = search(arch, idx, SearchRequest("dentist paris", k=100, session_rank=True))
    assert len(res.hits) == res.total
    bm25 = [h.bm25 for h in res.hits]
    r1 = {h.turn.id: 1 + sum(b > h.bm25 for b in bm25) for h in res.hits}
    sums: dict[str, float] = defaultdict(float)
    for h in res.hits:
        sums[h.turn.session_id] += h.bm25
    r2 = {sid: 1 + sum(v > s for v in sums.values()) for sid, s in sums.items()}
    for h in res.hits:
        assert h.score == pytest.approx(
            1 / (60 + r1[h.turn.id]) + 1 / (60 + r2[h.turn.session_id]), rel=1e-12
        )
    assert [h.score for h in res.hits] == sorted((h.score for h in res.hits), reverse=True)
    assert [h.rank for h in res.hits] == list(range(1, len(res.hits) + 1))


def _random_corpus(rng: random.Random) -> list[list[str]]:
    vocab = [f"w{i}" for i in range(40)]
    weights = [1 / (i + 1) for i in range(40)]
    sessions = []
    for _ in range(12):
        sessions.append(
            [" ".join(rng.choices(vocab, weights, k=rng.randint(1, 30))) for _ in range(rng.randint(1, 8))]
        )
    return sessions


def _bm25(docs: dict[str, list[str]], query: list[str]) -> dict[str, float]:
    """Textbook BM25 with Lucene idf, k1=1.2, b=0.75 (tantivy's is exact for documents of <= 40 terms)."""
    n = len(docs)
    avgdl = sum(len(d) for d in docs.values()) / n
    df = Counter(t for d in docs.values() for t in set(d))
    out = {}
    for tid, d in docs.items():
        tf = Counter(d)
        s = 0.0
        for t in query:
            if tf[t]:
                idf = math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5))
                s += idf * tf[t] * 2.2 / (tf[t] + 1.2 * (0.25 + 0.75 * len(d) / avgdl))
        if s:
            out[tid] = s
    return out


@pytest.mark.parametrize("seed", range(5))
def test_scores_and_session_sums_match_brute_force(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    corpus = _random_corpus(rng)
    messages = []
    for i, lines in enumerate(corpus):
        messages += session(T0 + timedelta(days=i), lines, ("A", "B"))
    arch, idx = build(tmp_path / "home", {Chat("test", "c", "C"): messages})
    turns = list(arch.iter_turns())
    docs = {t.id: analyze(idx.indexed_text(t.speaker, t.text)) for t in turns}
    by_id: dict[str, Turn] = {t.id: t for t in turns}
    for _ in range(10):
        query = " ".join(rng.sample([f"w{i}" for i in range(40)], rng.randint(1, 4)))
        expected = _bm25(docs, analyze(query))
        res = search(arch, idx, SearchRequest(query, k=1000, window=0))
        assert res.total == len(expected) == len(res.hits)
        for h in res.hits:
            assert h.bm25 == pytest.approx(expected[h.turn.id], rel=1e-5)
        want_sums: dict[str, float] = defaultdict(float)
        for tid, s in expected.items():
            want_sums[by_id[tid].session_id] += s
        got_sums: dict[str, float] = defaultdict(float)
        for h in res.hits:
            got_sums[h.turn.session_id] += h.bm25
        assert got_sums == pytest.approx(dict(want_sums), rel=1e-5)
        # With k=1 the winner is the best fused turn over all matches, not over a top slice.
        top = search(arch, idx, SearchRequest(query, k=1, window=0))
        assert top.hits[0].turn.id == res.hits[0].turn.id
    arch.close()


def test_window_clipped_at_both_session_ends(tmp_path: Path) -> None:
    lines = ["alpha", "one", "two", "middle", "three", "four", "omega"]
    arch, idx = build(
        tmp_path / "home",
        {Chat("test", "c", "C"): session(T0, lines) + session(T0 + timedelta(days=1), ["before", "next"])},
    )

    def window(q: str, w: int = 2) -> list[tuple[str, bool]]:
        return [
            (t.turn.text, t.hit) for t in search(arch, idx, SearchRequest(q, k=1, window=w)).hits[0].window
        ]

    assert window("alpha") == [("alpha", True), ("one", False), ("two", False)]
    assert window("omega") == [("three", False), ("four", False), ("omega", True)]
    assert window("middle") == [
        ("one", False),
        ("two", False),
        ("middle", True),
        ("three", False),
        ("four", False),
    ]
    assert window("middle", 0) == [("middle", True)]
    # The next session is never pulled into a window.
    assert window("omega", 10) == [(t, t == "omega") for t in lines]
    arch.close()


def test_filters_restrict_without_changing_scores(small: tuple[Archive, TurnIndex]) -> None:
    arch, idx = small
    everything = {h.turn.id: h.bm25 for h in search(arch, idx, SearchRequest("dentist", k=100)).hits}
    since, until = T0 + timedelta(days=5), T0 + timedelta(days=25)
    window = search(arch, idx, SearchRequest("dentist", k=100, since=since, until=until))
    assert window.total == 5
    assert all(since <= h.turn.start <= until for h in window.hits)
    assert {h.turn.id: h.bm25 for h in window.hits} == {
        i: everything[i] for i in (h.turn.id for h in window.hits)
    }
    carol = arch.match_chats("Carol")
    in_chat = search(arch, idx, SearchRequest("dentist", k=100, chats=tuple(carol)))
    assert [h.chat.name for h in in_chat.hits] == ["Carol"]
    assert in_chat.hits[0].bm25 == everything[in_chat.hits[0].turn.id]
    assert search(arch, idx, SearchRequest("dentist", chats=())).total == 0


def test_date_bounds_are_inclusive(small: tuple[Archive, TurnIndex]) -> None:
    arch, idx = small
    turn = search(arch, idx, SearchRequest("appointment")).hits[0].turn
    at = turn.start
    assert search(arch, idx, SearchRequest("appointment", since=at, until=at)).total == 1
    assert search(arch, idx, SearchRequest("appointment", since=at + timedelta(seconds=1))).total == 0
    assert search(arch, idx, SearchRequest("appointment", until=at - timedelta(seconds=1))).total == 0


def test_excluded_sessions_never_return(small: tuple[Archive, TurnIndex]) -> None:
    arch, idx = small
    before = search(arch, idx, SearchRequest("dentist", k=100))
    seen = {before.hits[0].turn.session_id, before.hits[1].turn.session_id}
    after = search(
        arch, idx, SearchRequest("dentist", k=100, exclude_sessions=tuple(seen | {"no-such-session"}))
    )
    assert not seen & {h.turn.session_id for h in after.hits}
    gone = sum(1 for h in before.hits if h.turn.session_id in seen)
    assert after.total == before.total - gone
    flat_before = {h.turn.id: h.bm25 for h in before.hits}
    assert all(flat_before[h.turn.id] == h.bm25 for h in after.hits)


@pytest.mark.parametrize("query", ['"', "*", "", "   ", "the and of", "( ) : -", "AND OR NOT"])
def test_queries_without_terms_return_nothing(small: tuple[Archive, TurnIndex], query: str) -> None:
    arch, idx = small
    res = search(arch, idx, SearchRequest(query))
    assert res.hits == () and res.total == 0 and res.query == query


def test_query_syntax_is_ordinary_text(small: tuple[Archive, TurnIndex]) -> None:
    arch, idx = small
    assert search(arch, idx, SearchRequest("what's C++: (paris")).hits[0].turn.text in {
        "paris trip",
        "dentist in paris",
    }
    # Query syntax counts only at the start of a word: these are plain words.
    assert search(arch, idx, SearchRequest("--paris")).total == 2
    assert (
        search(arch, idx, SearchRequest("dentist-paris*x")).total
        == search(arch, idx, SearchRequest("dentist paris x")).total
    )
    assert search(arch, idx, SearchRequest("text:paris")).total == 2
    # Repeating a word does not weigh it twice.
    assert [h.bm25 for h in search(arch, idx, SearchRequest("paris paris PARIS")).hits] == [
        h.bm25 for h in search(arch, idx, SearchRequest("paris")).hits
    ]


def test_a_phrase_needs_its_words_in_a_row(small: tuple[Archive, TurnIndex]) -> None:
    arch, idx = small
    # "in" is a stop word: the analysed turn is "dentist paris", so the phrase holds.
    assert [h.turn.text for h in search(arch, idx, SearchRequest('"dentist paris"')).hits] == [
        "dentist in paris"
    ]
    assert search(arch, idx, SearchRequest('"paris dentist"')).total == 0
    assert [h.turn.text for h in search(arch, idx, SearchRequest('ok "dentist downtown"')).hits] == [
        "the dentist downtown"
    ]
    # A phrase restricts and never rescores: its turn scores as the plain words do.
    plain = {
        h.turn.id: h.bm25
        for h in search(arch, idx, SearchRequest("dentist downtown", k=50, session_rank=False)).hits
    }
    (hit,) = search(arch, idx, SearchRequest('"dentist downtown"', session_rank=False)).hits
    assert hit.bm25 == plain[hit.turn.id]
    # An unclosed quote is plain words.
    assert (
        search(arch, idx, SearchRequest('"paris dentist')).total
        == search(arch, idx, SearchRequest("paris dentist")).total
    )


def test_excluded_words_and_phrases(small: tuple[Archive, TurnIndex]) -> None:
    arch, idx = small
    every = search(arch, idx, SearchRequest("dentist", k=50))
    texts = {h.turn.text for h in search(arch, idx, SearchRequest("dentist -paris -DOWNTOWN", k=50)).hits}
    assert texts == {h.turn.text for h in every.hits} - {"dentist in paris", "the dentist downtown"}
    assert search(arch, idx, SearchRequest("dentist -paris")).total == every.total - 1
    assert search(arch, idx, SearchRequest('dentist -"dentist downtown"')).total == every.total - 1
    assert search(arch, idx, SearchRequest('dentist -"downtown dentist"')).total == every.total
    # Only exclusions: nothing to look for.
    assert search(arch, idx, SearchRequest("-paris")).total == 0
    kept = {h.turn.id: h.bm25 for h in search(arch, idx, SearchRequest("dentist -paris", k=50)).hits}
    assert all(kept[h.turn.id] == h.bm25 for h in every.hits if h.turn.id in kept)


def test_prefixes(small: tuple[Archive, TurnIndex]) -> None:
    arch, idx = small
    assert {h.turn.text for h in search(arch, idx, SearchRequest("PAR*", k=50)).hits} == {
        "paris trip",
        "dentist in paris",
    }
    assert (
        search(arch, idx, SearchRequest("dent*")).total == search(arch, idx, SearchRequest("dentist")).total
    )
    assert search(arch, idx, SearchRequest("appointment*")).hits[0].turn.text == "dentist dentist appointment"
    assert search(arch, idx, SearchRequest("zzz*")).total == 0


def test_matched_terms_reported(small: tuple[Archive, TurnIndex]) -> None:
    arch, idx = small
    hit = search(arch, idx, SearchRequest("dentists in Paris", k=1, session_rank=False)).hits[0]
    assert hit.turn.text == "dentist in paris"
    assert hit.terms == ("dentist", "pari")


def test_ties_are_deterministic_newest_first(tmp_path: Path) -> None:
    arch, idx = build(
        tmp_path / "home",
        {
            Chat("test", "c", "C"): session(T0, ["same words here"])
            + session(T0 + timedelta(days=3), ["same words here"])
        },
    )
    for fused in (True, False):
        res = search(arch, idx, SearchRequest("same words", session_rank=fused))
        assert res.hits[0].score == res.hits[1].score
        assert [h.turn.start for h in res.hits] == [T0 + timedelta(days=3), T0]
    arch.close()


def test_cjk_search(tmp_path: Path) -> None:
    arch, idx = build(
        tmp_path / "home",
        {Chat("test", "c", "C"): session(T0, ["東京タワーに行きました", "京都はきれい", "서울 여행"])},
    )
    assert [h.turn.text for h in search(arch, idx, SearchRequest("東京")).hits] == ["東京タワーに行きました"]
    assert [
        h.turn.text for h in search(arch, idx, SearchRequest("京")).hits
    ] == []  # a unigram query matches no bigram
    assert [h.turn.text for h in search(arch, idx, SearchRequest("서울")).hits] == ["서울 여행"]
    arch.close()


def test_bad_arguments_are_the_projects_error() -> None:
    # RefindError, the one-line error every front end shows as it is: no front end checks these first.
    with pytest.raises(RefindError, match=r"^-k: 0 is not at least 1$"):
        SearchRequest("dentist", k=0)
    with pytest.raises(RefindError, match=r"^--window: -1 is not at least 0$"):
        SearchRequest("dentist", window=-1)


def test_highlight_spans() -> None:
    text = "My DENTIST's name is Dr. Paris; dentists love Paris."
    spans = highlight_spans(text, ["dentist", "pari"])
    assert [text[s:e] for s, e in spans] == ["DENTIST", "Paris", "dentists", "Paris"]
    assert highlight_spans(text, []) == []
    cjk = "私は東京タワーへ"
    assert [cjk[s:e] for s, e in highlight_spans(cjk, ["東京", "京タ"])] == ["東京タ"]
    # Stop words are highlighted only if asked for, whatever list the index used.
    assert ["To the dentist"[s:e] for s, e in highlight_spans("To the dentist", ["the"])] == ["the"]


def test_speaker_names_are_searchable(small: tuple[Archive, TurnIndex]) -> None:
    arch, idx = small
    res = search(arch, idx, SearchRequest("Carol", k=10))
    assert res.total == 1 and res.hits[0].turn.speaker == "Carol"
    assert res.hits[0].terms == ("carol",)


def test_numpy_and_python_fusion_agree_to_the_bit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import refind_cli.method.search as search_module

    rng = random.Random(11)
    messages = []
    for i, lines in enumerate(_random_corpus(rng) * 3):
        messages += session(T0 + timedelta(days=i), lines, ("A", "B"))
    arch, idx = build(tmp_path / "home", {Chat("test", "c", "C"): messages})
    for query in ("w0 w3", "w1", "w5 w7 w11 w2", "w30"):
        got = {}
        for threshold in (0, 10**9):
            monkeypatch.setattr(search_module, "NUMPY_FROM", threshold)
            monkeypatch.setattr(search_module, "NUMPY_COLD_FROM", threshold)
            res = search(arch, idx, SearchRequest(query, k=7, window=0))
            got[threshold] = [(h.turn.id, h.score, h.bm25) for h in res.hits]
        assert got[0] == got[10**9] and got[0]
    arch.close()


@st.composite
def _matches(draw: st.DrawFn) -> tuple[list[float], list[int], int]:
    """Scores best first, with ties (few distinct levels) or hardly any; sessions few or many, the best
    turns often in a few sessions (as real matches are: then only those need ranking); a k."""
    n = draw(st.integers(1, 400))
    levels = draw(st.integers(1, 10_000))
    scores = draw(st.lists(st.integers(1, levels), min_size=n, max_size=n))
    sessions = draw(st.sampled_from([1, 5, 50, 500, 5000]))
    sess = draw(st.lists(st.integers(0, sessions), min_size=n, max_size=n))
    hot, few = draw(st.integers(0, n)), draw(st.integers(1, 4))
    sess[:hot] = [i % few for i in range(hot)]
    return sorted((x * 0.37 for x in scores), reverse=True), sess, draw(st.integers(1, min(n, 40)))


@settings(max_examples=300, deadline=None)
@given(_matches())
def test_numpy_fusion_ranks_only_what_can_reach_the_top_and_agrees_with_python(
    case: tuple[list[float], list[int], int],
) -> None:
    from refind_cli.method.search import _fuse_numpy, _fuse_python

    scores, sess, k = case
    assert _fuse_numpy(scores, sess, k) == _fuse_python(scores, sess, k)


def test_results_do_not_depend_on_the_first_pass_size(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The first, counting pass collects only FIRST_PASS hits; when more match, the rest are fetched.
    from refind_cli.index import tantivy_backend

    rng = random.Random(5)
    messages = []
    for i, lines in enumerate(_random_corpus(rng) * 3):
        messages += session(T0 + timedelta(days=i), lines, ("A", "B"))
    arch, idx = build(tmp_path / "home", {Chat("test", "c", "C"): messages})
    for query in ("w0 w3", "w1", "w5 w7 w11 w2"):
        for session_rank in (True, False):
            got = {}
            for first_pass in (1, 3, 10**6):
                monkeypatch.setattr(tantivy_backend, "FIRST_PASS", first_pass)
                res = search(arch, idx, SearchRequest(query, k=4, window=0, session_rank=session_rank))
                got[first_pass] = (res.total, [(h.turn.id, h.score) for h in res.hits])
            assert got[1] == got[3] == got[10**6] and got[1][0] > 3
    arch.close()


def test_a_plain_top_k_collects_k_and_one_yet_finds_what_every_match_finds(tmp_path: Path) -> None:
    # ``best`` collects the k best and one more, and more while the k-th best ties past them: here 40 equal
    # turns tie with the best, and three turns score in between.
    messages = session(T0, ["pear plum"] * 40 + ["pear"] * 3, ("A", "B"))
    for i, lines in enumerate(_random_corpus(random.Random(7))):
        messages += session(T0 + timedelta(days=i + 1), [line + " pear" for line in lines], ("A", "B"))
    arch, idx = build(tmp_path / "home", {Chat("test", "c", "C"): messages})
    every = Index.open(tmp_path / "home")
    every.best = every.matching  # type: ignore[method-assign]
    for query in ("pear", "plum pear", "w1 w2", "w0"):
        for k in (1, 2, 5, 39, 40, 41, 44, 1000):
            request = SearchRequest(query, k=k, window=0)
            got, want = search(arch, idx, request), search(arch, every, request)
            assert (got.total, _hits(got)) == (want.total, _hits(want)), (query, k)
    arch.close()


def _hits(result: SearchResult) -> list[tuple]:
    return [(h.rank, h.turn.id, h.terms, tuple((w.turn.id, w.hit) for w in h.window)) for h in result.hits]


def test_the_method_ranks_alike_on_tantivy_and_the_fake_engine(tmp_path: Path) -> None:
    """Same archive, same requests: the same turns in the same order, the same totals, and scores equal
    within float tolerance (tantivy's are float32). Turns of up to 120 terms exercise tantivy's rounded
    lengths; three chats, three months and exclusions exercise the filters."""
    rng = random.Random(3)
    vocab = [f"w{i}" for i in range(60)]
    weights = [1 / (i + 1) for i in range(60)]
    chats: dict[Chat, list[Message]] = {}
    for c in range(3):
        messages = []
        for day in range(0, 90, 3):
            lines = [
                " ".join(
                    rng.choices(vocab, weights, k=rng.choice([rng.randint(1, 30), rng.randint(41, 120)]))
                )
                for _ in range(rng.randint(1, 9))
            ]
            messages += session(T0 + timedelta(days=day + c, hours=c), lines, ("A", "B"))
        chats[Chat("test", f"c{c}", f"Chat {c}")] = messages
    arch, tv = build(tmp_path / "home", chats)
    memory = MemoryIndex()
    assert memory.sync(arch) == tv.num_docs == memory.num_docs
    lengths = [len(analyze(memory.indexed_text(t.speaker, t.text))) for t in arch.iter_turns()]
    assert any(stored_length(n) != n for n in lengths)
    sessions = [h.turn.session_id for h in search(arch, tv, SearchRequest("w0 w1 w2", k=1000)).hits]
    requests = []
    for i in range(40):
        query = " ".join(rng.sample(vocab, rng.randint(1, 4)))
        if i % 2:  # the query syntax: a phrase, an excluded word or phrase, a prefix (w1* is w1, w10-w19)
            a, b, c = rng.sample(vocab, 3)
            query += rng.choice([f' "{a} {b}"', f" -{c}", f' -"{a} {b}"', f" {c[:2]}*"])
        since = T0 + timedelta(days=rng.randint(0, 60))
        requests += [
            SearchRequest(query, k=rng.choice([1, 5, 50]), window=rng.randint(0, 2)),
            SearchRequest(query, k=10, session_rank=False),
            SearchRequest(query, k=10, since=since, until=since + timedelta(days=rng.randint(0, 30))),
            SearchRequest(query, k=10, since=since),
            SearchRequest(query, k=10, chats=tuple(rng.sample([1, 2, 3], rng.randint(1, 2)))),
            SearchRequest(query, k=10, exclude_sessions=tuple(rng.sample(sessions, 5))),
            SearchRequest(
                query, k=3, since=since, chats=(2,), exclude_sessions=tuple(sessions[:3]), session_rank=False
            ),
            SearchRequest(query, k=10, speakers=(rng.choice("AB"),), session_rank=rng.random() < 0.5),
            SearchRequest(query, k=rng.choice([1, 10]), sort="time", speakers=("a", "b")),
        ]
    matched = 0
    for request in requests:
        want, got = search(arch, tv, request), search(arch, memory, request)
        assert got.total == want.total, request
        assert _hits(got) == _hits(want), request
        assert [h.score for h in got.hits] == pytest.approx([h.score for h in want.hits], rel=1e-6)
        assert [h.bm25 for h in got.hits] == pytest.approx([h.bm25 for h in want.hits], rel=1e-5)
        matched += bool(want.hits)
    assert matched > len(requests) // 2
    arch.close()


def test_search_takes_a_request_and_no_loose_keywords(small: tuple[Archive, TurnIndex]) -> None:
    arch, idx = small
    since = T0 + timedelta(days=5)
    request = SearchRequest("dentist", k=2, window=0, since=since, chats=(1,), exclude_sessions=("x",))
    result = search(arch, idx, request)
    assert result.request is request and result.query == "dentist" and result.hits
    # A misspelt or loose keyword fails at once (and under mypy: tests/typed_calls.py), never ignored.
    with pytest.raises(TypeError):
        search(arch, idx, request, k=3)  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        SearchRequest("dentist", top_k=3)  # type: ignore[call-arg]


def test_from_keeps_the_turns_of_some_speakers(small: tuple[Archive, TurnIndex]) -> None:
    arch, idx = small
    everyone = search(arch, idx, SearchRequest("dentist", k=50))
    bob = search(arch, idx, SearchRequest("dentist", k=50, speakers=("bob",)))
    assert {h.turn.speaker for h in bob.hits} == {"Bob"} and 0 < bob.total < everyone.total
    assert bob.total == sum(1 for h in everyone.hits if h.turn.speaker == "Bob")
    # The filter never rescores; the start of one name is enough; several are one filter.
    bm25 = {
        h.turn.id: h.bm25 for h in search(arch, idx, SearchRequest("dentist", k=50, session_rank=False)).hits
    }
    plain_bob = search(arch, idx, SearchRequest("dentist", k=50, speakers=("Bo",), session_rank=False))
    assert all(bm25[h.turn.id] == h.bm25 for h in plain_bob.hits) and plain_bob.total == bob.total
    both = search(arch, idx, SearchRequest("dentist", k=50, speakers=("bob", "DAN")))
    assert {h.turn.speaker for h in both.hits} == {"Bob", "Dan"}


def test_from_names_speakers_by_the_start_of_any_name_part_or_fails() -> None:
    known = [("Alice", None, False), ("Alan", "U02", False), ("Bob", "U01", False), ("Bob", None, False)]
    assert speakers_named(known, ["u01", "alice", "Ala"]) == ("Bob", "Alice", "Alan")
    assert speakers_named(known, ["Al"]) == ("Alice", "Alan")
    for missing in ("Carol", "", "  ", "lice"):
        with pytest.raises(RefindError, match="no speaker"):
            speakers_named(known, [missing])


def test_sort_by_time_gives_the_newest_matches(small: tuple[Archive, TurnIndex]) -> None:
    arch, idx = small
    newest = search(arch, idx, SearchRequest("dentist", k=3, sort="time"))
    every = search(arch, idx, SearchRequest("dentist", k=50))
    want = sorted(every.hits, key=lambda h: h.turn.start, reverse=True)[:3]
    assert [h.turn.id for h in newest.hits] == [h.turn.id for h in want]
    assert [h.rank for h in newest.hits] == [1, 2, 3] and newest.total == every.total
    assert all(h.score == h.bm25 for h in newest.hits)
    with pytest.raises(RefindError, match="--sort: 'random' is not one of score, time"):
        SearchRequest("x", sort="random")


def test_a_search_runs_with_the_collector_paused(
    small: tuple[Archive, TurnIndex], monkeypatch: pytest.MonkeyPatch
) -> None:
    import gc

    archive, index = small
    during: list[bool] = []
    matching = index.matching

    def spy(*args: object, **kw: object) -> object:
        during.append(gc.isenabled())
        return matching(*args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(index, "matching", spy)
    assert search(archive, index, SearchRequest("dentist", session_rank=True)).hits
    assert during == [False] and gc.isenabled()
