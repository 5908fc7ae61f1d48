"""Data as a provider hands it over, turned into what the store holds.

Histograms arrive as (k, 3) `[left, right, count]` tensors. A TF2 tensor is
normalised as the files source normalises it; a legacy `HistogramProto`
that the provider converted (the Rust data server: `[min, l0], [l0, l1],
..., [l, max]` with an empty, backwards first bucket; the Python
multiplexer: trimmed, float32, named by its tag) goes back through the
legacy rules, so both sources give the same edges and counts. Layouts
arrive as string tensors holding a serialized `tensorboard.Layout`.
"""

from __future__ import annotations

import logging
from typing import Any, Mapping

import numpy as np
from google.protobuf import json_format
from google.protobuf.message import DecodeError
from tensorboard.plugins.custom_scalar import layout_pb2

from tb_multiframework.ingest import histograms
from tb_multiframework.store.store import Store

logger = logging.getLogger(__name__)


def converted_legacy(triples: np.ndarray) -> bool:
    """Whether a (k, 3) histogram is the Rust server's HistogramProto form.

    Its first bucket runs from the data's min to the proto's first limit;
    PyTorch and tensorboardX always log an empty bucket left of the data,
    so that bucket is empty and ends where (or before) it starts.
    """
    if triples.ndim != 2 or triples.shape[1] != 3 or len(triples) < 2:
        return False
    left, right, count = triples[0]
    return bool(count == 0 and right <= left)


def normalise(
    triples: np.ndarray, *, legacy: bool
) -> tuple[np.ndarray, np.ndarray]:
    """Edges and counts exactly as the files source makes them.

    A converted `HistogramProto` holds [min, l0], [l0, l1], ..., [l, max]:
    its min, max and limits go back through the legacy rules; a TF2 tensor
    through the tensor rules.
    """
    if legacy and triples.ndim == 2 and triples.shape[1] == 3 and len(triples):
        return histograms.from_bucket_limits(
            triples[0, 0],
            triples[-1, 1],
            triples[:, 1].tolist(),
            triples[:, 2].tolist(),
        )
    return histograms.from_bucket_triples(triples)


def add_layouts(
    scratch: Store, run: str, series: Mapping[str, list[Any]]
) -> None:
    """Adds a run's logged custom-scalar layouts; undecodable ones are
    logged and skipped."""
    for data in series.values():
        for datum in data:
            for raw in np.asarray(datum.numpy, dtype=object).reshape(-1):
                try:
                    layout = layout_pb2.Layout.FromString(bytes(raw))
                except (DecodeError, TypeError) as error:
                    logger.warning("%s: undecodable layout: %s", run, error)
                    continue
                scratch.add_layout(
                    run,
                    int(datum.step),
                    json_format.MessageToDict(
                        layout, preserving_proto_field_name=True
                    ),
                )
