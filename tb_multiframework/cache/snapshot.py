"""Reader state as JSON: objects of a fixed set of classes, and plain data.

The loader's per-run state (its files' offsets, pending bytes and
identities, the tag -> plugin map, attempt tracking, ...) is a tree of
plain objects. `dump` writes every attribute of an object whose class is
in `allowed` (new attributes are picked up without code here); `load`
rebuilds only those classes, without calling their `__init__`, so nothing
in a cache file can name a class to instantiate. `allowed` maps each class
to the attributes left out (handles, caches), which come back as None.

Encoded forms: a dict with a "~" key marks a non-JSON value:
`{"~": "obj", "c": class name, "a": {attribute: value}}`, `{"~": "bytes",
"v": base64}`, `{"~": "set", "v": [...]}`, `{"~": "tuple", "v": [...]}`,
`{"~": "dict", "v": [[key, value], ...]}` (keys that are not strings, or
dicts that have a "~" key).
"""

from __future__ import annotations

import base64
import dataclasses
from typing import Any, Iterable, Mapping

_MARK = "~"


class SnapshotError(ValueError):
    """Data that is not a snapshot of the allowed classes."""


def _name(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def _attributes(obj: Any) -> dict[str, Any]:
    if dataclasses.is_dataclass(obj):
        return {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj)}
    values = dict(getattr(obj, "__dict__", {}))
    for cls in type(obj).__mro__:
        for slot in getattr(cls, "__slots__", ()):
            if hasattr(obj, slot):
                values[slot] = getattr(obj, slot)
    return values


def dump(value: Any, allowed: Mapping[type, Iterable[str]]) -> Any:
    """`value` as JSON-able data.

    Raises:
      SnapshotError: an object of a class not in `allowed`.
    """
    classes = {_name(cls): (cls, set(skip)) for cls, skip in allowed.items()}
    return _dump(value, classes)


def _dump(value: Any, classes: dict[str, tuple[type, set[str]]]) -> Any:
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (bytes, bytearray)):
        return {_MARK: "bytes", "v": base64.b64encode(value).decode("ascii")}
    if isinstance(value, list):
        return [_dump(v, classes) for v in value]
    if isinstance(value, tuple):
        return {_MARK: "tuple", "v": [_dump(v, classes) for v in value]}
    if isinstance(value, (set, frozenset)):
        items = [_dump(v, classes) for v in value]
        return {_MARK: "set", "v": sorted(items, key=repr)}
    if isinstance(value, dict):
        if all(isinstance(k, str) for k in value) and _MARK not in value:
            return {k: _dump(v, classes) for k, v in value.items()}
        return {
            _MARK: "dict",
            "v": [
                [_dump(k, classes), _dump(v, classes)] for k, v in value.items()
            ],
        }
    name = _name(type(value))
    if name not in classes:
        raise SnapshotError(f"cannot snapshot a {name}")
    skip = classes[name][1]
    return {
        _MARK: "obj",
        "c": name,
        "a": {
            key: _dump(None if key in skip else item, classes)
            for key, item in _attributes(value).items()
        },
    }


def load(data: Any, allowed: Iterable[type]) -> Any:
    """The value `dump` made `data` from.

    Raises:
      SnapshotError: malformed data or a class not in `allowed`.
    """
    classes = {_name(cls): cls for cls in allowed}
    try:
        return _load(data, classes)
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        if isinstance(error, SnapshotError):
            raise
        raise SnapshotError(f"malformed snapshot: {error!r}") from None


def _load(data: Any, classes: dict[str, type]) -> Any:
    if data is None or isinstance(data, (bool, int, float, str)):
        return data
    if isinstance(data, list):
        return [_load(v, classes) for v in data]
    if not isinstance(data, dict):
        raise SnapshotError(f"unexpected {type(data).__name__}")
    kind = data.get(_MARK)
    if kind is None:
        return {str(k): _load(v, classes) for k, v in data.items()}
    if kind == "bytes":
        return base64.b64decode(data["v"], validate=True)
    if kind == "tuple":
        return tuple(_load(v, classes) for v in data["v"])
    if kind == "set":
        return {_load(v, classes) for v in data["v"]}
    if kind == "dict":
        return {_load(k, classes): _load(v, classes) for k, v in data["v"]}
    if kind != "obj":
        raise SnapshotError(f"unknown marker {kind!r}")
    cls = classes.get(data["c"])
    if cls is None:
        raise SnapshotError(f"class {data['c']!r} is not allowed")
    obj: Any = object.__new__(cls)
    for key, item in data["a"].items():
        if not isinstance(key, str) or key.startswith("__"):
            raise SnapshotError(f"attribute name {key!r}")
        object.__setattr__(obj, key, _load(item, classes))
    return obj
