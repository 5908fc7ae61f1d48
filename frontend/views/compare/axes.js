// The x axes of the scalars route and how to label them (docs/conventions.md).

import { formatValue } from "../../format.js";
import { t } from "../../i18n.js";

/** @typedef {'step' | 'epoch' | 'relative' | 'wall' | 'progress'} Axis */

/**
 * @typedef {Object} AxisInfo
 * @property {Axis} id the route's `x` value
 * @property {string} label button text and tooltip header, e.g. `epoch`
 * @property {string} axisLabel axis title with its unit
 * @property {string} help what a position on the axis means
 * @property {'number' | 'time'} xType
 * @property {((x: number) => string) | undefined} formatX
 */

/**
 * One axis; its texts are getters, in the tab's language when read.
 * @param {Axis} id
 * @param {'number' | 'time'} xType
 * @param {((x: number) => string) | undefined} formatX
 * @returns {AxisInfo}
 */
function axis(id, xType, formatX) {
  return Object.freeze({
    id,
    get label() {
      return t(`axis.${id}`);
    },
    get axisLabel() {
      return t(`axis.${id}.title`);
    },
    get help() {
      return t(`axis.${id}.help`);
    },
    xType,
    formatX,
  });
}

/** @type {readonly AxisInfo[]} */
export const AXES = Object.freeze([
  axis("step", "number", undefined),
  axis("epoch", "number", undefined),
  axis("relative", "number", formatElapsed),
  axis("wall", "time", undefined),
  axis("progress", "number", formatShare),
]);

/** The default axis. */
export const DEFAULT_AXIS = "step";

/**
 * @param {string} id
 * @returns {AxisInfo} the axis, or `step` for anything unknown
 */
export function axisInfo(id) {
  return AXES.find((axis) => axis.id === id) ?? AXES[0];
}

/**
 * Elapsed seconds, short enough for a tick: `45 s`, `2:05`, `1:02:05`.
 * @param {number} seconds
 * @returns {string}
 */
export function formatElapsed(seconds) {
  if (!Number.isFinite(seconds)) return String(seconds);
  const sign = seconds < 0 ? "−" : "";
  const abs = Math.abs(seconds);
  if (abs < 60) return `${sign}${formatValue(Number(abs.toPrecision(4)))} s`;
  const total = Math.round(abs);
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const secs = String(total % 60).padStart(2, "0");
  return hours > 0
    ? `${sign}${hours}:${String(minutes).padStart(2, "0")}:${secs}`
    : `${sign}${minutes}:${secs}`;
}

/**
 * A 0..1 share as a percentage: `42.5%`.
 * @param {number} share
 * @returns {string}
 */
export function formatShare(share) {
  if (!Number.isFinite(share)) return String(share);
  return `${formatValue(Number((share * 100).toPrecision(4)))}%`;
}
