// The step table of a Metrics card: every run's value at the picked x (the
// last point logged at or before it), its difference to the baseline and
// its rank (direction from GET metric_summary), and "Copy as Markdown".

import { colorFor } from "../../colors.js";
import { h, setChildren } from "../../dom.js";
import { formatDifference, formatInt, formatValue } from "../../format.js";
import { t } from "../../i18n.js";
import { fetchJson, fetchScalars, LatestRequest } from "../../model.js";
import { axisInfo } from "../compare/axes.js";
import { markdownTable, rankAndDiff, valuesAt } from "./stepvalues.js";

/** Buckets asked for around the picked x (the window holds <= 3 points). */
const WINDOW_POINTS = 16;

/**
 * @typedef {Object} TableModel
 * @property {import("../compare/metricpicker.js").MetricEntry} entry
 * @property {string[]} runs
 * @property {string} axis
 * @property {number | null} x the picked x (null: no table)
 * @property {string | null} baseline
 * @property {'difference' | 'ratio'} diffMode
 */

/** Directions of metrics already asked for, by metric key. */
const directions = new Map();

export class StepTable {
  /**
   * @param {import("../../app.js").ViewContext} ctx
   * @param {{clear: () => void}} hooks
   */
  constructor(ctx, hooks) {
    this.ctx = ctx;
    this.hooks = hooks;
    this._request = new LatestRequest();
    this._signature = "";
    /** @type {string} the Markdown of the table shown */
    this.markdown = "";
    this.element = h("div", {
      className: "tbmf-met-table",
      attrs: { hidden: true },
    });
    this._hint = h("p", {
      className: "tbmf-met-table__hint tbmf-muted",
      text: t("metrics.table.hint"),
    });
  }

  /**
   * Shows the table for `model` (fetches only when what it shows changed).
   * @param {TableModel} model
   */
  show(model) {
    const signature = JSON.stringify([
      model.entry.key,
      model.runs,
      model.axis,
      model.x,
      model.baseline,
      model.diffMode,
      this.ctx.catalog.payload?.dataVersion ?? null,
    ]);
    if (signature === this._signature) return;
    this._signature = signature;
    this.element.hidden = false;
    if (model.x === null || model.runs.length === 0) {
      this._request.cancel();
      this.markdown = "";
      this.element.dataset.state = "empty";
      setChildren(this.element, this._hint);
      return;
    }
    void this._load(model, /** @type {number} */ (model.x));
  }

  /**
   * @param {TableModel} model
   * @param {number} x
   */
  async _load(model, x) {
    this.element.dataset.state = "loading";
    const key = model.entry.key;
    const outcome = await this._request.run(async (signal) => {
      const [answer, direction] = await Promise.all([
        fetchScalars(
          {
            run: model.runs,
            metric: key,
            x: model.axis,
            xMin: x,
            xMax: x,
            points: WINDOW_POINTS,
          },
          { signal },
        ),
        directionOf(key, signal),
      ]);
      return { answer, direction };
    });
    if (outcome.stale) return;
    if (outcome.error) {
      this.element.dataset.state = "error";
      setChildren(
        this.element,
        h("p", {
          className: "tbmf-empty tbmf-empty--error",
          text: outcome.error.message,
        }),
      );
      return;
    }
    const { answer, direction } = outcome.value;
    const rows = rankAndDiff(valuesAt(answer, x), {
      direction,
      baseline: model.baseline,
      diffMode: model.diffMode,
    });
    rows.sort(
      (a, b) =>
        (a.rank ?? Infinity) - (b.rank ?? Infinity) ||
        a.run.localeCompare(b.run),
    );
    this._render(model, x, rows, direction);
  }

  /**
   * @param {TableModel} model
   * @param {number} x
   * @param {import("./stepvalues.js").StepRow[]} rows
   * @param {'min' | 'max' | null} direction
   */
  _render(model, x, rows, direction) {
    const axis = axisInfo(model.axis);
    const axisName = t(`axis.${axis.id}`);
    const xText = (axis.formatX ?? formatValue)(x);
    const hasDiff =
      model.baseline !== null && rows.some((r) => r.diff !== null);
    const diffHeader = hasDiff
      ? t(
          model.diffMode === "ratio"
            ? "metrics.table.ratio"
            : "metrics.table.diff",
          {
            baseline: /** @type {string} */ (model.baseline),
          },
        )
      : null;
    const headers = {
      run: t("metrics.table.run"),
      step: t("metrics.table.step"),
      value: t("metrics.table.value"),
      rank: t("metrics.table.rank"),
    };
    this.markdown = markdownTable(rows, {
      metric: model.entry.name,
      axis: axisName,
      x,
      diffHeader,
      headers,
    });
    const baseValue = rows.find((r) => r.run === model.baseline)?.value ?? null;
    const th = (/** @type {string} */ text) =>
      h("th", { text, attrs: { scope: "col" } });
    const body = rows.map((row) =>
      h(
        "tr",
        { dataset: { run: row.run } },
        h(
          "th",
          { attrs: { scope: "row" } },
          h("span", {
            className: "tbmf-dot",
            style: { "--dot": colorFor(row.run) },
          }),
          h("span", { text: row.run }),
        ),
        h("td", {
          className: "tbmf-num",
          dataset: {
            col: "step",
            value: row.step === null ? "" : String(row.step),
          },
          text: stepText(row, model.axis),
        }),
        h("td", {
          className: "tbmf-num",
          dataset: { col: "value", value: numberData(row.value) },
          text: row.value === null ? gapText(row.gap) : formatValue(row.value),
        }),
        hasDiff
          ? h("td", {
              className: "tbmf-num",
              dataset: { col: "diff", value: numberData(row.diff) },
              text:
                row.diff === null
                  ? "—"
                  : model.diffMode === "ratio"
                    ? formatValue(row.diff)
                    : formatDifference(
                        row.diff,
                        Math.max(
                          Math.abs(row.value ?? 0),
                          Math.abs(baseValue ?? 0),
                        ),
                      ),
            })
          : null,
        h("td", {
          className: "tbmf-num",
          dataset: { col: "rank", value: numberData(row.rank) },
          text: row.rank === null ? "—" : formatInt(row.rank),
        }),
      ),
    );
    const copy = h("button", {
      className: "tbmf-button tbmf-met-table__copy",
      text: t("metrics.table.copy"),
      attrs: {
        type: "button",
        "aria-label": t("metrics.table.copyNamed", {
          metric: model.entry.name,
        }),
      },
      on: { click: () => void this.copy() },
    });
    const clear = h("button", {
      className: "tbmf-button tbmf-button--text",
      text: t("metrics.table.clear"),
      attrs: {
        type: "button",
        "aria-label": t("metrics.table.clearNamed", {
          metric: model.entry.name,
        }),
      },
      on: { click: () => this.hooks.clear() },
    });
    const rankNote =
      direction === "min"
        ? t("metrics.table.lowerBetter")
        : direction === "max"
          ? t("metrics.table.higherBetter")
          : t("metrics.table.directionUnknown");
    this.element.dataset.state = "ready";
    this.element.dataset.x = String(x);
    this.element.dataset.direction = direction ?? "";
    setChildren(
      this.element,
      h(
        "div",
        { className: "tbmf-met-table__head" },
        h("span", {
          className: "tbmf-met-table__at",
          text: t("metrics.table.at", { axis: axisName, x: xText }),
        }),
        h("span", { className: "tbmf-muted", text: rankNote }),
        copy,
        clear,
      ),
      h(
        "table",
        { className: "tbmf-met-table__table" },
        h(
          "thead",
          {},
          h(
            "tr",
            {},
            th(headers.run),
            th(headers.step),
            th(headers.value),
            diffHeader ? th(diffHeader) : null,
            th(headers.rank),
          ),
        ),
        h("tbody", {}, body),
      ),
    );
  }

  /** Puts the table on the clipboard as Markdown (textarea fallback). */
  async copy() {
    const text = this.markdown;
    if (!text) return;
    try {
      await navigator.clipboard.writeText(text);
      this.ctx.toast(t("metrics.table.copied"));
      return;
    } catch {
      // Clipboard API refused (insecure origin, permissions): copy from a
      // selected textarea instead.
    }
    const field = h("textarea", {
      className: "tbmf-offscreen",
      attrs: { readonly: true },
    });
    field.value = text;
    document.body.appendChild(field);
    field.select();
    const copied = document.execCommand("copy");
    field.remove();
    this.ctx.toast(
      copied ? t("metrics.table.copied") : t("metrics.table.copyFailed"),
      copied ? "info" : "error",
    );
  }

  destroy() {
    this._request.cancel();
  }
}

/**
 * Which way is better for a metric (GET metric_summary), asked once.
 * @param {string} key
 * @param {AbortSignal} signal
 * @returns {Promise<'min' | 'max' | null>}
 */
async function directionOf(key, signal) {
  if (directions.has(key)) return directions.get(key);
  const summary = await fetchJson(
    "metric_summary",
    { metric: key },
    { signal },
  );
  const direction =
    summary?.direction === "min" || summary?.direction === "max"
      ? summary.direction
      : null;
  directions.set(key, direction);
  return direction;
}

/**
 * @param {import("./stepvalues.js").StepRow} row
 * @param {string} axis
 * @returns {string} the logged step (and its x when the axis is not steps)
 */
function stepText(row, axis) {
  if (row.step === null) return "—";
  const info = axisInfo(axis);
  let text = formatInt(row.step);
  if (axis !== "step" && row.at !== null) {
    text += ` (${t(`axis.${info.id}`)} ${(info.formatX ?? formatValue)(row.at)})`;
  }
  return row.gap === "ended" ? `${text} · ${t("metrics.table.last")}` : text;
}

/**
 * @param {'before' | 'ended' | 'excluded' | null} gap (a value, so not
 *     `ended`)
 * @returns {string}
 */
function gapText(gap) {
  return gap === "excluded"
    ? t("metrics.table.excluded")
    : t("metrics.table.notYet");
}

/**
 * @param {number | null} value
 * @returns {string} every digit (shortest round-trip form), "" if none
 */
function numberData(value) {
  return value === null ? "" : String(value);
}
