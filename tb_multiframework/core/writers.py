"""Several processes writing one run directory (DDP ranks sharing a logdir).

When every rank of a distributed job opens a writer on the same directory,
their files interleave: the run then looks like a restart at every point
where one rank's step is below the other's. `shared_writers` finds it from
positive evidence on the run's files (docs/conventions.md, "Several
processes writing one run directory"):

1. two files whose scalar points' wall-time ranges overlap by at least
   `MIN_OVERLAP` of the shorter range (a resumed run's files follow one
   another; they do not overlap);
2. and either different writers in the file names (`<host>.<pid>` of
   torch and TensorFlow files) or steps that both files logged.

A file pair with 1. but from one process (the same host and pid: two
writers in one script) is not flagged. Pure stdlib.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

MIN_OVERLAP = 0.5  # of the shorter file's wall-time range
MIN_POINTS = 2  # scalar points a file needs to be compared
# events.out.tfevents.<seconds>.<host>.<pid>.<n>[.v2]: torch and TF
_PROCESS_NAME = re.compile(
    r".*\.tfevents\.\d+(?:\.\d+)?\.(?P<host>.+)\.(?P<pid>\d+)\.\d+(?:\.v2)?"
)


@dataclass(frozen=True)
class FileSpan:
    """One log file's scalar points: how many, when, which steps."""

    name: str
    points: int
    first_wall: float
    last_wall: float
    first_step: int
    last_step: int


@dataclass(frozen=True)
class SharedWriters:
    """Files of one run directory written by several processes at once.

    Attributes:
        files: The files involved, in name order.
        processes: file -> "host <h>, pid <p>" where the name says.
        evidence: One line per overlapping pair.
        warning: The run's warning, naming the files and the fix.
    """

    files: tuple[str, ...]
    processes: dict[str, str]
    evidence: tuple[str, ...]
    warning: str


def writer_process(name: str) -> tuple[str, int] | None:
    """(host, pid) from a torch/TensorFlow events file name, else None.

    tensorboardX names carry the host only, VisualDL names neither.
    """
    found = _PROCESS_NAME.fullmatch(name)
    if not found:
        return None
    return found.group("host"), int(found.group("pid"))


def shared_writers(
    spans: Sequence[FileSpan],
    repeated_files: Sequence[str] = (),
    *,
    run: str = "",
) -> SharedWriters | None:
    """Several processes writing one directory, or None (see the module).

    Args:
        spans: The run's files.
        repeated_files: Files that logged steps another file logged too.
        run: The run's name (for the config hint in the warning).
    """
    usable = [
        s
        for s in spans
        if s.points >= MIN_POINTS and s.last_wall >= s.first_wall
    ]
    repeated = set(repeated_files)
    evidence: list[str] = []
    involved: set[str] = set()
    for i, a in enumerate(usable):
        for b in usable[i + 1 :]:
            line = _pair_evidence(a, b, repeated)
            if line:
                evidence.append(line)
                involved.update((a.name, b.name))
    if not involved:
        return None
    files = tuple(sorted(involved))
    processes = {}
    for name in files:
        found = writer_process(name)
        if found is not None:
            processes[name] = f"host {found[0]}, pid {found[1]}"
    where = (
        f'"runs": {{"{run}": {{"filesAsRanks": true}}}}'
        if run
        else ('"filesAsRanks": true')
    )
    warning = (
        f"{len(files)} files were written at the same time by different "
        f"processes ({', '.join(files[:4])}"
        + (f" and {len(files) - 4} more" if len(files) > 4 else "")
        + "): DDP ranks sharing one log directory? Their points interleave "
        f"and read as restarts. Set {where} in the config to read each "
        "file as a rank, or give each rank its own directory"
    )
    return SharedWriters(files, processes, tuple(evidence), warning)


def _pair_evidence(a: FileSpan, b: FileSpan, repeated: set[str]) -> str:
    overlap = min(a.last_wall, b.last_wall) - max(a.first_wall, b.first_wall)
    shorter = min(a.last_wall - a.first_wall, b.last_wall - b.first_wall)
    if shorter <= 0 or overlap < MIN_OVERLAP * shorter:
        return ""
    pa, pb = writer_process(a.name), writer_process(b.name)
    signs = []
    if pa is not None and pb is not None:
        if pa == pb:
            return ""  # one process, two writers
        signs.append(
            f"different processes (host {pa[0]} pid {pa[1]}, "
            f"host {pb[0]} pid {pb[1]})"
        )
    steps_lo = max(a.first_step, b.first_step)
    steps_hi = min(a.last_step, b.last_step)
    if a.name in repeated and b.name in repeated and steps_lo <= steps_hi:
        signs.append(f"both logged steps in {steps_lo}–{steps_hi}")
    if not signs:
        return ""
    return (
        f"{a.name} and {b.name}: wall times overlap {overlap:.1f} s "
        f"({overlap / shorter:.0%} of the shorter file); " + "; ".join(signs)
    )
