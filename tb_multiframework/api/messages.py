"""Server-made English texts as catalog messages (docs/api.md, Messages).

Run warnings are made deep in the readers and travel as English strings
through the store and the persistent cache. Rather than change what is
stored, the answers are given, beside each warning, the message it is an
instance of: a pattern per message recognises the English text and reads
its parameters from it. A warning no pattern knows gets `null` (the tab
shows its English); `tests/i18n/test_server_messages.py` requires every
warning of the demo and trainer logs to be recognised.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

# (pattern over the whole English text, message id by the groups present).
_REPEATED = re.compile(
    r"(?:step (?P<step>-?\d+)|steps (?P<lo>-?\d+)–(?P<hi>-?\d+)) "
    r"logged (?:twice|(?P<times>\d+) times) "
    r"\((?P<nfiles>\d+) files: (?P<files>.*); (?P<nsteps>\d+) distinct "
    r"steps?, (?P<ntags>\d+) tags?\): a resumed or restarted run; every "
    r"point is kept"
)
_MORE = re.compile(r"(?P<file>.+): (?P<n>\d+) more problems")


def warning_message(text: str) -> dict[str, Any] | None:
    """The catalog message a run warning is an instance of, or None."""
    found = _REPEATED.fullmatch(text)
    if found:
        g = found.groupdict()
        params: dict[str, Any] = {
            "times": int(g["times"] or 2),
            "nfiles": int(g["nfiles"]),
            "files": g["files"],
            "nsteps": int(g["nsteps"]),
            "ntags": int(g["ntags"]),
        }
        if g["step"] is not None:
            return {
                "id": "warning.repeated.step",
                "params": {"step": int(g["step"]), **params},
            }
        return {
            "id": "warning.repeated.steps",
            "params": {"from": int(g["lo"]), "to": int(g["hi"]), **params},
        }
    found = _MORE.fullmatch(text)
    if found:
        return {
            "id": "warning.moreProblems",
            "params": {"file": found["file"], "n": int(found["n"])},
        }
    return None


def warning_messages(texts: Iterable[str]) -> list[dict[str, Any] | None]:
    """`warning_message` of each text, in order."""
    return [warning_message(text) for text in texts]
