"""Value semantics for the core's slots classes, without `dataclasses`.

A check makes several kinds of record (findings, fixes, settings, types); `dataclasses`
generates each one's methods from source with `exec` when its class is made, which a
check of one small file paid at every start. A record names the fields its equality and
hash compare (`COMPARED`: the others are caches or context) and those its `repr` shows
(`SHOWN`); `_replace` makes a changed copy, as a NamedTuple's does."""

from __future__ import annotations

from typing import Any, ClassVar, TypeVar

R = TypeVar("R", bound="SlotsRecord")


class SlotsRecord:
    """Equality, hashing, `repr` and `_replace` from the class's field lists."""

    __slots__ = ()
    #: The fields equality and hashing compare.
    COMPARED: ClassVar[tuple[str, ...]] = ()
    #: The fields `repr` shows, as `Name(field=value, ...)`.
    SHOWN: ClassVar[tuple[str, ...]] = ()

    def _compared(self) -> tuple[object, ...]:
        return tuple(getattr(self, name) for name in self.COMPARED)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._compared() == other._compared()

    def __hash__(self) -> int:
        return hash(self._compared())

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.SHOWN)
        return f"{type(self).__name__}({shown})"

    def _replace(self: R, **changes: Any) -> R:
        """A copy with `changes` made: every slot is a parameter of the class's `__init__`."""
        slots: tuple[str, ...] = getattr(type(self), "__slots__")  # noqa: B009  # the subclass's own
        fields = {name: getattr(self, name) for name in slots}
        return type(self)(**{**fields, **changes})
