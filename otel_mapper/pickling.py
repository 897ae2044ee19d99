"""Cheap pickling for the frozen, slotted dataclasses that cross between the main process and analysis workers.

``@dataclass(frozen=True, slots=True)`` pickles through ``__getstate__``/``__setstate__`` functions that call
:func:`dataclasses.fields` on every object, and restore each field with ``object.__setattr__``: for a diagnosis
(a dozen verifier results and the ranked findings) that cost as much as the rest of its pickle. Classes decorated
with :func:`pickled_by_fields` pickle as ``(restore, (class, field values))`` and are rebuilt by setting each slot
through its member descriptor, the same object ``__init__`` would give (the decorator refuses classes with a
``__post_init__``, whose work would be skipped).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields, is_dataclass
from operator import attrgetter
from typing import TypeVar

__all__ = ["pickled_by_fields", "restore"]

_T = TypeVar("_T")
_SETTERS = "_pickle_field_setters"


def pickled_by_fields(cls: type[_T]) -> type[_T]:
    """Give a slotted dataclass a ``__reduce__`` that stores its field values in declaration order."""
    if not is_dataclass(cls) or "__slots__" not in cls.__dict__:
        raise TypeError(f"{cls.__name__}: pickled_by_fields needs a dataclass with slots=True")
    if hasattr(cls, "__post_init__"):
        raise TypeError(f"{cls.__name__}: restore() skips __init__, so __post_init__ would never run")
    names = tuple(field.name for field in fields(cls))
    setattr(cls, _SETTERS, tuple(cls.__dict__[name].__set__ for name in names))
    getter = attrgetter(*names)
    values: Callable[[_T], tuple[object, ...]] = getter if len(names) > 1 else (lambda obj: (getter(obj),))

    def __reduce__(self: _T) -> tuple[Callable[[type[_T], tuple[object, ...]], _T], tuple[type[_T], tuple[object, ...]]]:
        return restore, (cls, values(self))

    setattr(cls, "__reduce__", __reduce__)  # noqa: B010  (assigning a method to a class: mypy forbids the plain form)
    return cls


def restore(cls: type[_T], values: tuple[object, ...]) -> _T:
    """The object :func:`pickled_by_fields` stored: a new instance of ``cls`` with its slots set to ``values``."""
    obj = object.__new__(cls)
    setters = getattr(cls, _SETTERS)
    if len(values) != len(setters):
        raise TypeError(f"{cls.__name__}: {len(values)} pickled values for {len(setters)} fields")
    for set_slot, value in zip(setters, values, strict=True):
        set_slot(obj, value)
    return obj
