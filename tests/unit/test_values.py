"""Value types behave like frozen, slotted dataclasses: built by position or keyword, equal and
hashed by type and fields, unchangeable, copied with replace."""

from __future__ import annotations

import copy
import pickle
import typing
from collections.abc import Callable
from typing import ClassVar, cast

import pytest

from memidx.frozen import FrozenValueError, Value, replace


class Point(Value):
    """A value with a required field and defaults."""

    x: int
    label: str = "origin"
    tags: tuple[str, ...] = ()

    @property
    def named(self) -> bool:
        return self.label != "origin"


class Other(Value):
    x: int
    label: str = "origin"
    tags: tuple[str, ...] = ()


class Tagged(Point):
    """A subclass adds fields after its base's."""

    colour: str = "red"


def test_fields_come_by_position_keyword_or_default() -> None:
    assert Point(1).label == "origin"
    assert Point(1, "a", ("t",)) == Point(x=1, tags=("t",), label="a")
    assert Point(2, label="b").named


def test_equal_and_hashed_by_type_and_fields() -> None:
    assert Point(1, "a") == Point(1, "a")
    assert hash(Point(1, "a")) == hash(Point(1, "a"))
    assert Point(1, "a") != Point(1, "b")
    assert Point(1) != Other(1)  # same fields, another type: not equal, as dataclasses
    assert Point(1) != (1, "origin", ())
    assert len({Point(1), Point(1), Point(2)}) == 2


def test_a_value_cannot_change_and_has_no_instance_dict() -> None:
    point = Point(1)
    with pytest.raises(FrozenValueError):
        point.x = 2  # pyright: ignore[reportAttributeAccessIssue]
    with pytest.raises(AttributeError):
        del point.label  # pyright: ignore[reportAttributeAccessIssue]
    assert not hasattr(point, "__dict__")
    assert point.x == 1


def test_replace_copies_with_changes_and_refuses_unknown_fields() -> None:
    point = Point(1, "a")
    assert replace(point, label="b") == Point(1, "b")
    assert point.label == "a"
    with pytest.raises(TypeError, match="no field 'y'"):
        replace(point, y=2)


def test_repr_pickle_and_copy() -> None:
    point = Point(1, "a", ("t",))
    assert repr(point) == "Point(x=1, label='a', tags=('t',))"
    assert pickle.loads(pickle.dumps(point)) == point
    assert copy.copy(point) == point
    assert copy.deepcopy(Tagged(1, colour="blue")) == Tagged(1, colour="blue")


def test_a_subclass_keeps_its_base_fields_first() -> None:
    tagged = Tagged(1, "a", (), "blue")
    assert (tagged.x, tagged.label, tagged.colour) == (1, "a", "blue")
    assert Tagged(1) != Point(1)


@pytest.mark.parametrize(
    ("args", "kwargs", "message"),
    [
        ((), {}, "missing argument 'x'"),
        ((1, "a", (), "extra"), {}, "takes 3 arguments, 4 given"),
        ((1,), {"x": 2}, "multiple values for 'x'"),
        ((1,), {"colour": "red"}, "unexpected argument 'colour'"),
    ],
)
def test_wrong_arguments_are_type_errors(
    args: tuple[object, ...], kwargs: dict[str, object], message: str
) -> None:
    build = cast("Callable[..., object]", Point)  # what pyright refuses, refused when running
    with pytest.raises(TypeError, match=message):
        build(*args, **kwargs)


class Moved(Point):
    """A subclass may give a base field a new default; the field keeps its place."""

    label: str = "moved"


def test_a_base_field_with_a_new_default_stays_one_field() -> None:
    assert Moved.value_fields == ("x", "label", "tags")
    assert Moved(1) == Moved(1, "moved", ())
    assert repr(Moved(1)) == "Moved(x=1, label='moved', tags=())"


class Counted(Value):
    """Class variables are not fields."""

    made: ClassVar[int] = 0
    made_too: typing.ClassVar[str] = "x"
    size: int = 1


def test_class_variables_are_not_fields() -> None:
    assert Counted.value_fields == ("size",)
    assert Counted.made == 0


def test_mutable_defaults_and_misordered_defaults_are_refused() -> None:
    with pytest.raises(ValueError, match="mutable default"):

        class _Listed(Value):  # pyright: ignore[reportUnusedClass]
            items: list[int] = []  # noqa: RUF012

    with pytest.raises(ValueError, match="mutable default"):

        class _Buffered(Value):  # pyright: ignore[reportUnusedClass]
            data: bytearray = bytearray()

    with pytest.raises(TypeError, match="without a default follows"):

        class _Misordered(Value):  # pyright: ignore[reportUnusedClass]
            first: int = 0
            second: int  # pyright: ignore[reportGeneralTypeIssues]


def test_declared_slots_are_refused() -> None:
    with pytest.raises(TypeError, match="do not declare __slots__"):

        class _Slotted(Value):  # pyright: ignore[reportUnusedClass]
            __slots__ = ("x",)
            x: int


def test_frozen_cast_runs_every_call_the_type_checker_accepts() -> None:
    """memidx.frozen.cast is typing.cast to the type checker and a function of its own at run
    time (the prompt hook's path never imports typing): a call pyright passes, by position or
    by typing's own keywords, must run and give back its value."""
    from memidx import frozen

    found = object()
    assert frozen.cast(list[int], found) is found
    assert frozen.cast(typ=list[int], val=found) is found
    assert frozen.cast("list[int]", val=found) is found
