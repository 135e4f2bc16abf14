"""Frozen, slotted value types, declared like dataclasses but without their start-up cost.

STYLE.md asks for frozen, slotted dataclasses. On the path every git hook runs, importing
`dataclasses` (which imports inspect, ast, dis and tokenize) and generating each class with
`exec` cost ~20 ms per process, a third of what memidx added to a commit (measured against
this module: ~3 ms). A `Value` subclass reads the same and type-checks the same:

    class Change(Value):
        status: str
        new_mode: str | None = None

Fields are the class's annotations, in order, with their defaults; instances take them by
position or keyword, compare and hash by their fields and type, and cannot be changed
(`replace` makes a changed copy). Mutable defaults are refused, as dataclasses refuse them.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's: importing typing costs every hook process ~2 ms
if TYPE_CHECKING:
    from typing import Any, TypeVar, cast, dataclass_transform

    V = TypeVar("V", bound="Value")
else:

    def dataclass_transform(**_options: object) -> object:
        return lambda cls: cls

    def cast(typ: object, val: object) -> object:  # typing's names: pyright checks by them
        """typing.cast for the hook path's modules, which import it from here."""
        return val


__all__ = ["FrozenValueError", "Value", "cast", "replace"]


class FrozenValueError(AttributeError):
    """An assignment to a field of a Value."""


class _ValueType(type):
    """Turns a Value subclass's annotations into slots, defaults and a field order."""

    value_fields: tuple[str, ...]
    value_defaults: dict[str, object]

    def __new__(mcs, name: str, bases: tuple[type, ...], namespace: dict[str, Any]) -> _ValueType:
        if bases and "__slots__" in namespace:
            raise TypeError(f"{name}: a Value's slots are its fields; do not declare __slots__")
        if "__annotations__" not in namespace and "__annotate__" in namespace:
            raise TypeError(f"{name}: declare Values under `from __future__ import annotations`")
        inherited: tuple[str, ...] = ()
        defaults: dict[str, object] = {}
        for base in bases:
            inherited += tuple(f for f in getattr(base, "value_fields", ()) if f not in inherited)
            defaults |= getattr(base, "value_defaults", {})
        own = tuple(
            field
            for field, annotation in namespace.get("__annotations__", {}).items()
            if not _is_class_var(str(annotation))
        )
        for field in own:
            if field in namespace:
                default = namespace.pop(field)
                if type(default).__hash__ is None:  # list, dict, set...: shared by every instance
                    raise ValueError(f"{name}.{field}: mutable default {default!r}")
                defaults[field] = default
        fields = inherited + tuple(field for field in own if field not in inherited)
        required = [field for field in fields if field not in defaults]
        if required and fields.index(required[-1]) >= len(required):
            raise TypeError(f"{name}: field {required[-1]!r} without a default follows one with")
        namespace["__slots__"] = tuple(field for field in own if field not in inherited)
        cls = super().__new__(mcs, name, bases, namespace)
        cls.value_fields = fields
        cls.value_defaults = defaults
        return cls


def _is_class_var(annotation: str) -> bool:
    """`ClassVar[...]`, however typing was imported: a class attribute, not a field."""
    return annotation.split("[", 1)[0].strip().rsplit(".", 1)[-1] == "ClassVar"


@dataclass_transform(eq_default=True, frozen_default=True)
class Value(metaclass=_ValueType):
    """Base of memidx's value types (see the module's docstring)."""

    __slots__ = ()

    def __init__(self, *args: object, **kwargs: object) -> None:
        cls = type(self)
        fields = cls.value_fields
        if len(args) > len(fields):
            raise TypeError(f"{cls.__name__}() takes {len(fields)} arguments, {len(args)} given")
        assign = object.__setattr__
        for field, value in zip(fields, args, strict=False):
            assign(self, field, value)
        for field in fields[len(args) :]:
            if field in kwargs:
                assign(self, field, kwargs.pop(field))
            elif field in cls.value_defaults:
                assign(self, field, cls.value_defaults[field])
            else:
                raise TypeError(f"{cls.__name__}() missing argument {field!r}")
        for field in kwargs:
            problem = "multiple values for" if field in fields else "an unexpected argument"
            raise TypeError(f"{cls.__name__}() got {problem} {field!r}")

    def _values(self) -> tuple[object, ...]:
        return tuple(getattr(self, field) for field in self.value_fields)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__ or not isinstance(other, Value):
            return NotImplemented
        return self._values() == other._values()

    def __hash__(self) -> int:
        return hash((self.__class__, self._values()))

    def __repr__(self) -> str:
        shown = ", ".join(f"{field}={getattr(self, field)!r}" for field in self.value_fields)
        return f"{type(self).__name__}({shown})"

    def __setattr__(self, name: str, value: object) -> None:
        raise FrozenValueError(f"cannot assign to field {name!r} of {type(self).__name__}")

    def __delattr__(self, name: str) -> None:
        raise FrozenValueError(f"cannot delete field {name!r} of {type(self).__name__}")

    def __reduce__(self) -> tuple[type[Value], tuple[object, ...]]:
        return (type(self), self._values())


def replace(value: V, **changes: object) -> V:
    """A copy of `value` with some fields changed (like dataclasses.replace)."""
    fields = {field: getattr(value, field) for field in value.value_fields}
    for field in changes:
        if field not in fields:
            raise TypeError(f"{type(value).__name__} has no field {field!r}")
    return type(value)(**(fields | changes))
