"""What the tab inferred about a run, each claim with its evidence.

`run_inferences` builds the `inferences` object of a `GET runs` entry: for
the framework, the trainer, the epoch axis, resumes, loops and the sub-run
parent, a claim (`value`), its `status`, the `evidence` it rests on, and,
when it is `unknown`, the `reason` and how to set it (`howToSet`). Status:

* `evidence`: read from the files (positive evidence, listed);
* `unknown`: not enough evidence; the tab shows nothing rather than a guess;
* `set by you`: the user's correction in the config file (it wins).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tb_multiframework.api.messages import evidence_message, evidence_messages
from tb_multiframework.core.axes import HOW_TO_SET, EpochMap
from tb_multiframework.core.loops import parse_loop_tag
from tb_multiframework.core.types import NO_TRAINER, Excluded
from tb_multiframework.settings.config import RunOverride
from tb_multiframework.store.store import RunSummary

EVIDENCE, UNKNOWN, SET_BY_YOU = "evidence", "unknown", "set by you"


def claim(
    value: Any,
    status: str,
    evidence: Sequence[str] = (),
    *,
    reason: str = "",
    how_to_set: str = "",
) -> dict[str, Any]:
    """One inference as JSON, its texts also as catalog messages
    (`evidenceMessages`, `reasonMessage`, `howToSetMessage`: null where a
    text has no message)."""
    return {
        "value": value,
        "status": status,
        "evidence": list(evidence),
        "reason": reason,
        "howToSet": how_to_set,
        "evidenceMessages": evidence_messages(evidence),
        "reasonMessage": evidence_message(reason) if reason else None,
        "howToSetMessage": evidence_message(how_to_set) if how_to_set else None,
    }


def run_inferences(
    summary: RunSummary,
    emap: EpochMap | Excluded,
    override: RunOverride,
    attempts: Sequence[Mapping[str, Any]],
    *,
    trainer: str,
) -> dict[str, Any]:
    """The `inferences` of one run (see the module docstring)."""
    meta = summary.meta
    return {
        "framework": _framework(meta, override),
        "trainer": _trainer(meta, override, trainer),
        "epochAxis": _epoch_axis(emap, override),
        "resume": _resume(meta, override, attempts),
        "loops": _loops(summary),
        "parent": _parent(meta),
    }


def _framework(meta: Any, override: RunOverride) -> dict[str, Any]:
    if override.framework is not None:
        return claim(meta.framework, SET_BY_YOU, meta.evidence)
    if meta.framework == "unknown":
        return claim(
            "unknown",
            UNKNOWN,
            meta.evidence,
            reason="the files do not say which framework wrote them",
            how_to_set="set runs[<run>].framework in the config",
        )
    return claim(meta.framework, EVIDENCE, meta.evidence)


def _trainer(meta: Any, override: RunOverride, trainer: str) -> dict[str, Any]:
    if override.trainer is not None:
        return claim(
            trainer or None,
            SET_BY_YOU,
            [f"trainer {override.trainer!r} set by you"],
        )
    if trainer:
        return claim(trainer, EVIDENCE, meta.trainer_evidence)
    return claim(
        None,
        UNKNOWN,
        reason=NO_TRAINER,
        how_to_set="set runs[<run>].trainer in the config, or in the Runs table",
    )


def _epoch_axis(
    emap: EpochMap | Excluded, override: RunOverride
) -> dict[str, Any]:
    user = (
        override.steps_per_epoch is not None
        or override.epoch_base is not None
        or override.epoch_axis is not None
    )
    if isinstance(emap, Excluded):
        return claim(
            None,
            SET_BY_YOU if override.epoch_axis is False else UNKNOWN,
            reason=emap.reason,
            how_to_set=HOW_TO_SET,
        )
    shifts = {
        tag: ("0-based index" if shift == 1.0 else "epochs completed")
        for tag, shift in sorted(emap.shifts.items())
    }
    value = {
        "source": emap.source,
        "stepsPerEpoch": emap.steps_per_epoch,
        "epochLevelTags": shifts,
        "stepCountedReason": emap.step_reason,
    }
    return claim(
        value,
        SET_BY_YOU if user else EVIDENCE,
        emap.evidence or (emap.source,),
        how_to_set=HOW_TO_SET,
    )


def _resume(
    meta: Any, override: RunOverride, attempts: Sequence[Mapping[str, Any]]
) -> dict[str, Any]:
    starts = [
        f"attempt {s.attempt} from step {s.step}: "
        + (
            "a SessionLog.START (e.g. purge_step)"
            if s.cause == "session_log"
            else f"tag {s.tag!r} logged step {s.step} again"
            + (
                " in a new file"
                if s.cause == "step_relogged"
                else ", below steps it had logged, and went on from there"
            )
        )
        for s in meta.attempt_starts
    ]
    if override.not_resumed:
        return claim(
            False,
            SET_BY_YOU,
            [*starts, "not a resume: set by you (every point is shown)"],
        )
    later = [a for a in attempts if a["attempt"] > 0]
    if not later:
        return claim(
            False,
            EVIDENCE,
            ["no step of any tag was logged again by a later attempt"],
        )
    return claim(
        True,
        EVIDENCE,
        starts,
        how_to_set="set runs[<run>].notResumed in the config, or say "
        "'not a resume' in the Runs table",
    )


def _loops(summary: RunSummary) -> dict[str, Any]:
    loops: dict[str, list[str]] = {}
    for name in summary.scalar_tags:
        found = parse_loop_tag(name)
        if found is not None:
            loops.setdefault(found[0], []).append(name)
    evidence = [
        f"tag {tag!r} is logged by {len(names) + 1} loops at different step "
        f"scales (points below its running largest step, followed by points "
        f"above it): served as {tag!r} and " + ", ".join(map(repr, names))
        for tag, names in sorted(loops.items())
    ]
    return claim(
        {tag: [tag, *names] for tag, names in sorted(loops.items())},
        EVIDENCE,
        evidence,
    )


def _parent(meta: Any) -> dict[str, Any]:
    if not meta.parent:
        return claim(None, EVIDENCE, ["not a sub-run of another run"])
    lines = [e for e in meta.evidence if "sub-run of" in e]
    return claim(meta.parent, EVIDENCE, lines or [meta.sub_run])
