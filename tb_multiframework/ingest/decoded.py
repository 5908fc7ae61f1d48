"""What a format reader hands to the loader: one chunk of a file, decoded."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np


@dataclasses.dataclass
class Histogram:
    step: int
    wall_time: float
    edges: np.ndarray
    counts: np.ndarray


@dataclasses.dataclass
class DecodedChunk:
    """Everything decoded from one chunk of one file.

    Scalars are columnar, in logged order; `scalar_tag_ids` index
    `scalar_tags`.
    """

    scalar_tags: list[str] = dataclasses.field(default_factory=list)
    scalar_tag_ids: np.ndarray = dataclasses.field(
        default_factory=lambda: np.zeros(0, dtype=np.int64)
    )
    steps: np.ndarray = dataclasses.field(
        default_factory=lambda: np.zeros(0, dtype=np.int64)
    )
    wall_times: np.ndarray = dataclasses.field(
        default_factory=lambda: np.zeros(0)
    )
    values: np.ndarray = dataclasses.field(default_factory=lambda: np.zeros(0))
    # Record index of each scalar point in the chunk, to order points
    # against `session_starts`.
    scalar_records: np.ndarray = dataclasses.field(
        default_factory=lambda: np.zeros(0, dtype=np.int64)
    )
    # (record index, step, wall time) of each `SessionLog.START` event.
    session_starts: list[tuple[int, int, float]] = dataclasses.field(
        default_factory=list
    )
    histograms: dict[str, list[Histogram]] = dataclasses.field(
        default_factory=dict
    )
    layouts: list[tuple[int, dict[str, Any]]] = dataclasses.field(
        default_factory=list
    )
    # Evidence for framework detection.
    file_versions: set[str] = dataclasses.field(default_factory=set)
    source_writers: set[str] = dataclasses.field(default_factory=set)
    other_tags: dict[str, set[str]] = dataclasses.field(default_factory=dict)
    display_names: dict[str, str] = dataclasses.field(default_factory=dict)
    run_display_name: str = ""
    # Hyper-parameter sources (core.hparams.HParamSource), in logged order.
    hparams: list[Any] = dataclasses.field(default_factory=list)
    problems: list[str] = dataclasses.field(default_factory=list)
    num_records: int = 0

    def scalar_groups(self) -> list[tuple[str, np.ndarray]]:
        """(tag, indices into the columns in logged order) per scalar tag."""
        if len(self.scalar_tag_ids) == 0:
            return []
        order = np.argsort(self.scalar_tag_ids, kind="stable")
        sorted_ids = self.scalar_tag_ids[order]
        cuts = np.flatnonzero(np.diff(sorted_ids)) + 1
        return [
            (self.scalar_tags[int(sorted_ids[group[0]])], order[group])
            for group in np.split(np.arange(len(order)), cuts)
        ]


class ScalarColumns:
    """Builder of columnar scalars from a vectorised part and a slow part.

    Points carry their record index so the two parts interleave back into
    logged order.
    """

    def __init__(self) -> None:
        self._tags: dict[str, int] = {}
        self._parts: list[tuple[np.ndarray, ...]] = []
        self.records: list[int] = []
        self.tag_ids: list[int] = []
        self.steps: list[int] = []
        self.wall_times: list[float] = []
        self.values: list[float] = []

    def tag_id(self, tag: str) -> int:
        found = self._tags.get(tag)
        if found is None:
            found = self._tags[tag] = len(self._tags)
        return found

    def add_vectorised(
        self,
        records: np.ndarray,
        tags: list[str],
        local_ids: np.ndarray,
        steps: np.ndarray,
        wall_times: np.ndarray,
        values: np.ndarray,
    ) -> None:
        mapping = np.array([self.tag_id(tag) for tag in tags], dtype=np.int64)
        self._parts.append(
            (records, mapping[local_ids], steps, wall_times, values)
        )

    def add(
        self, record: int, tag: str, step: int, wall: float, value: float
    ) -> None:
        self.records.append(record)
        self.tag_ids.append(self.tag_id(tag))
        self.steps.append(step)
        self.wall_times.append(wall)
        self.values.append(value)

    def fill(self, chunk: DecodedChunk) -> None:
        """Writes the merged columns, in logged order, into `chunk`."""
        parts = list(self._parts)
        if self.records:
            parts.append(
                (
                    np.array(self.records, dtype=np.int64),
                    np.array(self.tag_ids, dtype=np.int64),
                    np.array(self.steps, dtype=np.int64),
                    np.array(self.wall_times, dtype=np.float64),
                    np.array(self.values, dtype=np.float64),
                )
            )
        chunk.scalar_tags = list(self._tags)
        if not parts:
            return
        records, tag_ids, steps, walls, values = (
            np.concatenate(column) for column in zip(*parts)
        )
        if len(parts) > 1:
            order = np.argsort(records, kind="stable")
            records, tag_ids, steps, walls, values = (
                records[order],
                tag_ids[order],
                steps[order],
                walls[order],
                values[order],
            )
        chunk.scalar_records = records
        chunk.scalar_tag_ids = tag_ids
        chunk.steps = steps
        chunk.wall_times = walls
        chunk.values = values
