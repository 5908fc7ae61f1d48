// The Histograms view: two runs' histograms of one layer each, compared at
// aligned positions on a shared axis.
//
// Data flow (each arrow is one route, re-fetched when its arguments or the
// server's dataVersion change; superseded answers are dropped):
//   runs A, B ──histogram_pairs──> tags (suggested pairs, element counts)
//   pair, axis, bins ──histogram_distances──> positions + distances over time
//   pair, axis, bins, position ──histogram_diff──> common-edge histograms
//   run, tag, axis ──histograms──> ridge charts for context
// Everything the user chose lives in the URL state (keys in model.js KEYS).
// The view decides what to fetch and when (this file); its cards are
// pair_picker.js, controls.js, stage.js (the pair's charts, the axis
// notice), distances.js and ridges.js; choices.js holds the defaults.

import { h } from "../../dom.js";
import { t } from "../../i18n.js";
import { fetchJson } from "../../model.js";
import { KEYS as SHELL_KEYS } from "../../state.js";
import {
  axisProblem,
  defaultRuns,
  defaultTags,
  histogramRuns,
  pairColors,
  readAt,
  readAxis,
  readBins,
  readDistance,
  readMode,
} from "./choices.js";
import { PositionBar, Toolbar } from "./controls.js";
import { DistanceTable, DistanceTrend } from "./distances.js";
import { AXES, KEYS, nearestIndex } from "./model.js";
import { PairPicker } from "./pair_picker.js";
import { RidgePanel } from "./ridges.js";
import { Slot } from "./slot.js";
import { AxisNotice, Stage } from "./stage.js";

export { pairColors } from "./choices.js";

/** @typedef {import("../../app.js").ViewContext} ViewContext */
/** @typedef {import("../../model.js").RunInfo} RunInfo */
/** @typedef {import("./model.js").PairsPayload} PairsPayload */
/** @typedef {import("./model.js").DistancesPayload} DistancesPayload */
/** @typedef {import("./model.js").DiffPayload} DiffPayload */
/** @typedef {import("./model.js").HistogramsPayload} HistogramsPayload */

/** Colour of the distance-over-training line (not a run's colour). */
const TREND_COLOR = "#607d8b";
/** Most reconcile passes one change may take (runs, tags, data). */
const MAX_SYNC_PASSES = 6;

export class HistogramsView {
  /**
   * @param {HTMLElement} root
   * @param {ViewContext} ctx
   */
  constructor(root, ctx) {
    this._ctx = ctx;
    this._destroyed = false;
    this._syncing = false;
    this._syncAgain = false;
    /** A's step at the position shown before an axis change, to find on
     * the new axis (null: none pending). */
    /** @type {number | null} */
    this._carryStep = null;
    /** @type {Slot<PairsPayload>} */
    this._pairs = new Slot();
    /** @type {Slot<DistancesPayload>} */
    this._distances = new Slot();
    /** @type {Slot<DiffPayload>} */
    this._diff = new Slot();
    /** @type {{a: Slot<HistogramsPayload>, b: Slot<HistogramsPayload>}} */
    this._ridgeData = { a: new Slot(), b: new Slot() };

    const update = (/** @type {Record<string, string | null>} */ patch) =>
      this._update(patch);
    this._picker = new PairPicker(update);
    this._toolbar = new Toolbar(update);
    this._position = new PositionBar((index) => this._pickIndex(index));
    this._notice = new AxisNotice((axis) => this._update({ axis }));
    this._stage = new Stage();
    this._table = new DistanceTable((key) =>
      this._ctx.state.update({ [KEYS.distance]: key }),
    );
    this._panel = h(
      "section",
      { className: "tbmf-hist-card tbmf-hist-panel" },
      h("h3", { className: "tbmf-hist-heading", text: t("hist.distances.title") }),
      this._table.element,
    );
    this._trend = new DistanceTrend(this._panel, (index) =>
      this._pickIndex(index),
    );
    this._ridges = new RidgePanel();
    this._body = h(
      "div",
      { className: "tbmf-hist-body" },
      this._picker.element,
      h(
        "section",
        { className: "tbmf-hist-card tbmf-hist-controls" },
        this._toolbar.element,
        this._position.element,
        this._notice.element,
      ),
      h(
        "div",
        { className: "tbmf-hist-main" },
        this._stage.element,
        this._panel,
      ),
      this._ridges.element,
    );
    this._empty = h("div", { className: "tbmf-empty" });
    this.element = h(
      "div",
      { className: "tbmf-hist", dataset: { status: "loading" } },
      this._empty,
      this._body,
    );
    root.appendChild(this.element);

    this._unsubscribe = [
      ctx.catalog.subscribe((_catalog, change) => {
        if (change.dataChanged) this._sync();
      }),
      ctx.state.subscribe((changed) => {
        /** @type {string[]} */
        const keys = Object.values(KEYS);
        const ours = [...changed].some(
          (key) => keys.includes(key) || key === SHELL_KEYS.selection,
        );
        if (ours) this._sync();
      }),
    ];
    this._sync();
  }

  destroy() {
    this._destroyed = true;
    for (const fn of this._unsubscribe) fn();
    for (const slot of [
      this._pairs,
      this._distances,
      this._diff,
      this._ridgeData.a,
      this._ridgeData.b,
    ]) {
      slot.request.cancel();
    }
    this._stage.destroy();
    this._trend.destroy();
    this._ridges.destroy();
  }

  // State.

  /**
   * Applies a patch with readable names (`runA`, `axis`, ...) to the state.
   * @param {Record<string, string | null>} patch
   */
  _update(patch) {
    /** @type {Record<string, string | null>} */
    const next = {};
    for (const [name, value] of Object.entries(patch)) {
      const key = /** @type {Record<string, string>} */ (KEYS)[name];
      if (key) next[key] = value;
    }
    // The active axis clicked again changes nothing (the position stays).
    const axisChange = "axis" in patch && patch.axis !== readAxis(this._ctx);
    if (axisChange) {
      // Keep the position: A's step there is looked up on the new axis
      // once its positions arrive (_reconcile).
      const shown = this._distances.shown;
      const index = shown
        ? nearestIndex(shown.positions, readAt(this._ctx))
        : -1;
      this._carryStep = index >= 0 ? shown.stepsA[index] : null;
    }
    // Another pair: the old position means nothing there.
    if (
      axisChange ||
      ["runA", "runB", "tagA", "tagB"].some((name) => name in patch)
    ) {
      next[KEYS.at] = null;
    }
    if (!axisChange) this._carryStep = null;
    this._ctx.state.update(next);
  }

  /** @param {number} index into the positions */
  _pickIndex(index) {
    const positions = this._distances.shown?.positions ?? [];
    if (index < 0 || index >= positions.length) return;
    this._ctx.state.update({ [KEYS.at]: String(positions[index]) });
  }

  // Reconciling: compare what is shown with what the state asks for and
  // fetch what is missing. Safe to call at any time, any number of times.

  _sync() {
    if (this._destroyed) return;
    if (this._syncing) {
      this._syncAgain = true;
      return;
    }
    this._syncing = true;
    try {
      // Each pass settles one choice (runs, then tags); a bound keeps a
      // catalog that contradicts itself from looping.
      for (let pass = 0; pass < MAX_SYNC_PASSES; pass++) {
        this._syncAgain = false;
        this._reconcile();
        if (!this._syncAgain || this._destroyed) break;
      }
    } finally {
      this._syncing = false;
    }
  }

  _reconcile() {
    const { catalog, state } = this._ctx;
    if (catalog.pending) {
      this._showEmpty(t("shell.loadingRuns"), "loading");
      return;
    }
    if (catalog.error && !catalog.payload) {
      this._showEmpty(
        t("shell.loadError", { error: catalog.error.message }),
        "error",
      );
      return;
    }
    const runs = histogramRuns(this._ctx);
    if (runs.length === 0) {
      this._showEmpty(
        catalog.payload?.loading
          ? t("hist.empty.reading")
          : t("hist.empty.none"),
        catalog.payload?.loading ? "loading" : "empty",
      );
      return;
    }
    this._empty.hidden = true;
    this._body.hidden = false;

    // Runs.
    const runA = state.get(KEYS.runA);
    const runB = state.get(KEYS.runB);
    const known = new Set(runs.map((r) => r.run));
    if (!known.has(runA) || !known.has(runB)) {
      const [a, b] = defaultRuns(runs, runA, runB);
      state.update({
        [KEYS.runA]: a,
        [KEYS.runB]: b,
        [KEYS.tagA]: a === runA ? state.get(KEYS.tagA) || null : null,
        [KEYS.tagB]: b === runB ? state.get(KEYS.tagB) || null : null,
        [KEYS.at]: null,
      });
      return; // the state listener runs this again
    }
    const dataVersion = String(catalog.payload?.dataVersion ?? "");
    const pairsKey = JSON.stringify([runA, runB, dataVersion]);
    if (this._pairs.key !== pairsKey) this._loadPairs(pairsKey, runA, runB);

    // Tags.
    const infoA = /** @type {RunInfo} */ (catalog.run(runA));
    const infoB = /** @type {RunInfo} */ (catalog.run(runB));
    const tagA = state.get(KEYS.tagA);
    const tagB = state.get(KEYS.tagB);
    const validA = infoA.histogramTags.includes(tagA);
    const validB = infoB.histogramTags.includes(tagB);
    if (!validA || !validB) {
      const pairs =
        this._pairs.valueKey === pairsKey ? this._pairs.value : null;
      if (pairs === null && !this._pairs.error) {
        this._render();
        return; // wait for the suggestions to choose from
      }
      const [a, b] = defaultTags(infoA, infoB, tagA, tagB, pairs);
      state.update({ [KEYS.tagA]: a, [KEYS.tagB]: b, [KEYS.at]: null });
      return;
    }

    const axis = readAxis(this._ctx);
    const bins = readBins(this._ctx);
    const problem = axisProblem(axis, infoA, infoB);
    const distKey = JSON.stringify([
      runA,
      tagA,
      runB,
      tagB,
      axis,
      bins,
      dataVersion,
    ]);
    if (problem) {
      this._distances.clear();
      this._diff.clear();
    } else if (this._distances.key !== distKey) {
      this._loadDistances(distKey, { runA, tagA, runB, tagB, x: axis, bins });
    }
    for (const [side, run, tag] of /** @type {const} */ ([
      ["a", runA, tagA],
      ["b", runB, tagB],
    ])) {
      const key = JSON.stringify([run, tag, axis, dataVersion]);
      if (this._ridgeData[side].key !== key) {
        this._loadRidge(side, key, { run, tag, x: axis });
      }
    }

    // Position: the one asked for, matched to the nearest aligned position.
    const distances = this._distances;
    if (!problem && distances.valueKey === distKey && distances.value) {
      const positions = distances.value.positions;
      if (this._carryStep !== null && readAt(this._ctx) === null) {
        // After an axis change: the position of the same step of A.
        const steps = distances.value.stepsA;
        const carried = nearestIndex(steps, this._carryStep);
        this._carryStep = null;
        if (carried >= 0) {
          state.update({ [KEYS.at]: String(positions[carried]) });
          return;
        }
      }
      const index = nearestIndex(positions, readAt(this._ctx));
      if (index >= 0) {
        const at = positions[index];
        const diffKey = JSON.stringify([distKey, at]);
        if (this._diff.key !== diffKey) {
          this._loadDiff(diffKey, {
            runA,
            tagA,
            runB,
            tagB,
            x: axis,
            bins,
            at,
          });
        }
      } else {
        this._diff.clear();
      }
    }
    this._render();
  }

  // Loading.

  /**
   * Runs one request for a slot and re-syncs when it answers.
   * @template T
   * @param {Slot<T>} slot
   * @param {string} key
   * @param {(signal: AbortSignal) => Promise<T>} load
   */
  async _load(slot, key, load) {
    if (await slot.load(key, load, () => !this._destroyed)) this._sync();
  }

  /**
   * @param {string} key
   * @param {string} runA
   * @param {string} runB
   */
  _loadPairs(key, runA, runB) {
    void this._load(this._pairs, key, (signal) =>
      fetchJson("histogram_pairs", { runA, runB }, { signal }),
    );
  }

  /**
   * @param {string} key
   * @param {Record<string, string | number>} params
   */
  _loadDistances(key, params) {
    void this._load(this._distances, key, (signal) =>
      fetchJson("histogram_distances", params, { signal }),
    );
  }

  /**
   * @param {string} key
   * @param {Record<string, string | number>} params
   */
  _loadDiff(key, params) {
    void this._load(this._diff, key, (signal) =>
      fetchJson("histogram_diff", params, { signal }),
    );
  }

  /**
   * @param {'a' | 'b'} side
   * @param {string} key
   * @param {Record<string, string>} params
   */
  _loadRidge(side, key, params) {
    void this._load(this._ridgeData[side], key, (signal) =>
      fetchJson("histograms", params, { signal }),
    );
  }

  // Rendering.

  /**
   * @param {string} text
   * @param {string} status
   */
  _showEmpty(text, status) {
    this.element.dataset.status = status;
    this._body.hidden = true;
    this._empty.hidden = false;
    this._empty.className = `tbmf-empty${status === "error" ? " tbmf-empty--error" : ""}`;
    this._empty.textContent = text;
  }

  _render() {
    const { catalog, state } = this._ctx;
    const runs = histogramRuns(this._ctx);
    const runA = state.get(KEYS.runA);
    const runB = state.get(KEYS.runB);
    const tagA = state.get(KEYS.tagA);
    const tagB = state.get(KEYS.tagB);
    const colors = pairColors(catalog, runA, runB);
    const axis = readAxis(this._ctx);
    const bins = readBins(this._ctx);
    const infoA = catalog.run(runA);
    const infoB = catalog.run(runB);

    const pairs = this._pairs.value;
    this._picker.render({
      runs,
      runA,
      runB,
      tagA,
      tagB,
      colors,
      pairs: pairs && pairs.runA === runA && pairs.runB === runB ? pairs : null,
      pairsLoading: this._pairs.loading,
      pairsError: this._pairs.error,
    });

    /** @type {Record<string, string>} */
    const axisProblems = {};
    if (infoA && infoB) {
      for (const a of AXES) {
        const problem = axisProblem(a.id, infoA, infoB);
        if (problem) axisProblems[a.id] = problem;
      }
    }
    this._toolbar.render({
      axis,
      bins,
      mode: readMode(this._ctx),
      axisProblems,
    });

    const distances = this._distances;
    const shown = axisProblems[axis] ? null : distances.shown;
    const positions = shown?.positions ?? [];
    const index = shown ? nearestIndex(positions, readAt(this._ctx)) : -1;
    if (shown) {
      this._position.render({
        axis,
        positions,
        positionsB: shown.positionsB,
        stepsA: shown.stepsA,
        stepsB: shown.stepsB,
        index,
        colors,
      });
    } else {
      this._position.element.hidden = true;
    }
    this._notice.render({
      axis,
      problem: axisProblems[axis] ?? "",
      positions,
      distances,
      ridgeA: this._ridgeData.a.shown,
      ridgeB: this._ridgeData.b.shown,
      infoA,
      infoB,
    });
    this._stage.render({
      diff: this._diff,
      distances,
      mode: readMode(this._ctx),
      colors,
      problem: axisProblems[axis] ?? "",
      positionCount: positions.length,
    });

    const diff = this._diff.shown;
    const diffShown = diff !== null && index >= 0 && !axisProblems[axis];
    this._table.render(diffShown ? diff : null, readDistance(this._ctx), {
      bins,
    });
    this._panel.classList.toggle(
      "is-stale",
      this._diff.loading || this._distances.loading,
    );
    this._trend.render({
      distances: shown,
      key: readDistance(this._ctx),
      index,
      color: TREND_COLOR,
      axis,
    });
    this._renderRidges(colors, axis, index);

    const busy =
      this._pairs.loading ||
      this._distances.loading ||
      this._diff.loading ||
      this._ridgeData.a.loading ||
      this._ridgeData.b.loading;
    this.element.dataset.status = busy ? "loading" : "ready";
  }

  /**
   * @param {{a: string, b: string}} colors
   * @param {string} axis
   * @param {number} index current position, -1 for none
   */
  _renderRidges(colors, axis, index) {
    const state = this._ctx.state;
    const distances = this._distances.shown;
    this._ridges.render({
      colors,
      axis,
      slots: this._ridgeData,
      runs: { a: state.get(KEYS.runA), b: state.get(KEYS.runB) },
      tags: { a: state.get(KEYS.tagA), b: state.get(KEYS.tagB) },
      highlightStep: {
        a: index >= 0 && distances ? distances.stepsA[index] : null,
        b: index >= 0 && distances ? distances.stepsB[index] : null,
      },
      onPick: (entry) => {
        const positions = this._distances.shown?.positions ?? [];
        if (entry.x === null || positions.length === 0) return;
        this._pickIndex(nearestIndex(positions, entry.x));
      },
    });
  }
}
