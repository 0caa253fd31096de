"""Start-up, session 18: a cold read imports no ``typing`` (``refind_cli.typed`` gives its modules what they
use of it at run time), ``refind_cli.typed.NamedTuple`` makes the class typing's does, and the interpreter
that runs the tests starts as a user's install does (a plain path to the package, no editable finder)."""

from __future__ import annotations

import pickle
import subprocess
import sys
import typing
from pathlib import Path

import pytest
from cold_runs import cold_run
from hypothesis import given, settings
from hypothesis import strategies as st

from refind_cli import records, results
from refind_cli.typed import NamedTuple, cast

# One class body under each base: typing's NamedTuple and refind_cli.typed's.
_BODY = """
class {name}({base}):
    \"\"\"A record.\"\"\"

    name: str
    count: int = 0
    tags: tuple[str, ...] = ()

    @property
    def shown(self) -> str:
        return f"{{self.name}}:{{self.count}}"

    def bumped(self) -> {name}:
        return self._replace(count=self.count + 1)
"""


def _record(name: str, base: str) -> type:
    scope = {"typing": typing, "NamedTuple": NamedTuple, "__name__": __name__}
    exec(_BODY.format(name=name, base=base), scope)
    return scope[name]


_Typed, _Lean = _record("_Typed", "typing.NamedTuple"), _record("_Lean", "NamedTuple")


def test_a_lean_named_tuple_is_the_class_typing_makes():
    assert _Lean._fields == _Typed._fields == ("name", "count", "tags")
    assert _Lean._field_defaults == _Typed._field_defaults == {"count": 0, "tags": ()}
    assert _Lean.__doc__ == _Typed.__doc__ == "A record."
    assert (_Lean.__module__, _Lean.__qualname__) == (__name__, "_Lean")
    assert list(_Lean.__annotations__) == ["name", "count", "tags"]
    assert _Lean.__mro__[1:] == _Typed.__mro__[1:] == (tuple, object)
    with pytest.raises(TypeError):
        _Lean()
    with pytest.raises(AttributeError):
        _Lean("a").name = "b"


@settings(max_examples=30, deadline=None)
@given(name=st.text(max_size=8), count=st.integers(), tags=st.lists(st.text(max_size=3), max_size=3))
def test_a_lean_named_tuple_behaves_as_typings(name: str, count: int, tags: list[str]):
    lean, typed = _Lean(name, count, tuple(tags)), _Typed(name, count, tuple(tags))
    assert tuple(lean) == tuple(typed) and lean == typed and hash(lean) == hash(typed)
    assert repr(lean).removeprefix("_Lean") == repr(typed).removeprefix("_Typed")
    assert lean._asdict() == typed._asdict()
    assert lean.shown == typed.shown and tuple(lean.bumped()) == tuple(typed.bumped())
    assert pickle.loads(pickle.dumps(lean)) == lean and type(pickle.loads(pickle.dumps(lean))) is _Lean
    assert _Lean._make(tuple(typed)) == lean and _Lean(name) == (name, 0, ())


def test_the_records_are_lean_named_tuples():
    # A field's type stays readable (as written: a string under `from __future__ import annotations`).
    assert records.Turn._fields and "start" in records.Turn.__annotations__
    assert results.Hit.__mro__[1] is tuple
    assert cast(int, "kept") == "kept"


def _loaded(home: Path, *args: str) -> tuple[str, set[str], set[str]]:
    """stdout of ``refind ARGS`` run as installed, the modules it loaded, and those whose code ran an import
    of typing."""
    run = cold_run(home, args, ["typing"])
    return run.out, run.loaded, run.importers


@pytest.mark.parametrize(
    ("args", "shown"),
    [
        (("search", "dentist"), "dentist"),
        (("search", "zzzqqq"), ""),
        (("search", "dentist", "--json"), '"query": "dentist"'),
        (("search", "dentist", "--jsonl", "--sort", "time"), "dentist"),
        (("search", "dentist", "--timeline", "--tz", "Europe/Berlin"), "matching turns"),
        (("chats",), "Family"),
        (("chats", "--json"), '"name": "Family"'),
        (("stats", "--tz", "UTC"), "Who writes most"),
    ],
)
def test_a_cold_read_imports_no_typing(sample_home: Path, args: tuple[str, ...], shown: str):
    out, loaded, typing_by = _loaded(sample_home, *args)
    assert shown in out
    assert "refind_cli.typed" in loaded
    # Only a dependency may: stop-words does, for the chats in a language it holds a list for (German here).
    assert not {m for m in typing_by if m.startswith("refind_cli")}
    assert typing_by <= {"stop_words"}


def test_a_cold_search_of_english_chats_loads_no_typing(tmp_path: Path):
    chat = tmp_path / "WhatsApp Chat with Sam.txt"
    chat.write_text(
        "12/03/2024, 19:02 - Sam: dinner at eight?\n12/03/2024, 19:05 - Alex: yes, dinner at eight\n",
        encoding="utf-8",
    )
    home = tmp_path / "home"
    done = subprocess.run(
        [sys.executable, "-m", "refind_cli", "--home", str(home), "import", "--tz", "UTC", str(chat)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    for args, shown in (
        (("search", "dinner"), "dinner at eight"),
        (("search", "zzzqqq"), ""),
        (("chats",), "Sam"),
    ):
        out, loaded, _ = _loaded(home, *args)
        assert shown in out and "typing" not in loaded, args


def test_the_interpreter_starts_as_an_installed_one():
    # What the benchmarks measure is what a user's `pip install` runs: the package found on a plain path,
    # no editable install's finder in `site` (setuptools' loads pathlib, re, urllib.parse, ipaddress and
    # fnmatch at every start, `python -c pass` too). `make venv` installs it so (pyproject: package-dir).
    code = "import sys; print(sorted(m for m in sys.modules if 'editable' in m or m in ('pathlib', 're')))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout.split() == ["[]"], done.stdout
    found = subprocess.run(
        [sys.executable, "-c", "import refind_cli; print(refind_cli.__file__)"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd="/",
    )
    assert Path(found.stdout.strip()).parent == Path(__file__).parent.parent / "refind_cli"
