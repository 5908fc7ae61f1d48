// Colours shared by every view: framework badges and one stable colour a run.

/** @typedef {'pytorch' | 'tensorflow' | 'paddle' | 'unknown'} Framework */

/** Brand colours of the frameworks; `unknown` is a neutral grey. */
export const FRAMEWORK_COLORS = Object.freeze({
  pytorch: "#EE4C2C",
  tensorflow: "#FF6F00",
  paddle: "#2932E1",
  unknown: "#8A8F98",
});

/** Display names of the frameworks. */
export const FRAMEWORK_LABELS = Object.freeze({
  pytorch: "PyTorch",
  tensorflow: "TensorFlow",
  paddle: "Paddle",
  unknown: "Unknown",
});

/**
 * Run colours: Tableau 10 with its grey (which reads as "unknown") swapped
 * for indigo. Ten clearly different hues that work on the light and the dark
 * background.
 */
export const RUN_PALETTE = Object.freeze([
  "#1f77b4",
  "#ff7f0e",
  "#2ca02c",
  "#d62728",
  "#9467bd",
  "#8c564b",
  "#e377c2",
  "#5c6bc0",
  "#bcbd22",
  "#17becf",
]);

/**
 * The framework's badge colour; anything unrecognised is `unknown`.
 * @param {string} framework
 * @returns {string}
 */
export function frameworkColor(framework) {
  return (
    FRAMEWORK_COLORS[/** @type {Framework} */ (framework)] ??
    FRAMEWORK_COLORS.unknown
  );
}

/**
 * @param {string} framework
 * @returns {string}
 */
export function frameworkLabel(framework) {
  return FRAMEWORK_LABELS[/** @type {Framework} */ (framework)] ?? framework;
}

/**
 * 32-bit FNV-1a over the UTF-16 code units of `text`.
 * @param {string} text
 * @returns {number} an unsigned 32-bit integer
 */
export function fnv1a(text) {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

/**
 * The colour of a run: a function of its name alone, so a run keeps its
 * colour in every chart, after reloads and when other runs come and go.
 * @param {string} run
 * @returns {string}
 */
export function colorForRun(run) {
  return RUN_PALETTE[fnv1a(run) % RUN_PALETTE.length];
}

/**
 * `#rrggbb` plus alpha as an `rgba()` string.
 * @param {string} hex
 * @param {number} alpha 0..1
 * @returns {string}
 */
export function withAlpha(hex, alpha) {
  const value = parseInt(hex.slice(1), 16);
  const r = (value >> 16) & 255;
  const g = (value >> 8) & 255;
  const b = value & 255;
  return `rgba(${r}, ${g}, ${b}, ${alpha})`;
}

// Run colours without collisions. `colorForRun` hashes a run name into ten
// colours, so with seven runs two or three often share one (in the demo
// logdir paddle_hapi, paddle_tbx and tf2_loop do), and their curves cannot
// be told apart. `runColor` gives every run of the logdir its hashed colour
// unless an earlier run (by name) took it, then the next free one. The
// answer depends on the set of runs only, so a run has the same colour in
// every chart, list and view.

/** @type {{names: string, colors: Map<string, string>} | null} */
let cached = null;

/**
 * Colours for a set of runs: distinct while there are at most as many runs
 * as palette colours, then spread evenly.
 * @param {string[]} runs every run name of the logdir
 * @returns {Map<string, string>}
 */
export function assignRunColors(runs) {
  const sorted = [...new Set(runs)].sort();
  const names = sorted.join("\n");
  if (cached && cached.names === names) return cached.colors;
  const size = RUN_PALETTE.length;
  const uses = new Array(size).fill(0);
  /** @type {Map<string, string>} */
  const colors = new Map();
  for (const run of sorted) {
    const start = fnv1a(run) % size;
    const least = Math.min(...uses);
    let index = start;
    // Probe from the hashed colour to the first least-used one.
    for (let step = 0; step < size; step++) {
      const candidate = (start + step) % size;
      if (uses[candidate] === least) {
        index = candidate;
        break;
      }
    }
    uses[index]++;
    colors.set(run, RUN_PALETTE[index]);
  }
  cached = { names, colors };
  return colors;
}

/**
 * The colour of `run` among the catalog's runs; a run the catalog does not
 * know (yet) keeps its hashed colour.
 * @param {{runs: {run: string}[]}} catalog
 * @param {string} run
 * @returns {string}
 */
export function runColor(catalog, run) {
  return (
    assignRunColors(catalog.runs.map((r) => r.run)).get(run) ?? colorForRun(run)
  );
}
