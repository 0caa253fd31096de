"""``refind`` run cold, as installed, in a process of its own, watched: the modules it loaded, which modules
ran an import of the watched ones (an import under ``TYPE_CHECKING`` never runs), and the regular expressions
it compiled (re's ``_compile``, which ``re.compile`` and ``re.sub`` of a pattern string both reach)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Collection
from pathlib import Path
from typing import NamedTuple


class ColdRun(NamedTuple):
    out: str
    loaded: set[str]
    importers: set[str]  # the modules whose code imported a watched module
    patterns: list[str]


def cold_run(home: Path, args: Collection[str], watched: Collection[str]) -> ColdRun:
    """stdout of ``refind --home HOME ARGS`` and what it loaded; ``watched``: module names, a package
    standing for its modules too."""
    code = (
        "import builtins, os, re, sys\n"
        "real, seen = re._compile, []\n"
        "def compiling(pattern, flags):\n"
        "    seen.append(ascii(pattern))\n"
        "    return real(pattern, flags)\n"
        "re._compile = compiling\n"
        "load, by = builtins.__import__, set()\n"
        f"watched = {sorted(watched)!r}\n"
        "def hooked(name, globals=None, locals=None, fromlist=(), level=0):\n"
        "    if name in watched or name.partition('.')[0] in watched:\n"
        "        by.add((globals or {}).get('__name__', '?'))\n"
        "    return load(name, globals, locals, fromlist, level)\n"
        "builtins.__import__ = hooked\n"
        f"sys.argv = ['refind', '--home', {str(home)!r}, *{list(args)!r}]\n"
        "from refind_cli.frontends.cli import main\n"
        "def end(code):\n"
        "    sys.stdout.write('\\nLOADED ' + ' '.join(sorted(sys.modules)))\n"
        "    sys.stdout.write('\\nBY ' + ' '.join(sorted(by)))\n"
        "    sys.stdout.write('\\nPATTERNS ' + '\\t'.join(seen) + '\\n')\n"
        "    sys.stdout.flush()\n"
        "    os._exit(0)\n"
        "main(end)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    out, _, tail = done.stdout.rpartition("\nLOADED ")
    loaded, _, tail = tail.partition("\nBY ")
    by, _, patterns = tail.partition("\nPATTERNS ")
    assert loaded, done.stderr
    return ColdRun(out, set(loaded.split()), set(by.split()), patterns.rstrip("\n").split("\t"))
