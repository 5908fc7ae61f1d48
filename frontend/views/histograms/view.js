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

import { createRidgeChart } from "../../components/ridgechart.js";
import { RUN_PALETTE, runColor } from "../../colors.js";
import { h, setChildren } from "../../dom.js";
import { formatValue } from "../../format.js";
import { fetchJson, LatestRequest } from "../../model.js";
import { KEYS as SHELL_KEYS } from "../../state.js";
import { PositionBar, Toolbar } from "./controls.js";
import { DistanceTable, DistanceTrend } from "./distances.js";
import {
  AXES,
  DEFAULT_BINS,
  DISTANCES,
  isGradientTag,
  KEYS,
  MAX_BINS,
  MODES,
  nearestIndex,
} from "./model.js";
import { PairCharts } from "./pair_charts.js";
import { PairPicker } from "./pair_picker.js";

/** @typedef {import("../../app.js").ViewContext} ViewContext */
/** @typedef {import("../../model.js").RunInfo} RunInfo */
/** @typedef {import("./model.js").PairsPayload} PairsPayload */
/** @typedef {import("./model.js").DistancesPayload} DistancesPayload */
/** @typedef {import("./model.js").DiffPayload} DiffPayload */
/** @typedef {import("./model.js").HistogramsPayload} HistogramsPayload */
/** @typedef {import("./model.js").DistanceKey} DistanceKey */

/** Colour of the distance-over-training line (not a run's colour). */
const TREND_COLOR = "#607d8b";
/** Ridge charts share one value range unless one is this much wider. */
const MAX_SHARED_RANGE_RATIO = 20;
/** Most reconcile passes one change may take (runs, tags, data). */
const MAX_SYNC_PASSES = 6;
/** Height of each ridge chart, CSS pixels. */
const RIDGE_HEIGHT = 230;

/**
 * One kind of data: the arguments it was asked with, the last answer.
 * @template T
 */
class Slot {
  constructor() {
    this.request = new LatestRequest();
    /** Arguments of the request in flight or answered. */
    this.key = "";
    /** Arguments of `value`. */
    this.valueKey = "";
    /** @type {T | null} */
    this.value = null;
    /** @type {string | null} */
    this.error = null;
    this.loading = false;
  }

  /**
   * What to draw: the answer for the arguments asked last, or while a new
   * request is out the previous answer (drawn dimmed); nothing after a
   * failure, so an error never sits next to data it does not describe.
   * @returns {T | null}
   */
  get shown() {
    if (this.error !== null) return null;
    return this.loading || this.key === this.valueKey ? this.value : null;
  }

  clear() {
    this.request.cancel();
    this.key = "";
    this.valueKey = "";
    this.value = null;
    this.error = null;
    this.loading = false;
  }
}

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
    this._notice = h("div", {
      className: "tbmf-hist-notice",
      attrs: { role: "status" },
    });
    this._pairCharts = new PairCharts();
    this._stageMessage = h("div", { className: "tbmf-hist-message" });
    this._stage = h(
      "section",
      { className: "tbmf-hist-card tbmf-hist-stage" },
      this._pairCharts.element,
      this._stageMessage,
    );
    this._table = new DistanceTable((key) =>
      this._ctx.state.update({ [KEYS.distance]: key }),
    );
    this._panel = h(
      "section",
      { className: "tbmf-hist-card tbmf-hist-panel" },
      h("h3", { className: "tbmf-hist-heading", text: "Distances A ↔ B" }),
      this._table.element,
    );
    this._trend = new DistanceTrend(this._panel, (index) =>
      this._pickIndex(index),
    );
    this._ridgeNote = h("span", { className: "tbmf-muted" });
    this._ridgeGrid = h("div", { className: "tbmf-hist-ridges" });
    this._context = h(
      "section",
      { className: "tbmf-hist-card tbmf-hist-context" },
      h(
        "div",
        { className: "tbmf-hist-context__head" },
        h("h3", {
          className: "tbmf-hist-heading",
          text: "Histograms over training",
        }),
        this._ridgeNote,
      ),
      this._ridgeGrid,
    );
    /** @type {{a: import("../../components/ridgechart.js").RidgeChart | null, b: import("../../components/ridgechart.js").RidgeChart | null}} */
    this._ridges = { a: null, b: null };
    this._body = h(
      "div",
      { className: "tbmf-hist-body" },
      this._picker.element,
      h(
        "section",
        { className: "tbmf-hist-card tbmf-hist-controls" },
        this._toolbar.element,
        this._position.element,
        this._notice,
      ),
      h("div", { className: "tbmf-hist-main" }, this._stage, this._panel),
      this._context,
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
    this._pairCharts.destroy();
    this._trend.destroy();
    this._ridges.a?.destroy();
    this._ridges.b?.destroy();
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
    const axisChange = "axis" in patch && patch.axis !== this._axis();
    if (axisChange) {
      // Keep the position: A's step there is looked up on the new axis
      // once its positions arrive (_reconcile).
      const shown = this._distances.shown;
      const index = shown ? nearestIndex(shown.positions, this._at()) : -1;
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

  /** @returns {string} */
  _axis() {
    const axis = this._ctx.state.get(KEYS.axis);
    if (AXES.some((a) => a.id === axis)) return axis;
    // Epochs mean the same in every framework: the default when both have
    // them (not written to the URL, so a link follows the same rule).
    const a = this._ctx.catalog.run(this._ctx.state.get(KEYS.runA));
    const b = this._ctx.catalog.run(this._ctx.state.get(KEYS.runB));
    return hasEpochAxis(a) && hasEpochAxis(b) ? "epoch" : "step";
  }

  /** @returns {number} */
  _bins() {
    const bins = Number(this._ctx.state.get(KEYS.bins));
    return Number.isInteger(bins) && bins >= 1 && bins <= MAX_BINS
      ? bins
      : DEFAULT_BINS;
  }

  /** @returns {string} */
  _mode() {
    const mode = this._ctx.state.get(KEYS.mode);
    return MODES.some((m) => m.id === mode) ? mode : "all";
  }

  /** @returns {DistanceKey} */
  _distance() {
    const key = this._ctx.state.get(KEYS.distance);
    const found = DISTANCES.find((d) => d.key === key);
    return found ? found.key : "wasserstein";
  }

  /** @returns {number | null} */
  _at() {
    const raw = this._ctx.state.get(KEYS.at);
    const at = raw === "" ? NaN : Number(raw);
    return Number.isFinite(at) ? at : null;
  }

  /** @returns {RunInfo[]} runs with histograms, selected runs first */
  _histogramRuns() {
    const runs = this._ctx.catalog.runs.filter(
      (r) => (r.histogramTags ?? []).length > 0,
    );
    const selected = runs.filter((r) => this._ctx.state.isSelected(r.run));
    const others = runs.filter((r) => !this._ctx.state.isSelected(r.run));
    return [...selected, ...others];
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
      this._showEmpty("Loading runs…", "loading");
      return;
    }
    if (catalog.error && !catalog.payload) {
      this._showEmpty(
        `Cannot load the runs: ${catalog.error.message}`,
        "error",
      );
      return;
    }
    const runs = this._histogramRuns();
    if (runs.length === 0) {
      this._showEmpty(
        catalog.payload?.loading
          ? "TensorBoard is reading the logdir…"
          : "No run has histograms yet. Log some with SummaryWriter." +
              "add_histogram (PyTorch), tf.summary.histogram or Keras' " +
              "TensorBoard(histogram_freq=1), or VisualDL's add_histogram.",
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

    const axis = this._axis();
    const bins = this._bins();
    const problem = this._axisProblem(axis, infoA, infoB);
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
      if (this._carryStep !== null && this._at() === null) {
        // After an axis change: the position of the same step of A.
        const steps = distances.value.stepsA;
        const carried = nearestIndex(steps, this._carryStep);
        this._carryStep = null;
        if (carried >= 0) {
          state.update({ [KEYS.at]: String(positions[carried]) });
          return;
        }
      }
      const index = nearestIndex(positions, this._at());
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

  /**
   * Why the pair has no place on `axis`, or "".
   * @param {string} axis
   * @param {RunInfo} a
   * @param {RunInfo} b
   * @returns {string}
   */
  _axisProblem(axis, a, b) {
    if (axis !== "epoch") return "";
    const missing = [a, b].filter((r) => !hasEpochAxis(r));
    return [...new Set(missing)]
      .map((r) => `${r.run} has no epoch axis (${epochReason(r)})`)
      .join("; ");
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
    slot.key = key;
    slot.loading = true;
    slot.error = null;
    const outcome = await slot.request.run(load);
    if (outcome.stale || this._destroyed) return;
    slot.loading = false;
    if (outcome.error) {
      slot.error = outcome.error.message;
    } else {
      slot.value = outcome.value;
      slot.valueKey = key;
    }
    this._sync();
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
    const runs = this._histogramRuns();
    const runA = state.get(KEYS.runA);
    const runB = state.get(KEYS.runB);
    const tagA = state.get(KEYS.tagA);
    const tagB = state.get(KEYS.tagB);
    const colors = pairColors(catalog, runA, runB);
    const axis = this._axis();
    const bins = this._bins();
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
        const problem = this._axisProblem(a.id, infoA, infoB);
        if (problem) axisProblems[a.id] = problem;
      }
    }
    this._toolbar.render({ axis, bins, mode: this._mode(), axisProblems });

    const distances = this._distances;
    const shown = axisProblems[axis] ? null : distances.shown;
    const positions = shown?.positions ?? [];
    const index = shown ? nearestIndex(positions, this._at()) : -1;
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
    this._renderNotice(axis, axisProblems[axis] ?? "", positions, infoA, infoB);
    this._renderStage(colors, axisProblems[axis] ?? "", positions.length);

    const diff = this._diff.shown;
    const diffShown = diff !== null && index >= 0 && !axisProblems[axis];
    this._table.render(diffShown ? diff : null, this._distance(), { bins });
    this._panel.classList.toggle(
      "is-stale",
      this._diff.loading || this._distances.loading,
    );
    this._trend.render({
      distances: shown,
      key: this._distance(),
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
   * @param {string} axis
   * @param {string} problem
   * @param {number[]} positions
   * @param {RunInfo | undefined} infoA
   * @param {RunInfo | undefined} infoB
   */
  _renderNotice(axis, problem, positions, infoA, infoB) {
    const distances = this._distances;
    /** @type {(string | Node)[]} */
    let content = [];
    let kind = "info";
    const switchTo = (/** @type {string} */ id, /** @type {string} */ label) =>
      h("button", {
        className: "tbmf-button tbmf-button--text",
        text: label,
        attrs: { type: "button" },
        dataset: { switchAxis: id },
        on: { click: () => this._update({ axis: id }) },
      });
    if (problem) {
      kind = "warning";
      content = [
        `Not on the epoch axis: ${problem}.`,
        switchTo("progress", "Use progress"),
        switchTo("step", "Use step"),
      ];
    } else if (
      distances.shown &&
      positions.length === 0 &&
      !distances.loading
    ) {
      kind = "warning";
      const rangeA = loggedRange(this._ridgeData.a.shown);
      const rangeB = loggedRange(this._ridgeData.b.shown);
      content = [
        `A and B have no histograms at common positions on the ${axis} axis` +
          (rangeA && rangeB
            ? ` (A has them at ${axis} ${rangeA}, B at ${rangeB}).`
            : "."),
        axis !== "epoch" && hasEpochAxis(infoA) && hasEpochAxis(infoB)
          ? switchTo("epoch", "Use epoch")
          : null,
        axis !== "progress" ? switchTo("progress", "Use progress") : null,
      ].filter((c) => c !== null);
    }
    this._notice.hidden = content.length === 0;
    this._notice.dataset.kind = kind;
    setChildren(this._notice, ...content);
  }

  /**
   * @param {{a: string, b: string}} colors
   * @param {string} problem
   * @param {number} positionCount
   */
  _renderStage(colors, problem, positionCount) {
    const slot = this._diff;
    const diff = slot.shown;
    const usable = diff !== null && !problem && positionCount > 0;
    this._stage.classList.toggle("is-stale", usable && slot.loading);
    if (usable) {
      this._pairCharts.element.hidden = false;
      this._pairCharts.render({ diff, mode: this._mode(), colors });
    } else {
      this._pairCharts.element.hidden = true;
    }
    /** @type {string} */
    let message = "";
    let kind = "";
    const error = this._distances.error ?? slot.error;
    if (error && !problem) {
      message = `Cannot compare the histograms: ${error}`;
      kind = "error";
    } else if (problem || (this._distances.shown && positionCount === 0)) {
      message = "Nothing to compare on this axis.";
    } else if (!usable) {
      message = "Loading histograms…";
      kind = "loading";
    }
    this._stageMessage.hidden = message === "" || (usable && !error);
    this._stageMessage.dataset.kind = kind;
    setChildren(
      this._stageMessage,
      kind === "loading" ? h("span", { className: "tbmf-spinner" }) : null,
      message,
    );
  }

  /**
   * @param {{a: string, b: string}} colors
   * @param {string} axis
   * @param {number} index current position, -1 for none
   */
  _renderRidges(colors, axis, index) {
    const state = this._ctx.state;
    const distances = this._distances.shown;
    /** @type {{a: number | null, b: number | null}} */
    const highlightStep = {
      a: index >= 0 && distances ? distances.stepsA[index] : null,
      b: index >= 0 && distances ? distances.stepsB[index] : null,
    };
    const payloads = {
      a: this._ridgeData.a.shown,
      b: this._ridgeData.b.shown,
    };
    const ranges = {
      a: valueRange(payloads.a),
      b: valueRange(payloads.b),
    };
    const shared = sharedRange(ranges.a, ranges.b);
    /** @type {string[]} */
    const notes = [];
    for (const side of /** @type {const} */ (["a", "b"])) {
      const slot = this._ridgeData[side];
      const payload = payloads[side];
      const run = state.get(side === "a" ? KEYS.runA : KEYS.runB);
      const tag = state.get(side === "a" ? KEYS.tagA : KEYS.tagB);
      if (payload?.excluded) {
        notes.push(`${run} is placed by step (${payload.excluded})`);
      }
      const entries = payload?.steps ?? [];
      const highlight = entries.findIndex(
        (e) => e.step === highlightStep[side],
      );
      const options = {
        title: ridgeTitle(side.toUpperCase(), colors[side], run, tag),
        color: colors[side],
        entries,
        offsetLabel: axis,
        xRange: shared ?? ranges[side],
        highlight: highlight >= 0 ? highlight : null,
        height: RIDGE_HEIGHT,
        emptyText: slot.error
          ? `Cannot load: ${slot.error}`
          : slot.loading
            ? "Loading…"
            : "No histograms",
        onPick: (/** @type {{x: number | null}} */ entry) => {
          const positions = this._distances.shown?.positions ?? [];
          if (entry.x === null || positions.length === 0) return;
          this._pickIndex(nearestIndex(positions, entry.x));
        },
      };
      const chart = this._ridges[side];
      if (!chart) {
        const cell = h("div", {
          className: "tbmf-hist-ridges__cell",
          dataset: { ridge: side },
        });
        this._ridgeGrid.appendChild(cell);
        this._ridges[side] = createRidgeChart(cell, options);
      } else {
        chart.update(options);
      }
    }
    this._ridgeNote.textContent = [
      "each logged histogram as a line, newest in front; the one compared is highlighted",
      ...notes,
    ].join(" · ");
  }
}

/**
 * The default pair of runs: keep a valid one, then prefer two frameworks.
 * @param {RunInfo[]} runs
 * @param {string} runA
 * @param {string} runB
 * @returns {[string, string]}
 */
function defaultRuns(runs, runA, runB) {
  const names = runs.map((r) => r.run);
  const a = names.includes(runA) ? runA : names[0];
  if (names.includes(runB)) return [a, runB];
  const framework = runs.find((r) => r.run === a)?.framework;
  const other =
    runs.find((r) => r.run !== a && r.framework !== framework) ??
    runs.find((r) => r.run !== a);
  return [a, other ? other.run : a];
}

/**
 * The default tags: keep a valid one and take its suggested partner, else
 * the best suggested pair, else the first value (non-gradient) tags.
 * @param {RunInfo} infoA
 * @param {RunInfo} infoB
 * @param {string} tagA
 * @param {string} tagB
 * @param {PairsPayload | null} pairs
 * @returns {[string, string]}
 */
function defaultTags(infoA, infoB, tagA, tagB, pairs) {
  const validA = infoA.histogramTags.includes(tagA);
  const validB = infoB.histogramTags.includes(tagB);
  // Suggestions may predate the catalog: only tags the runs list now.
  const suggestions = (pairs?.pairs ?? []).filter(
    (p) =>
      infoA.histogramTags.includes(p.tagA) &&
      infoB.histogramTags.includes(p.tagB),
  );
  if (validA) {
    const partner = suggestions.find((p) => p.tagA === tagA);
    return [tagA, partner ? partner.tagB : firstValueTag(infoB)];
  }
  if (validB) {
    const partner = suggestions.find((p) => p.tagB === tagB);
    return [partner ? partner.tagA : firstValueTag(infoA), tagB];
  }
  if (suggestions.length > 0) return [suggestions[0].tagA, suggestions[0].tagB];
  return [firstValueTag(infoA), firstValueTag(infoB)];
}

/**
 * @param {RunInfo} info
 * @returns {string}
 */
function firstValueTag(info) {
  return (
    info.histogramTags.find((t) => !isGradientTag(t)) ?? info.histogramTags[0]
  );
}

/**
 * @param {RunInfo | undefined} info
 * @returns {boolean}
 */
function hasEpochAxis(info) {
  if (!info) return false;
  const flag = /** @type {any} */ (info).hasEpochAxis;
  if (typeof flag === "boolean") return flag;
  return (
    Boolean(info.epochSource) && !String(info.epochSource).startsWith("none")
  );
}

/**
 * @param {RunInfo} info
 * @returns {string}
 */
function epochReason(info) {
  const source = String(info.epochSource ?? "");
  return (
    source.replace(/^none:\s*/, "").replace(/^no epoch information:\s*/, "") ||
    "no epoch information"
  );
}

/**
 * Run colours of A and B, the same as in every other view; when A = B, B
 * takes the palette's colour furthest along from A's.
 * @param {{runs: {run: string}[]}} catalog
 * @param {string} runA
 * @param {string} runB
 * @returns {{a: string, b: string}}
 */
export function pairColors(catalog, runA, runB) {
  const a = runColor(catalog, runA);
  let b = runColor(catalog, runB);
  if (b === a) {
    const index = RUN_PALETTE.indexOf(a);
    b = RUN_PALETTE[(index + RUN_PALETTE.length / 2) % RUN_PALETTE.length];
  }
  return { a, b };
}

/**
 * Where a run logged its histograms on the payload's axis, e.g. `49–399`.
 * @param {HistogramsPayload | null} payload
 * @returns {string} "" when unknown
 */
function loggedRange(payload) {
  if (!payload || payload.excluded) return "";
  const xs = payload.steps
    .map((s) => s.x)
    .filter((x) => typeof x === "number" && Number.isFinite(x));
  if (xs.length === 0) return "";
  const lo = Math.min(...xs);
  const hi = Math.max(...xs);
  return lo === hi ? formatValue(lo) : `${formatValue(lo)}–${formatValue(hi)}`;
}

/**
 * @param {HistogramsPayload | null} payload
 * @returns {[number, number] | null} smallest and largest edge
 */
function valueRange(payload) {
  if (!payload || payload.steps.length === 0) return null;
  let lo = Infinity;
  let hi = -Infinity;
  for (const s of payload.steps) {
    const first = Number(s.edges[0]);
    const last = Number(s.edges[s.edges.length - 1]);
    if (Number.isFinite(first)) lo = Math.min(lo, first);
    if (Number.isFinite(last)) hi = Math.max(hi, last);
  }
  return hi > lo ? [lo, hi] : null;
}

/**
 * One range for both ridge charts, so they can be read against each other,
 * unless one run's values span far less (e.g. gradients against weights).
 * @param {[number, number] | null} a
 * @param {[number, number] | null} b
 * @returns {[number, number] | null}
 */
function sharedRange(a, b) {
  if (!a || !b) return null;
  const wa = a[1] - a[0];
  const wb = b[1] - b[0];
  if (Math.max(wa, wb) / Math.min(wa, wb) > MAX_SHARED_RANGE_RATIO) return null;
  return [Math.min(a[0], b[0]), Math.max(a[1], b[1])];
}

/**
 * @param {string} letter
 * @param {string} color
 * @param {string} run
 * @param {string} tag
 * @returns {HTMLElement}
 */
function ridgeTitle(letter, color, run, tag) {
  return h(
    "span",
    { className: "tbmf-hist-title" },
    h("span", {
      className: "tbmf-hist-title__letter",
      text: letter,
      style: { "--run": color },
    }),
    h("span", { className: "tbmf-hist-title__run", text: run }),
    h("span", { className: "tbmf-hist-title__detail", text: tag }),
  );
}
