"""Oscillations: a regular up-and-down with a fixed period.

The series is cut into windows of `W` points (a power of two up to
`MAX_WINDOW`), each detrended with a least-squares parabola, tapered with
a Hann window and Fourier-transformed, all windows at once. In every
octave of frequencies the median power is the noise floor there (so red
noise, stronger at low frequencies, is judged against its own octave). A
window oscillates when one frequency with at least `MIN_CYCLES` cycles in
the window carries `OSCILLATION_POWER` x its octave's median power.
Windows that agree on the period are merged into one range; one window
alone must be twice as clear.
"""

from __future__ import annotations

import math

import numpy as np

from .base import Anomaly, Prepared, fmt, fmt_step, say
from .robust import TINY, robust_range, severity

MIN_OSCILLATION_SERIES = 64  # points a series needs
MAX_WINDOW = 1024  # points per Fourier window
MIN_CYCLES = 4  # cycles a window must hold of a period
OSCILLATION_POWER = 30.0  # peak power / median power of its octave
PERIOD_AGREEMENT = 0.15  # relative difference of periods that agree
LOBE = 3  # bins from a peak to its shoulders (past the Hann main lobe)
PEAK_OVER_SHOULDERS = 4.0  # peak power / the larger shoulder's
MIN_AMPLITUDE = 1e-3  # smallest swing, relative to the level


def _windows(n: int) -> tuple[int, np.ndarray]:
    if n < 256:
        return n, np.array([0])
    width = min(MAX_WINDOW, 1 << int(math.log2(n / 2)))
    starts = np.arange(0, n - width + 1, width)
    if starts[-1] + width < n:
        starts = np.r_[starts, n - width]
    return width, starts


def _octave_bands(half: int) -> list[tuple[int, int]]:
    """Frequency bins [lo, hi) of each octave from MIN_CYCLES up."""
    edges = [MIN_CYCLES]
    while edges[-1] < half + 1:
        edges.append(min(half + 1, edges[-1] * 2))
    bands = list(zip(edges[:-1], edges[1:]))
    # Octaves of fewer than 12 bins join the next: a peak's main lobe
    # (3 bins) must not be the median of its own band.
    merged: list[tuple[int, int]] = []
    for lo, hi in bands:
        if merged and merged[-1][1] - merged[-1][0] < 12:
            merged[-1] = (merged[-1][0], hi)
        else:
            merged.append((lo, hi))
    if len(merged) > 1 and merged[-1][1] - merged[-1][0] < 12:
        last = merged.pop()
        merged[-1] = (merged[-1][0], last[1])
    return merged


def detect_oscillation(p: Prepared) -> list[Anomaly]:
    """Ranges where one period dominates the detrended curve."""
    n = len(p)
    if n < MIN_OSCILLATION_SERIES:
        return []
    width, starts = _windows(n)
    half = width // 2
    if half + 1 - MIN_CYCLES < 12:
        return []
    frames_raw = p.y[starts[:, None] + np.arange(width)[None, :]]
    t = np.linspace(-1.0, 1.0, width)
    basis, _ = np.linalg.qr(np.stack([np.ones(width), t, t * t], axis=1))
    frames = frames_raw - (frames_raw @ basis) @ basis.T
    spectrum = np.fft.rfft(frames * np.hanning(width)[None, :], axis=1)
    power = spectrum.real**2 + spectrum.imag**2
    normalized = np.zeros_like(power)
    for lo, hi in _octave_bands(half):
        floor = np.median(power[:, lo:hi], axis=1, keepdims=True)
        normalized[:, lo:hi] = power[:, lo:hi] / np.maximum(floor, TINY)
    normalized[:, :MIN_CYCLES] = 0.0
    # A peak stands out of its neighbourhood (outside the Hann main lobe);
    # a smooth residual's spectrum just falls off and has no such peak.
    padded = np.pad(power, ((0, 0), (LOBE, LOBE)), mode="edge")
    shoulders = np.maximum(padded[:, : -2 * LOBE], padded[:, 2 * LOBE :])
    normalized[power < PEAK_OVER_SHOULDERS * shoulders] = 0.0
    peak = normalized.argmax(axis=1)
    rows = np.arange(len(starts))
    ratio = normalized[rows, peak]
    periods = width / _refine(power, peak)
    amplitude = _amplitude(power, peak, width)
    # Too small to matter (or rounding patterns of a smooth curve): the
    # swing must be MIN_AMPLITUDE of the window's level or the range.
    level = np.abs(np.median(frames_raw, axis=1))
    floor = MIN_AMPLITUDE * np.maximum(level, 1e-3 * robust_range(p.y))
    flagged = (ratio >= OSCILLATION_POWER) & (amplitude >= floor)
    out: list[Anomaly] = []
    i = 0
    while i < len(starts):
        if not flagged[i]:
            i += 1
            continue
        j = i
        while (
            j + 1 < len(starts)
            and flagged[j + 1]
            and abs(periods[j + 1] - periods[i])
            <= PERIOD_AGREEMENT * periods[i]
        ):
            j += 1
        best = int(i + np.argmax(ratio[i : j + 1]))
        alone = j == i and len(starts) > 1
        if not alone or ratio[best] >= 2 * OSCILLATION_POWER:
            out.append(
                _anomaly(
                    p, starts, width, (i, j, best), ratio, periods, amplitude
                )
            )
        i = j + 1
    return out


def _refine(power: np.ndarray, peak: np.ndarray) -> np.ndarray:
    """The peak frequency between bins (parabola through log powers)."""
    rows = np.arange(len(peak))
    k = np.clip(peak, 1, power.shape[1] - 2)
    left = np.log(power[rows, k - 1] + TINY)
    mid = np.log(power[rows, k] + TINY)
    right = np.log(power[rows, k + 1] + TINY)
    curve = left - 2 * mid + right
    shift = np.where(
        curve < 0, 0.5 * (left - right) / np.where(curve < 0, curve, -1.0), 0.0
    )
    return k + np.clip(shift, -0.5, 0.5)


def _amplitude(power: np.ndarray, peak: np.ndarray, width: int) -> np.ndarray:
    """Half the swing of a sinusoid with the peak's power (Hann window:
    the main lobe holds 1.5 x the centre bin's power)."""
    rows = np.arange(len(peak))
    k = np.clip(peak, 1, power.shape[1] - 2)
    lobe = power[rows, k - 1] + power[rows, k] + power[rows, k + 1]
    return 4.0 * np.sqrt(lobe / 1.5) / width


def _anomaly(
    p: Prepared,
    starts: np.ndarray,
    width: int,
    where: tuple[int, int, int],
    ratio: np.ndarray,
    periods: np.ndarray,
    amplitude: np.ndarray,
) -> Anomaly:
    i, j, best = where
    first = int(starts[i])
    last = int(starts[j]) + width - 1
    spacing = (p.step_at(len(p) - 1) - p.step_at(0)) / max(1, len(p) - 1)
    period_steps = float(periods[best] * spacing)
    swing = float(amplitude[best])
    message = say(
        "anomaly.oscillation",
        period=fmt(period_steps),
        amplitude=fmt(swing),
        stepFrom=fmt_step(p.step_at(first)),
        stepTo=fmt_step(p.step_at(last)),
    )
    return p.anomaly(
        "oscillation",
        first,
        last,
        severity(float(ratio[best]) / OSCILLATION_POWER, full=10.0),
        message,
        {
            "period": period_steps,
            "periodPoints": float(periods[best]),
            "amplitude": swing,
            "powerRatio": float(ratio[best]),
        },
    )
