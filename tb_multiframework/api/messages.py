"""Server-made English texts as catalog messages (docs/api.md, Messages).

Run warnings are made deep in the readers and travel as English strings
through the store and the persistent cache. Rather than change what is
stored, the answers are given, beside each warning, the message it is an
instance of: a pattern per message recognises the English text and reads
its parameters from it. A warning no pattern knows gets `null` (the tab
shows its English); `tests/i18n/test_server_messages.py` requires every
warning of the demo and trainer logs to be recognised.

Warnings of file damage, skipped files and files changed on disk, and
evidence texts (why a framework, a trainer, an epoch axis, a resume; the
reasons an inference is unknown and how to set it) are recognised the same
way, from the catalog itself: the English of each such message
(`warning.file.*`, `warning.skipped.*`, `warning.reread.*`, `evidence.*`),
its `{name}` placeholders read as wildcards, is its pattern.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache
from typing import Any

from tb_multiframework import i18n

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
    # File damage, skipped files, files changed on disk: their catalog
    # English is their pattern, as for evidence texts.
    for prefix in ("warning.file.", "warning.skipped.", "warning.reread."):
        message = _template_message(text, prefix)
        if message:
            return message
    return None


def warning_messages(texts: Iterable[str]) -> list[dict[str, Any] | None]:
    """`warning_message` of each text, in order."""
    return [warning_message(text) for text in texts]


# What a placeholder of an `evidence.*` message matches: a quoted name
# (`'loss'`, as Python's repr writes it), a number, or any text.
_QUOTED = {
    "tag", "subRun", "parent", "group", "key", "dir", "summary",
    "framework", "trainer", "first", "split", "component", "run",
}
_NUMBERS = {
    "n", "attempt", "step", "again", "spe", "base", "more", "last",
    "epochs", "firstEpoch", "value", "from", "to", "header", "need",
}
_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


def _wildcard(name: str) -> str:
    if name in _QUOTED:
        return rf"(?P<{name}>'[^']*'|\"[^\"]*\")"
    if name in _NUMBERS:
        return rf"(?P<{name}>-?\d+(?:\.\d+)?)"
    return rf"(?P<{name}>.+?)"


@cache
def _patterns(prefix: str) -> tuple[tuple[str, re.Pattern[str]], ...]:
    """(id, pattern) of every message whose id starts with `prefix`, the
    ones with the most fixed text first (so `tag {tag} (fractional
    epochs)` is tried before `tag {tag}`)."""
    found = []
    for key, english in i18n.catalog(i18n.DEFAULT_LANG).items():
        if not key.startswith(prefix):
            continue
        parts = _PLACEHOLDER.split(english)
        pattern = "".join(
            _wildcard(part) if i % 2 else re.escape(part)
            for i, part in enumerate(parts)
        )
        fixed = sum(len(part) for part in parts[::2])
        found.append((-fixed, key, re.compile(pattern)))
    return tuple((key, pattern) for _, key, pattern in sorted(found))


def _template_message(text: str, prefix: str) -> dict[str, Any] | None:
    """The message under `prefix` whose English `text` is an instance of,
    or None. Its parameters are the texts the placeholders matched (names,
    numbers and lists exactly as the English writes them)."""
    for key, pattern in _patterns(prefix):
        found = pattern.fullmatch(text)
        if found:
            return {"id": key, "params": found.groupdict()}
    return None


def evidence_message(text: str) -> dict[str, Any] | None:
    """The `evidence.*` message an evidence text is an instance of, or None."""
    return _template_message(text, "evidence.")


def evidence_messages(texts: Iterable[str]) -> list[dict[str, Any] | None]:
    """`evidence_message` of each text, in order."""
    return [evidence_message(text) for text in texts]


def with_run_messages(entry: dict[str, Any]) -> dict[str, Any]:
    """A `runs` entry with its server-made texts as catalog messages beside
    them: `warningMessages`, `evidenceMessages`, `trainerEvidenceMessages`,
    `epochSourceMessage` and `resumeNoteMessage` (docs/api.md, Messages)."""
    entry["warningMessages"] = warning_messages(entry.get("warnings", ()))
    entry["evidenceMessages"] = evidence_messages(entry.get("evidence", ()))
    entry["trainerEvidenceMessages"] = evidence_messages(
        entry.get("trainerEvidence", ())
    )
    source = entry.get("epochSource")
    entry["epochSourceMessage"] = (
        evidence_message(source) if isinstance(source, str) else None
    )
    note = entry.get("resumeNote")
    entry["resumeNoteMessage"] = evidence_message(note) if note else None
    return entry



def with_scalars_messages(payload: dict[str, Any]) -> dict[str, Any]:
    """A `GET scalars` answer with its reasons as catalog messages beside
    them: `series[].excludedMessage`, `diffs[].excludedMessage`,
    `missing[].reasonMessage` (null where a reason has none)."""
    for key in ("series", "diffs"):
        for entry in payload.get(key, ()):
            reason = entry.get("excluded")
            entry["excludedMessage"] = (
                evidence_message(reason) if isinstance(reason, str) else None
            )
    for entry in payload.get("missing", ()):
        entry["reasonMessage"] = evidence_message(entry["reason"])
    return payload


def derivation_messages(derivation: str) -> list[dict[str, Any] | None]:
    """A metric member's `derivation` (notes joined by "; ") as the
    messages of its notes, in order (`derivationMessages` of `GET
    metrics`; null for a note without an id)."""
    return evidence_messages(derivation.split("; ")) if derivation else []
