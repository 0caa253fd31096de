"""What of ``typing`` the modules a cold read loads use at run time, without importing ``typing``. Measured in
instructions on a search that finds nothing (164M on main): typing's ``NamedTuple`` compiles a ``ForwardRef`` of
every field's annotation beside the ``namedtuple`` it makes, 15M more than here for the 18 classes a search
made; importing ``typing`` itself was another 11M (bench/RESULTS.md, issue 26 item 3, session 18). mypy reads
typing's own (any ``TYPE_CHECKING`` is true to it), so every use is checked as before. Elsewhere
(``TYPE_CHECKING`` blocks, the import and the agent) typing's are used as they are; tests/test_startup6.py
holds a cold read to running no import of ``typing``."""

from __future__ import annotations

from collections import namedtuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import NamedTuple as NamedTuple
    from typing import Protocol as Protocol
    from typing import cast as cast
else:
    # What namedtuple makes itself; the rest of the body goes onto the class as typing's NamedTuple puts it
    # (``__qualname__``, ``__doc__``, ``__annotations__``, methods, properties).
    _MADE = frozenset({"__module__"})

    class _NamedTupleMeta(type):
        def __new__(cls, name, bases, body):
            fields = list(body.get("__annotations__", {}))
            defaults = [body[f] for f in fields if f in body]
            made = namedtuple(name, fields, defaults=defaults, module=body["__module__"])
            for key, value in body.items():
                if key not in _MADE and key not in fields:
                    setattr(made, key, value)
            return made

    NamedTuple = type.__new__(_NamedTupleMeta, "NamedTuple", (), {})

    # A protocol is a plain class at run time: none is checked by isinstance (none is runtime_checkable), and
    # nothing subclasses one but for the type checker.
    Protocol = object

    def cast(kind, value):
        return value
