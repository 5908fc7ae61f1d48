"""Chooses the run palette of frontend/colors.js (RUN_PALETTE) and prints it.

Why a script: 50-run sweeps need more than ten colours, and "distinct" has
to hold for the viewers with colour-vision deficiencies too. The choice is
reproducible and can be re-run when the candidates or rules change.

Method:
* candidates: Tableau 20, Kelly's 22 colours of maximum contrast, Paul Tol's
  bright, vibrant and muted sets and Okabe-Ito (all published palettes);
* keep those that read as a line on both backgrounds of the tab: WCAG
  contrast >= 2.2 against the light surface (#ffffff) and >= 2.0 against the
  dark one (#383838);
* add to them a grid in CIE LCh (L 40..72, C 35..80, every 10 degrees of
  hue) so the choice is not limited to what the published sets hold;
* start from Tableau's blue (the first run keeps the colour it had), then
  add greedily the candidate whose smallest distance to the chosen ones is
  largest. Distance: min(CIEDE2000 with normal vision, 2 x the smaller
  CIEDE2000 as seen with deuteranopia or protanopia (Machado et al. 2009,
  severity 1.0)). Colours are handed out in this order, so every prefix is
  as well separated as the method allows: the first 8 are >= 19 apart.

Prints the palette as a JS array and the smallest pairwise distances.
Usage: python scripts/make_run_palette.py [--size 24]
"""

from __future__ import annotations

import argparse

import numpy as np

FIRST = "#1f77b4"  # Tableau's blue, the first run's colour so far
CANDIDATES = {
    "tableau20": [
        "#aec7e8", "#ffbb78", "#98df8a", "#ff9896", "#c5b0d5",
        "#c49c94", "#f7b6d2", "#c7c7c7", "#dbdb8d", "#9edae5",
    ],
    "kelly": [
        "#f3c300", "#875692", "#f38400", "#a1caf1", "#be0032", "#c2b280",
        "#848482", "#008856", "#e68fac", "#0067a5", "#f99379", "#604e97",
        "#f6a600", "#b3446c", "#dcd300", "#882d17", "#8db600", "#654522",
        "#e25822", "#2b3d26",
    ],
    "tol_bright": [
        "#4477aa", "#66ccee", "#228833", "#ccbb44", "#ee6677", "#aa3377",
    ],
    "tol_vibrant": [
        "#0077bb", "#33bbee", "#009988", "#ee7733", "#cc3311", "#ee3377",
    ],
    "tol_muted": [
        "#332288", "#88ccee", "#44aa99", "#117733", "#999933", "#ddcc77",
        "#cc6677", "#882255", "#aa4499",
    ],
    "okabe_ito": [
        "#e69f00", "#56b4e9", "#009e73", "#f0e442", "#0072b2", "#d55e00",
        "#cc79a7",
    ],
}  # fmt: skip
LIGHT_SURFACE = "#ffffff"
DARK_SURFACE = "#383838"
MIN_CONTRAST_LIGHT = 2.2
MIN_CONTRAST_DARK = 2.0

# Machado, Oliveira & Fernandes (2009), severity 1.0, on linear RGB.
DEUTAN = np.array(
    [
        [0.367322, 0.860646, -0.227968],
        [0.280085, 0.672501, 0.047413],
        [-0.011820, 0.042940, 0.968881],
    ]
)
PROTAN = np.array(
    [
        [0.152286, 1.052583, -0.204868],
        [0.114503, 0.786281, 0.099216],
        [-0.003882, -0.048116, 1.051998],
    ]
)


def hex_to_rgb(color: str) -> np.ndarray:
    value = int(color[1:], 16)
    return (
        np.array([(value >> 16) & 255, (value >> 8) & 255, value & 255]) / 255
    )


def to_linear(rgb: np.ndarray) -> np.ndarray:
    return np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)


def luminance(color: str) -> float:
    return float(to_linear(hex_to_rgb(color)) @ [0.2126, 0.7152, 0.0722])


def contrast(a: str, b: str) -> float:
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def linear_to_lab(lin: np.ndarray) -> np.ndarray:
    m = np.array(
        [
            [0.4124564, 0.3575761, 0.1804375],
            [0.2126729, 0.7151522, 0.0721750],
            [0.0193339, 0.1191920, 0.9503041],
        ]
    )
    xyz = m @ np.clip(lin, 0, 1) / np.array([0.95047, 1.0, 1.08883])
    f = np.where(xyz > 216 / 24389, np.cbrt(xyz), (24389 / 27 * xyz + 16) / 116)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def ciede2000(lab1: np.ndarray, lab2: np.ndarray) -> float:
    """CIEDE2000 colour difference (Sharma, Wu & Dalal 2005)."""
    l1, a1, b1 = lab1
    l2, a2, b2 = lab2
    c1, c2 = np.hypot(a1, b1), np.hypot(a2, b2)
    cm = (c1 + c2) / 2
    g = 0.5 * (1 - np.sqrt(cm**7 / (cm**7 + 25**7)))
    a1p, a2p = (1 + g) * a1, (1 + g) * a2
    c1p, c2p = np.hypot(a1p, b1), np.hypot(a2p, b2)
    h1p = np.degrees(np.arctan2(b1, a1p)) % 360
    h2p = np.degrees(np.arctan2(b2, a2p)) % 360
    dl, dc = l2 - l1, c2p - c1p
    dh = h2p - h1p
    if c1p * c2p == 0:
        dh = 0.0
    elif dh > 180:
        dh -= 360
    elif dh < -180:
        dh += 360
    dhh = 2 * np.sqrt(c1p * c2p) * np.sin(np.radians(dh / 2))
    lm, cmp_ = (l1 + l2) / 2, (c1p + c2p) / 2
    hm = h1p + h2p
    if c1p * c2p != 0:
        if abs(h1p - h2p) > 180:
            hm = (hm + 360) / 2 if hm < 360 else (hm - 360) / 2
        else:
            hm /= 2
    t = (
        1
        - 0.17 * np.cos(np.radians(hm - 30))
        + 0.24 * np.cos(np.radians(2 * hm))
        + 0.32 * np.cos(np.radians(3 * hm + 6))
        - 0.20 * np.cos(np.radians(4 * hm - 63))
    )
    sl = 1 + 0.015 * (lm - 50) ** 2 / np.sqrt(20 + (lm - 50) ** 2)
    sc = 1 + 0.045 * cmp_
    sh = 1 + 0.015 * cmp_ * t
    rt = (
        -2
        * np.sqrt(cmp_**7 / (cmp_**7 + 25**7))
        * np.sin(np.radians(60 * np.exp(-(((hm - 275) / 25) ** 2))))
    )
    return float(
        np.sqrt(
            (dl / sl) ** 2
            + (dc / sc) ** 2
            + (dhh / sh) ** 2
            + rt * (dc / sc) * (dhh / sh)
        )
    )


def views(color: str) -> list[np.ndarray]:
    """Lab of the colour as seen with normal vision, deutan and protan."""
    lin = to_linear(hex_to_rgb(color))
    return [linear_to_lab(lin), linear_to_lab(DEUTAN @ lin),
            linear_to_lab(PROTAN @ lin)]  # fmt: skip


def distance(a: str, b: str) -> float:
    """Normal-vision CIEDE2000, or twice the deficient-vision one if less."""
    normal, deutan, protan = (
        ciede2000(x, y) for x, y in zip(views(a), views(b))
    )
    return min(normal, 2 * min(deutan, protan))


def lch_to_hex(lightness: float, chroma: float, hue: float) -> str | None:
    """An sRGB colour from CIE LCh (D65), or None outside the gamut."""
    a = chroma * np.cos(np.radians(hue))
    b = chroma * np.sin(np.radians(hue))
    fy = (lightness + 16) / 116
    f = np.array([fy + a / 500, fy, fy - b / 200])
    xyz = np.where(f**3 > 216 / 24389, f**3, (116 * f - 16) / (24389 / 27))
    xyz *= np.array([0.95047, 1.0, 1.08883])
    m = np.array(
        [
            [3.2404542, -1.5371385, -0.4985314],
            [-0.9692660, 1.8760108, 0.0415560],
            [0.0556434, -0.2040259, 1.0572252],
        ]
    )
    lin = m @ xyz
    if (lin < -1e-4).any() or (lin > 1 + 1e-4).any():
        return None
    lin = np.clip(lin, 0, 1)
    srgb = np.where(
        lin <= 0.0031308, 12.92 * lin, 1.055 * lin ** (1 / 2.4) - 0.055
    )
    r, g, b = (int(round(v * 255)) for v in srgb)
    return f"#{r:02x}{g:02x}{b:02x}"


def lch_grid() -> set[str]:
    grid = set()
    for lightness in (40, 48, 56, 64, 72):
        for chroma in (35, 50, 65, 80):
            for hue in range(0, 360, 10):
                color = lch_to_hex(lightness, chroma, hue)
                if color:
                    grid.add(color)
    return grid


def readable(color: str) -> bool:
    return (
        contrast(color, LIGHT_SURFACE) >= MIN_CONTRAST_LIGHT
        and contrast(color, DARK_SURFACE) >= MIN_CONTRAST_DARK
    )


def choose(size: int) -> list[str]:
    chosen = [FIRST]
    published = {c for group in CANDIDATES.values() for c in group}
    pool = sorted((published | lch_grid()) - set(chosen))
    pool = [c for c in pool if readable(c)]
    while len(chosen) < size and pool:
        best = max(pool, key=lambda c: min(distance(c, o) for o in chosen))
        chosen.append(best)
        pool.remove(best)
    return chosen


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", type=int, default=24)
    args = parser.parse_args()
    palette = choose(args.size)
    print("export const RUN_PALETTE = Object.freeze([")
    for color in palette:
        print(f'  "{color}",')
    print("]);")
    for i, color in enumerate(palette):
        nearest = min(
            (distance(color, other), other)
            for j, other in enumerate(palette)
            if j != i
        )
        print(
            f"{i:2d} {color} contrast light {contrast(color, LIGHT_SURFACE):.2f}"
            f" dark {contrast(color, DARK_SURFACE):.2f}"
            f" nearest {nearest[1]} dE {nearest[0]:.1f}"
        )


if __name__ == "__main__":
    main()
