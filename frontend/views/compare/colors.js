// Run colours without collisions. colors.js hashes a run name into ten
// colours, so with seven runs two or three often share one (in the demo
// logdir paddle_hapi, paddle_tbx and tf2_loop do), and their curves cannot
// be told apart. Here every run of the logdir gets its hashed colour unless
// an earlier run (by name) took it, then the next free one. The answer
// depends on the set of runs only, so a run has the same colour in every
// chart, list and view that uses this module.

import { colorForRun, fnv1a, RUN_PALETTE } from "../../colors.js";

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
