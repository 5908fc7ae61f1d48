"""Checking the names a user passes (runs, metrics, tags), with the closest
existing names in the error, and the errors of the Python API."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping, Sequence

_SUGGESTED = 3  # closest names suggested
_LISTED = 12  # names listed when none is close


class UnknownNameError(LookupError):
    """An unknown run, metric or tag; the message names the closest ones.

    Attributes:
      kind: "run", "metric" or "tag".
      name: what was asked for.
      closest: the closest existing names (may be empty).
    """

    def __init__(
        self, kind: str, name: str, choices: Sequence[str], hint: str = ""
    ) -> None:
        self.kind = kind
        self.name = name
        self.closest = difflib.get_close_matches(
            name, list(choices), n=_SUGGESTED, cutoff=0.5
        )
        if self.closest:
            found = (
                "did you mean "
                + " or ".join(repr(c) for c in self.closest)
                + "?"
            )
        elif choices:
            shown = ", ".join(repr(c) for c in list(choices)[:_LISTED])
            more = (
                f", … ({len(choices)} in all)" if len(choices) > _LISTED else ""
            )
            found = f"{kind}s: {shown}{more}"
        else:
            found = f"there are no {kind}s"
        message = f"unknown {kind} {name!r}; {found}"
        super().__init__(message + (f" ({hint})" if hint else ""))

    def __str__(self) -> str:
        return str(self.args[0])


class NoRunsError(ValueError):
    """The logdir holds no run (no file named like a log file)."""


class TbmfWarning(UserWarning):
    """Something a frame left out, or a file problem, said once."""


def check_name(value: object, what: str) -> str:
    """A name argument as str.

    Raises:
      TypeError: it is not a string.
    """
    if not isinstance(value, str):
        raise TypeError(f"{what} must be a string, got {value!r}")
    return value


def resolve_runs(
    wanted: str | Iterable[str] | None, runs: Sequence[str]
) -> tuple[str, ...] | None:
    """The runs named: each run itself, or the runs under a directory
    (`keras_fit` names `keras_fit/train` and `keras_fit/validation`).

    Raises:
      UnknownNameError: a name that is no run and has none under it.
    """
    if wanted is None:
        return None
    if isinstance(wanted, str):
        wanted = [wanted]
    found: list[str] = []
    for token in wanted:
        check_name(token, "a run")
        prefix = token.rstrip("/") + "/"
        hits = [token] if token in runs else []
        hits += [r for r in runs if r.startswith(prefix)]
        if not hits:
            raise UnknownNameError("run", token, runs)
        found += [r for r in hits if r not in found]
    return tuple(found)


def resolve_metric(name: str, keys: Mapping[str, str]) -> str:
    """The metric key a name or key stands for.

    Args:
      name: a key (`loss/train@epoch`) or a name (`loss/train`) with one
        level.
      keys: every metric key -> its name.

    Raises:
      UnknownNameError: no such metric (closest keys and names suggested).
      ValueError: a name with several levels.
    """
    check_name(name, "a metric")
    if name in keys:
        return name
    levels = sorted(k for k, n in keys.items() if n == name)
    if len(levels) == 1:
        return levels[0]
    if levels:
        raise ValueError(
            f"metric {name!r} has {len(levels)} levels: "
            f"{', '.join(levels)}; name one of them"
        )
    choices = sorted(set(keys) | set(keys.values()))
    raise UnknownNameError("metric", name, choices)
