"""``NamedTuple``'s class syntax without ``typing`` at run time. A cold ``refind search`` made 18 named-tuple
classes: typing's ``NamedTuple`` compiles a ``ForwardRef`` of every field's annotation (each a string, under
``from __future__ import annotations``) beside the ``namedtuple`` it makes, 0.8M instructions a class against
0.5M here, and importing ``typing`` for it was another 12M: together ~15 % of a search that finds nothing
(bench/RESULTS.md, issue 26 item 3, session 18). mypy reads typing's, so the fields, their types and defaults
are checked as before; the class made is ``collections.namedtuple``'s, as typing's is, with the body's
methods, properties and docstring on it."""

from __future__ import annotations

from collections import namedtuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import NamedTuple as NamedTuple
else:
    # What namedtuple makes itself; the rest of the body goes onto the class as typing's
    # does (``__qualname__``, ``__doc__``, methods).
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
