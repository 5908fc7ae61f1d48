// The step table's numbers: every run's value at a chosen x (the last
// point logged at or before it, never extrapolated), its difference to the
// baseline and its rank; and the table as Markdown.

/**
 * @typedef {Object} StepRow
 * @property {string} run
 * @property {string} tag
 * @property {number | null} value null: no point at or before x
 * @property {number | bigint | null} step the logged step of that point
 * @property {number | null} at that point's x on the axis
 * @property {'before' | 'ended' | 'excluded' | null} gap x before its first
 *     point (no value), after its last (the value is the last point's), or
 *     no place on the axis (no value)
 * @property {number | null} diff value − baseline (or ÷), null if none
 * @property {number | null} rank 1 = best; null without a finite value
 */

/**
 * The value of each series at `x`: its last point at or before `x` (never
 * a value between or after points; `gap: 'ended'` marks a series whose
 * last point is before `x`). `response` is a `GET scalars` answer for a window around
 * `x` (xMin = xMax = x: the points at `x` and one on each side).
 * @param {{series: any[]}} response
 * @param {number} x
 * @returns {StepRow[]}
 */
export function valuesAt(response, x) {
  /** @type {StepRow[]} */
  const rows = [];
  for (const series of response.series ?? []) {
    if (series.superseded) continue;
    /** @type {StepRow} */
    const row = {
      run: series.run,
      tag: series.tag,
      value: null,
      step: null,
      at: null,
      gap: null,
      diff: null,
      rank: null,
    };
    rows.push(row);
    if (series.excluded) {
      row.gap = "excluded";
      continue;
    }
    const xs = series.x;
    let index = -1;
    let goesOn = false;
    for (let i = 0; i < xs.length; i++) {
      if (xs[i] <= x) index = i;
      if (xs[i] >= x) goesOn = true;
    }
    if (index < 0) {
      row.gap = "before";
      continue;
    }
    // Its last point, before x: still its value at x (the step says which).
    if (!goesOn) row.gap = "ended";
    row.step = series.steps?.[index] ?? null;
    row.at = Number(xs[index]);
    const y = series.y[index];
    row.value = typeof y === "number" ? y : Number(y);
  }
  return rows;
}

/**
 * Fills `diff` (against the baseline run's value) and `rank` (1 = best:
 * lowest for `min`, highest for `max`, ascending when unknown; equal values
 * share a rank, the next one skips: 1, 2, 2, 4).
 * @param {StepRow[]} rows
 * @param {{direction: 'min' | 'max' | null, baseline: string | null,
 *     diffMode: 'difference' | 'ratio'}} options
 * @returns {StepRow[]} the same rows
 */
export function rankAndDiff(rows, { direction, baseline, diffMode }) {
  const base = rows.find((r) => r.run === baseline && r.value !== null);
  const b = base?.value ?? null;
  for (const row of rows) {
    row.diff = null;
    row.rank = null;
    if (row.value === null || b === null || !Number.isFinite(row.value)) {
      continue;
    }
    row.diff = diffMode === "ratio" ? row.value / b : row.value - b;
  }
  const finite = rows.filter(
    (r) => r.value !== null && Number.isFinite(r.value),
  );
  const better =
    direction === "max"
      ? (/** @type {number} */ a, /** @type {number} */ c) => a > c
      : (/** @type {number} */ a, /** @type {number} */ c) => a < c;
  for (const row of finite) {
    const value = /** @type {number} */ (row.value);
    row.rank =
      1 +
      finite.filter((o) => better(/** @type {number} */ (o.value), value))
        .length;
  }
  return rows;
}

/**
 * Escapes a cell of a Markdown table (pipes, line breaks).
 * @param {string} text
 * @returns {string}
 */
function cell(text) {
  return text
    .replaceAll("\\", "\\\\")
    .replaceAll("|", "\\|")
    .replace(/\s+/g, " ");
}

/**
 * The table as GitHub Markdown; numbers with every digit they have
 * (shortest round-trip form), so they read back exactly.
 * @param {StepRow[]} rows in the table's order
 * @param {{metric: string, axis: string, x: number, diffHeader: string | null,
 *     headers: {run: string, step: string, value: string, rank: string}}} info
 * @returns {string}
 */
export function markdownTable(rows, info) {
  const number = (/** @type {number | bigint | null} */ v) =>
    v === null ? "" : String(v);
  const head = [
    info.headers.run,
    info.headers.step,
    info.headers.value,
    ...(info.diffHeader ? [info.diffHeader] : []),
    info.headers.rank,
  ];
  const lines = [
    `**${cell(info.metric)}** at ${cell(info.axis)} ${number(info.x)}`,
    "",
    `| ${head.map(cell).join(" | ")} |`,
    `| ${head.map((_, i) => (i === 0 ? "---" : "---:")).join(" | ")} |`,
  ];
  for (const row of rows) {
    const cells = [
      cell(row.run),
      number(row.step),
      number(row.value),
      ...(info.diffHeader ? [number(row.diff)] : []),
      number(row.rank),
    ];
    lines.push(`| ${cells.join(" | ")} |`);
  }
  return `${lines.join("\n")}\n`;
}

/**
 * The distinct finite x of the drawn series, ascending: the positions the
 * step selector snaps to.
 * @param {{series: any[]} | null} response
 * @returns {number[]}
 */
export function pickablePositions(response) {
  const seen = new Set();
  for (const series of response?.series ?? []) {
    if (series.excluded || series.superseded) continue;
    for (const x of series.x) if (Number.isFinite(x)) seen.add(Number(x));
  }
  return [...seen].sort((a, b) => a - b);
}

/**
 * The position nearest to `x` (ties: the lower).
 * @param {number[]} positions ascending
 * @param {number} x
 * @returns {number | null}
 */
export function nearestPosition(positions, x) {
  let best = null;
  for (const p of positions) {
    if (best === null || Math.abs(p - x) < Math.abs(best - x)) best = p;
  }
  return best;
}
