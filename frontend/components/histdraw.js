// How a histogram chart's series reach uPlot's canvas: bars spanning their
// own bucket edges, filled step outlines on the edges, and the y = 0 line.
// uPlot places points at the bucket centres; these paths use the edges, so
// uneven buckets and the ends of the range are exact.

import { cssVar } from "../theme.js";

/** @typedef {import("../vendor/uplot/uPlot.esm.js").default} uPlot */

/** Gap between neighbouring bars, in CSS pixels. */
const BAR_GAP_PX = 1;

/**
 * @param {() => number[]} getEdges the chart's bucket edges at draw time
 * @returns {uPlot.Series.PathBuilder} bars spanning their own edges
 */
export function barPath(getEdges) {
  return (u, seriesIdx, idx0, idx1) => {
    const values = u.data[seriesIdx];
    const edges = getEdges();
    const fill = new Path2D();
    const base = u.valToPos(0, "y", true);
    const gap = BAR_GAP_PX * devicePixelRatio;
    for (let i = idx0; i <= idx1; i++) {
      const v = values[i];
      if (v == null || v === 0) continue;
      const left = u.valToPos(edges[i], "x", true);
      const right = u.valToPos(edges[i + 1], "x", true);
      const width = right - left;
      // Thin buckets lose their gap rather than vanish.
      const g = width > 4 * gap ? gap : 0;
      const top = u.valToPos(v, "y", true);
      const y = Math.min(top, base);
      const height = Math.max(Math.abs(base - top), 1);
      fill.rect(left + g / 2, y, Math.max(width - g, 1), height);
    }
    return {
      stroke: null,
      fill,
      clip: null,
      band: null,
      gaps: null,
      flags: 0,
    };
  };
}

/**
 * @param {() => number[]} getEdges the chart's bucket edges at draw time
 * @returns {uPlot.Series.PathBuilder} a filled step outline on the edges
 */
export function stepPath(getEdges) {
  return (u, seriesIdx, idx0, idx1) => {
    const values = u.data[seriesIdx];
    const edges = getEdges();
    const stroke = new Path2D();
    const fill = new Path2D();
    const base = u.valToPos(0, "y", true);
    let open = false;
    let lastX = 0;
    const close = () => {
      if (!open) return;
      stroke.lineTo(lastX, base);
      fill.lineTo(lastX, base);
      fill.closePath();
      open = false;
    };
    for (let i = idx0; i <= idx1; i++) {
      const v = values[i];
      if (v == null) {
        close();
        continue;
      }
      const left = u.valToPos(edges[i], "x", true);
      const right = u.valToPos(edges[i + 1], "x", true);
      const y = u.valToPos(v, "y", true);
      if (!open) {
        stroke.moveTo(left, base);
        fill.moveTo(left, base);
        open = true;
      }
      stroke.lineTo(left, y);
      stroke.lineTo(right, y);
      fill.lineTo(left, y);
      fill.lineTo(right, y);
      lastX = right;
    }
    close();
    return { stroke, fill, clip: null, band: null, gaps: null, flags: 0 };
  };
}

/**
 * Draws y = 0 across the plot (signed values).
 * @param {any} u the uPlot instance
 */
export function drawZeroLine(u) {
  const y = Math.round(u.valToPos(0, "y", true)) + 0.5;
  const { ctx } = u;
  ctx.save();
  ctx.strokeStyle = cssVar("--chart-axis", "#666");
  ctx.globalAlpha = 0.6;
  ctx.lineWidth = 1;
  ctx.beginPath();
  ctx.moveTo(u.bbox.left, y);
  ctx.lineTo(u.bbox.left + u.bbox.width, y);
  ctx.stroke();
  ctx.restore();
}
