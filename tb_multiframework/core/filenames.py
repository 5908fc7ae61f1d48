"""Download file names built from user-supplied strings (metric, tag, axis).

A tag is whatever a training script logged, so it may hold slashes, dots,
quotes, control characters, Windows device names or thousands of
characters; none of that may reach a ``Content-Disposition`` header or the
user's file system. ``safe_filename_part`` keeps ASCII letters, digits, ``.``,
``-`` and ``_`` and turns every other run of characters into one ``_``.
"""

from __future__ import annotations

import datetime
import re
import unicodedata

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
_EDGES = "._-"
# Device names Windows refuses as a file's base name, whatever the extension.
_RESERVED = frozenset(
    ["CON", "PRN", "AUX", "NUL"]
    + [f"COM{i}" for i in range(1, 10)]
    + [f"LPT{i}" for i in range(1, 10)]
)
MAX_PART_CHARS = 60  # characters of one user-supplied part of a file name


def safe_filename_part(text: str, *, fallback: str) -> str:
    """``text`` reduced to ``[A-Za-z0-9._-]``, at most MAX_PART_CHARS long.

    Args:
      text: any string (a metric name, a tag, an axis).
      fallback: returned when nothing usable is left.

    Returns:
      A non-empty part that starts and ends with a letter or digit.
    """
    ascii_text = (
        unicodedata.normalize("NFKD", text)
        .encode("ascii", "ignore")
        .decode("ascii")
    )
    part = _UNSAFE.sub("_", ascii_text).strip(_EDGES)
    part = part[:MAX_PART_CHARS].strip(_EDGES)
    if not part:
        return fallback
    base, dot, extension = part.partition(".")
    if base.upper() in _RESERVED:
        part = f"{base}_{dot}{extension}"
    return part


def export_filename(
    *,
    metric: str | None,
    tag: str | None,
    x: str,
    fmt: str,
    date: datetime.date,
) -> str:
    """``loss_train-batch_step_2026-11-30.csv``: what, on which axis, when.

    Args:
      metric: a metric key (``name@level``) or None.
      tag: a raw tag, used when ``metric`` is None.
      x: the axis.
      fmt: the extension (``csv`` or ``json``).
      date: the day of the export.
    """
    if metric is not None:
        name, _, level = metric.partition("@")
        what = name if not level else f"{name}-{level}"
    else:
        what = tag or ""
    return (
        "_".join(
            [
                safe_filename_part(what, fallback="export"),
                safe_filename_part(x, fallback="x"),
                date.isoformat(),
            ]
        )
        + "."
        + safe_filename_part(fmt, fallback="txt")
    )
