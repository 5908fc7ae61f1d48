// Numbers, dates and durations in the tab's language (Intl), for the views
// converted to the message catalogs. format.js keeps en-US formatting for
// the views and charts that still use it.

import { formatDuration, formatInt, formatTimestamp } from "./format.js";
import { language, t } from "./i18n.js";


const MISSING = "—";

/**
 * An integer with the language's grouping: `1,000,000`.
 * @param {number | null | undefined} value
 * @returns {string}
 */
export function formatInteger(value) {
  if (value == null || !Number.isFinite(value)) return MISSING;
  return new Intl.NumberFormat(language(), {
    maximumFractionDigits: 0,
  }).format(value);
}

/**
 * A number with at most `digits` significant digits.
 * @param {number | null | undefined} value
 * @param {number} [digits]
 * @returns {string}
 */
export function formatNumber(value, digits = 5) {
  if (value == null || !Number.isFinite(value)) return MISSING;
  return new Intl.NumberFormat(language(), {
    maximumSignificantDigits: digits,
  }).format(value);
}

/**
 * A local time of day, `14:03:07`, in the language's form.
 * @param {number | Date} time milliseconds since the epoch, or a Date
 * @returns {string}
 */
export function formatTimeOfDay(time) {
  return new Intl.DateTimeFormat(language(), {
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
    hour12: false,
  }).format(time);
}

/**
 * A local date and time: `2026/12/04 14:03:07` (zh-CN), `12/04/2026,
 * 14:03:07` (en).
 * @param {number | null | undefined} epochSeconds
 * @returns {string}
 */
export function formatDateTime(epochSeconds) {
  if (epochSeconds == null || !Number.isFinite(epochSeconds)) return MISSING;
  return new Intl.DateTimeFormat(language(), {
    dateStyle: "short",
    timeStyle: "medium",
    hour12: false,
  }).format(epochSeconds * 1000);
}

/**
 * One unit with Intl's short unit names: `3 min`, `3分钟`.
 * @param {number} value
 * @param {string} unit an Intl sanctioned unit (`second`, `minute`, ...)
 * @param {number} [fractionDigits]
 * @returns {string}
 */
function unitText(value, unit, fractionDigits = 0) {
  return new Intl.NumberFormat(language(), {
    style: "unit",
    unit,
    unitDisplay: "short",
    maximumFractionDigits: fractionDigits,
  }).format(value);
}

/**
 * A duration in the language's units: `850 ms`, `42.5 sec`, `3 min 12 sec`,
 * `1 hr 4 min`, `2 days 3 hr` (en); `850毫秒`, `3分钟12秒` (zh-CN).
 * @param {number | null | undefined} seconds
 * @returns {string}
 */
export function formatDurationIntl(seconds) {
  if (seconds == null || !Number.isFinite(seconds) || seconds < 0) {
    return MISSING;
  }
  if (seconds < 1) return unitText(Math.round(seconds * 1000), "millisecond");
  if (seconds < 60) return unitText(seconds, "second", seconds < 10 ? 1 : 0);
  const total = Math.round(seconds);
  const days = Math.floor(total / 86400);
  const hours = Math.floor((total % 86400) / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const secs = total % 60;
  const join = language() === "zh-CN" ? "" : " ";
  if (days > 0) return [unitText(days, "day"), unitText(hours, "hour")].join(join);
  if (hours > 0) {
    return [unitText(hours, "hour"), unitText(minutes, "minute")].join(join);
  }
  return [unitText(minutes, "minute"), unitText(secs, "second")].join(join);
}

/**
 * A count with its noun: `t(prefix + "one")` for 1, else `t(prefix +
 * "other")`, with `{n}` the count's every digit. English keeps its two forms
 * (`1 run`, `3 runs`); Chinese words both alike (`1 个运行`).
 * @param {number} count
 * @param {string} prefix a catalog key prefix ending in a dot (`count.run.`)
 * @param {Record<string, unknown>} [params] more placeholders
 * @returns {string}
 */
export function countText(count, prefix, params = {}) {
  return t(`${prefix}${count === 1 ? "one" : "other"}`, {
    ...params,
    n: formatInt(count),
  });
}

/**
 * A duration as the tables show it: format.js's compact English form
 * (`3 min 12 s`, what the English views have always shown), Intl's units
 * in other languages (`3分钟12秒`).
 * @param {number | null | undefined} seconds
 * @returns {string}
 */
export function durationText(seconds) {
  return language() === "en"
    ? formatDuration(seconds)
    : formatDurationIntl(seconds);
}

/**
 * A date and time as the tables show it: `2026-12-04 14:03:07` in English
 * (format.js), Intl's form in other languages.
 * @param {number | null | undefined} epochSeconds
 * @returns {string}
 */
export function timestampText(epochSeconds) {
  return language() === "en"
    ? formatTimestamp(epochSeconds)
    : formatDateTime(epochSeconds);
}
