"""What every command prints and how it ends, without typer, click or rich: the consoles (rich only for a
terminal), the one-line errors and warnings, JSON, and the exit codes of failures that are not the command
line's (a closed pipe, a full disk, Ctrl-C). Both entry points use it: the typer app (``common``) and the
quick path of the read commands (``quick``)."""

from __future__ import annotations

import contextlib
import errno
import os
import sys
from collections.abc import Callable, Iterator

from refind_cli.errors import RefindError

# Not typing's: a cold read imports no typing (refind_cli.typed).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, NoReturn, TextIO

    from rich.console import Console

    from refind_cli.facade import Home
    from refind_cli.frontends.render.styled import Out

COLOR_CHOICES = ("auto", "always", "never")
# The --color choice for this run, set by the root options before any command prints.
_color = "auto"


def set_color(color: str) -> None:
    global _color
    _color = color


class Exit(Exception):
    """Ends a command with this exit status (both entry points turn it into the process's)."""

    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code


def _colors() -> dict[str, Any]:
    """rich Console settings for --color: auto leaves rich to decide (a terminal, and NO_COLOR unset)."""
    if _color == "always":
        return {"force_terminal": True, "no_color": False}
    if _color == "never":
        return {"no_color": True, "color_system": None}
    return {}


def for_a_terminal(stream: TextIO) -> bool:
    """Whether rich would draw for a terminal on ``stream`` (styles, wrapping): --color always, else rich's
    own rules (TTY_COMPATIBLE, FORCE_COLOR, then the stream), read here so that piped output needs no rich."""
    if _color == "always":
        return True
    tty = os.environ.get("TTY_COMPATIBLE", "")
    if tty in ("0", "1"):
        return tty == "1"
    force = os.environ.get("FORCE_COLOR")
    if force is not None:
        return force != ""
    try:
        return stream.isatty()
    except ValueError:  # closed
        return False


def stdout_console() -> Console:
    from rich.console import Console

    # Into a pipe nothing is wrapped to a made-up width: one line per line, continuation lines indented,
    # so grep and cut see whole messages.
    piped = not sys.stdout.isatty()
    console = Console(highlight=False, soft_wrap=piped, **_colors())
    # rich ends the process with status 1 when the reader goes away; `guarded` makes that a quiet 0.
    console.on_broken_pipe = _pipe_closed  # type: ignore[method-assign]
    return console


def _pipe_closed() -> None:
    raise BrokenPipeError


def stderr_console() -> Console:
    from rich.console import Console

    return Console(stderr=True, highlight=False, **_colors())


def stdout_out() -> Out:
    """Where a renderer of styled text prints: rich on a terminal, plain text otherwise (the same text)."""
    if for_a_terminal(sys.stdout):
        return stdout_console()
    from refind_cli.frontends.render.styled import Plain

    return Plain()


def stderr_out() -> Out:
    if for_a_terminal(sys.stderr):
        return stderr_console()
    from refind_cli.frontends.render.styled import Plain

    return Plain(sys.stderr)


def print_json(obj: Any) -> None:
    from refind_cli.frontends.render import json_text

    sys.stdout.write(json_text(obj, indent=2) + "\n")
    sys.stdout.flush()


def print_error(message: str) -> None:
    """The one-line error, never wrapped (scripts and people grep it)."""
    _stderr_line("error", message)


def print_warning(message: str) -> None:
    """One line on stderr for something done with a doubt (the work went on)."""
    _stderr_line("warning", message)


def _stderr_line(label: str, message: str) -> None:
    # The message may quote a file name or chat text: its control characters and line breaks are shown as
    # escapes, so it stays one line and cannot drive the terminal.
    from refind_cli.frontends.render import visible

    sys.stderr.write(f"refind: {label}: {visible(message).replace(chr(10), chr(92) + 'n')}\n")
    sys.stderr.flush()


def fail(message: str, *, json_mode: bool = False) -> NoReturn:
    """One line on stderr (and an error object on stdout for scripts), exit code 2."""
    if json_mode:
        print_json({"error": message})
    print_error(message)
    raise Exit(2)


@contextlib.contextmanager
def error_boundary(json_mode: bool = False) -> Iterator[None]:
    """Turns the library's user-facing errors into the one-line error and exit code 2."""
    try:
        yield
    except RefindError as exc:
        fail(str(exc), json_mode=json_mode)
    except KeyboardInterrupt:
        sys.stderr.write("refind: interrupted\n")
        raise Exit(130) from None


def guarded(command: Callable[[], int]) -> int:
    """``command``'s exit status, or that of what ended it without being the command line's fault."""
    try:
        code = command()
        # Plain output sits in the stream's buffer: a reader gone shows here, not at the interpreter's exit.
        sys.stdout.flush()
        return code
    except Exit as exc:
        return exc.code
    except KeyboardInterrupt:
        sys.stderr.write("refind: interrupted\n")
        return 130
    except BrokenPipeError:
        # The reader went away (`refind search x | head -1`): what it wanted was written. Further writes
        # (the interpreter's final flush) go nowhere instead of raising again.
        _stdout_to_nowhere()
        return 0
    except OSError as exc:
        # Output that cannot be written (`> /dev/full`, a full disk, a device gone) names no file: the
        # library's own file errors do, and are RefindErrors before they get here.
        if exc.filename is not None or exc.errno not in _OUTPUT_FAILURES:
            raise
        _stdout_to_nowhere()
        with contextlib.suppress(OSError):
            print_error(f"stdout: cannot write ({exc.strerror})")
        return 2


_OUTPUT_FAILURES = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EIO, errno.EBADF, errno.EFBIG})


def _stdout_to_nowhere() -> None:
    with contextlib.suppress(OSError):
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def open_home_at(path: str) -> Home:
    """The home folder at ``path``; lock waits are said once on stderr."""
    from refind_cli.facade import Home

    return Home(path, on_wait=lambda msg: stderr_out().print(msg, markup=False))
