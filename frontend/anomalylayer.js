// Anomaly markers on a comparison chart (Compare, Layouts): a layer the
// user controls (off, the hovered run's, all), summarised when dense, that
// never takes the place of the values tooltip. The findings come from the
// app's anomaly store (anomalies.js).

import {
  anomalyStore,
  findingCause,
  findingMessage,
  KIND_LABELS,
} from "./anomalies.js";
import { runColor } from "./colors.js";
import { h, setChildren } from "./dom.js";
import { formatValue } from "./format.js";
import { t } from "./i18n.js";
import { seriesKey } from "./views/compare/series.js";

/** @typedef {import("./anomalies.js").Finding} Finding */

/** Narrowest marked range on a chart, CSS pixels (a one-step spike). */
const MIN_BAND_PX = 6;
/** Runs a chart may draw before its markers default to the hovered run's. */
export const MARKERS_ALL_UP_TO = 8;
/** Markers a chart draws one by one; more are summarised per run and kind. */
export const DENSE_MARKERS = 12;
/** What the marker modes are called (Compare's menu): catalog keys. */
export const MARKER_MODES = Object.freeze({
  off: "anomaly.markers.off",
  hovered: "anomaly.markers.hovered",
  all: "anomaly.markers.all",

});

/**
 * The markers a chart shows: the user's choice, else every finding, unless
 * the chart draws many runs with many findings: then the hovered run's.
 * (A few findings stay in view, and reachable from the keyboard.)
 * @param {'off' | 'hovered' | 'all' | null | undefined} chosen
 * @param {number} runs runs the chart draws
 * @param {number} findings findings on the chart's series
 * @returns {'off' | 'hovered' | 'all'}
 */
export function markerMode(chosen, runs, findings) {
  const busy = runs > MARKERS_ALL_UP_TO && findings > DENSE_MARKERS;
  return chosen ?? (busy ? "hovered" : "all");
}

/**
 * @typedef {Object} Marked one band on the chart: a finding, or (on a
 *     dense chart) every finding of one run, tag and kind
 * @property {string} run
 * @property {string} tag
 * @property {string} kind
 * @property {[number, number]} x
 * @property {number} severity the largest
 * @property {Finding[]} findings in step order
 */

/**
 * Marks a comparison chart's flagged ranges: a shaded band over the range
 * and a chip at its top; clicking (or focusing) the chip opens a card with
 * the message and the usual cause. A layer the user controls (`markerMode`:
 * off, the hovered run's, all); more than DENSE_MARKERS in view are
 * summarised, one band per run, tag and kind. Hovering a chip never opens
 * the card: the pointer over the plot always gets the values tooltip.
 * Lives in the chart's plot overlay; the chart calls `draw` after every
 * redraw (zoom, resize, new data) and `hover` when its hovered series
 * changes.
 */
export class AnomalyLayer {
  /**
   * @param {import("./views/compare/panel.js").ComparisonChart} panel
   */
  constructor(panel) {
    this._panel = panel;
    this._store = anomalyStore(panel.ctx);
    /** @type {import("./views/compare/series.js").ScalarsResponse | null} */
    this._response = null;
    /** @type {Finding[]} every finding of the chart's series */
    this._all = [];
    /** @type {Finding[]} those the mode shows */
    this._findings = [];
    /** @type {string | null} */
    this._axis = null;
    /** @type {string | null} the last series hovered (its chart key) */
    this._hoverKey = null;
    /** The pointer is on a chip: the hovered run's markers stay. */
    this._onChip = false;
    this._card = h("div", {
      className: "tbmf-anomaly-card",
      attrs: { role: "tooltip", hidden: true },
    });
    /** @type {HTMLElement | null} */
    this._host = null;
    /** @type {any} */
    this._uplot = null;
    this._unsubscribe = this._store.subscribe(() => this._refresh());
  }

  destroy() {
    this._unsubscribe();
    this._host?.remove();
    this._card.remove();
  }

  /**
   * New data drawn: find the findings of its series on its axis.
   * @param {import("./views/compare/series.js").ScalarsResponse} response
   */
  update(response) {
    this._response = response;
    this._axis = response.x;
    void this._store.load(response.x);
    this._refresh();
  }

  /** The panel's options changed (the marker mode among them). */
  optionsChanged() {
    this._refresh();
  }

  /**
   * The chart's hovered series changed (null: none, which keeps the last
   * one: the pointer may be on its way to a chip).
   * @param {string | null} key
   */
  hover(key) {
    if (key === null || key === this._hoverKey || this._onChip) return;
    this._hoverKey = key;
    if (this.mode() === "hovered") this._refresh();
  }

  /** @returns {'off' | 'hovered' | 'all'} the mode in effect */
  mode() {
    const runs = new Set(
      (this._response?.series ?? [])
        .filter((s) => !s.excluded && !(/** @type {any} */ (s).superseded))
        .map((s) => s.run),
    );
    return markerMode(
      this._panel.options.anomalyMarkers,
      runs.size,
      this._all.length,
    );
  }

  _refresh() {
    const response = this._response;
    if (!response || !this._axis) return;
    const answer = this._store.answer(this._axis);
    const shown = new Set(
      (response.series ?? [])
        .filter((s) => !s.excluded)
        .map((s) => seriesKey(s.run, s.tag)),
    );
    this._all = (answer?.anomalies ?? []).filter(
      (f) => f.x && shown.has(seriesKey(f.run, f.tag)),
    );
    const mode = this.mode();
    this._findings =
      mode === "off"
        ? []
        : mode === "hovered"
          ? this._all.filter((f) => seriesKey(f.run, f.tag) === this._hoverKey)
          : this._all;
    const element = this._panel.element;
    element.dataset.anomalies = String(this._all.length);
    element.dataset.markers = mode;
    const u = this._panel.mainChart?.uplot;
    if (u) this.draw(u);
  }

  /**
   * Places the bands over the plot (called from the chart's draw hook).
   * @param {import("./vendor/uplot/uPlot.esm.js").default} u
   */
  draw(u) {
    this._uplot = u;
    const over = /** @type {HTMLElement} */ (u.over);
    if (!this._host || this._host.parentElement !== over) {
      this._host?.remove();
      this._host = h("div", { className: "tbmf-anomaly-layer" });
      over.appendChild(this._host);
      (over.closest(".tbmf-chart") ?? over).appendChild(this._card);
    }
    const scale = u.scales.x;
    if (scale.min == null || scale.max == null) {
      setChildren(this._host, []);
      return;
    }
    const lo = scale.min;
    const hi = scale.max;
    const inView = this._findings.filter((f) => {
      const [x0, x1] = /** @type {[number, number]} */ (f.x);
      return x1 >= lo && x0 <= hi;
    });
    const dense = inView.length > DENSE_MARKERS;
    const marked = dense ? summarise(inView) : inView.map(single);
    // The plot's width as uPlot set it (reading clientWidth here, right
    // after uPlot changed the DOM, forced a layout of the page per draw).
    const width = u.bbox.width / devicePixelRatio || over.clientWidth;
    const items = [];
    for (const mark of marked) {
      let left = u.valToPos(Math.max(mark.x[0], lo), "x");
      let right = u.valToPos(Math.min(mark.x[1], hi), "x");
      if (right - left < MIN_BAND_PX) {
        const middle = (left + right) / 2;
        left = middle - MIN_BAND_PX / 2;
        right = middle + MIN_BAND_PX / 2;
      }
      left = Math.max(0, left);
      right = Math.min(width, right);
      // A summary marks each finding with a tick (and its chip at the
      // first), not with a band over the whole span.
      const ticks = mark.findings.map((f) => {
        const [x0, x1] = /** @type {[number, number]} */ (f.x);
        const middle = (Math.max(x0, lo) + Math.min(x1, hi)) / 2;
        return u.valToPos(middle, "x") - left;
      });
      items.push(this._band(mark, left, right, dense ? ticks : null));
    }
    this._panel.element.dataset.markersShown = String(items.length);
    setChildren(this._host, items);
  }

  /**
   * @param {Marked} mark
   * @param {number} left CSS pixels in the plot
   * @param {number} right
   * @param {number[] | null} ticks each finding's middle, pixels from
   *     `left`, on a dense chart (a tick each instead of shading)
   * @returns {HTMLElement}
   */
  _band(mark, left, right, ticks) {
    const color = runColor(this._panel.ctx.catalog, mark.run);
    const label = KIND_LABELS[mark.kind] ?? mark.kind;
    const count = mark.findings.length;
    const first = mark.findings[0];
    const last = mark.findings[count - 1];
    const chip = h("button", {
      className: "tbmf-anomaly-chip",
      text: count > 1 ? String(count) : "!",
      title: "",
      attrs: {
        type: "button",
        "aria-label":
          count > 1
            ? t("anomaly.chip.many", {
                n: count,
                kind: label,
                run: mark.run,
                tag: mark.tag,
              })
            : t("anomaly.chip.one", {
                kind: label,
                run: mark.run,
                tag: mark.tag,
                message: findingMessage(first),
              }),
      },
      style: ticks ? { "--run": color, left: `${ticks[0]}px` } : { "--run": color },
      on: {
        click: () => this._showCard(mark, chip),
        focus: () => this._showCard(mark, chip),
        blur: () => this._hideCard(),
        keydown: (event) => {
          if (/** @type {KeyboardEvent} */ (event).key === "Escape") {
            this._hideCard();
          }
        },
        mouseenter: () => {
          this._onChip = true;
        },
        mouseleave: () => {
          this._onChip = false;
        },
      },
    });
    return h(
      "div",
      {
        className: `tbmf-anomaly-band${ticks ? " is-summary" : ""}`,
        dataset: {
          kind: mark.kind,
          run: mark.run,
          tag: mark.tag,
          step: String(first.step),
          endStep: String(last.endStep),
          count: String(count),
        },
        style: {
          left: `${left}px`,
          width: `${Math.max(1, right - left)}px`,
          "--run": color,
          "--strength": String(0.35 + 0.65 * (mark.severity ?? 0.5)),
        },
      },
      ticks
        ? ticks.map((at) =>
            h("span", {
              className: "tbmf-anomaly-tick",
              style: { left: `${at}px` },
            }),
          )
        : null,
      chip,
    );
  }

  /**
   * @param {Marked} mark
   * @param {HTMLElement} chip
   */
  _showCard(mark, chip) {
    const label = KIND_LABELS[mark.kind] ?? mark.kind;
    const count = mark.findings.length;
    const first = mark.findings[0];
    const rangeOf = (/** @type {Finding} */ f) =>
      f.step === f.endStep
        ? t("anomaly.card.step", { step: formatValue(f.step) })
        : t("anomaly.card.steps", {
            from: formatValue(f.step),
            to: formatValue(f.endStep),
          });
    const steps =
      count > 1
        ? `${count} × · ${mark.findings.map(rangeOf).join(", ")}`
        : rangeOf(first);
    setChildren(
      this._card,
      h(
        "div",
        { className: "tbmf-anomaly-card__head" },
        h("span", { className: "tbmf-anomaly-card__kind", text: label }),
        h("span", { className: "tbmf-muted", text: steps }),
      ),
      h("div", {
        className: "tbmf-anomaly-card__series",
        text: `${mark.run} · ${mark.tag}`,
      }),
      h("div", {
        className: "tbmf-anomaly-card__message",
        text:
          count > 1
            ? t("anomaly.card.first", { message: findingMessage(first) })
            : findingMessage(first),
      }),
      h("div", {
        className: "tbmf-anomaly-card__cause",
        text: t("anomaly.card.cause", { cause: findingCause(first) }),

      }),
    );
    this._card.hidden = false;
    const parent = /** @type {HTMLElement} */ (this._card.parentElement);
    const box = parent.getBoundingClientRect();
    const at = chip.getBoundingClientRect();
    const cardWidth = this._card.offsetWidth;
    let left = at.left - box.left + at.width / 2 - cardWidth / 2;
    left = Math.max(0, Math.min(left, box.width - cardWidth));
    this._card.style.transform = `translate(${Math.round(left)}px, ${Math.round(
      at.bottom - box.top + 6,
    )}px)`;
  }

  _hideCard() {
    this._card.hidden = true;
  }
}

/**
 * @param {Finding} finding
 * @returns {Marked}
 */
function single(finding) {
  return {
    run: finding.run,
    tag: finding.tag,
    kind: finding.kind,
    x: /** @type {[number, number]} */ (finding.x),
    severity: finding.severity,
    findings: [finding],
  };
}

/**
 * One band per run, tag and kind, over the range its findings span.
 * @param {Finding[]} findings
 * @returns {Marked[]}
 */
export function summarise(findings) {
  /** @type {Map<string, Marked>} */
  const groups = new Map();
  for (const f of findings) {
    const key = `${f.run}\u0000${f.tag}\u0000${f.kind}`;
    const [x0, x1] = /** @type {[number, number]} */ (f.x);
    const found = groups.get(key);
    if (!found) {
      groups.set(key, { ...single(f), x: [x0, x1] });
      continue;
    }
    found.x = [Math.min(found.x[0], x0), Math.max(found.x[1], x1)];
    found.severity = Math.max(found.severity, f.severity);
    found.findings.push(f);
  }
  for (const mark of groups.values()) {
    // Steps beyond 2^53 are BigInts (model.js): compared, not subtracted.
    mark.findings.sort((a, b) => (a.step < b.step ? -1 : a.step > b.step ? 1 : 0));
  }
  return [...groups.values()];
}
