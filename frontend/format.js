// Number, time and duration formatting used by the tables and charts.

import { t } from "./i18n.js";

// en-US on purpose: the same digits and separators in every browser, which
// also keeps screenshots and browser tests stable.
const INTEGER = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });
const DECIMAL = new Intl.NumberFormat("en-US", {
  maximumSignificantDigits: 5,
});
const MISSING = "—";

/**
 * An integer with every digit: `20,240,611`, `9,223,372,036,854,775,807`
 * (a BigInt: `parseJson` keeps integers beyond 2^53 exact). A number
 * beyond 2^53 may have lost digits on its way here: it is written in
 * engineering notation after `≈`, never with digits it may not have.
 * @param {number | bigint | null | undefined} value
 * @returns {string} e.g. `1,000,000`, or `—` when missing
 */
export function formatInt(value) {
  if (typeof value === "bigint") return INTEGER.format(value);
  if (value == null || !Number.isFinite(value)) return MISSING;
  if (Math.abs(value) > Number.MAX_SAFE_INTEGER) {
    return `≈${formatEngineering(value, 16, { trim: true })}`;
  }
  return INTEGER.format(value);
}

/**
 * Engineering notation: a mantissa in [1, 1000) and an exponent that is a
 * multiple of 3, with `digits` significant digits, zeros included, so the
 * precision shows: `12.346e3`, `-1.5000e-6`, `1.0000e9`.
 * @param {number} value finite
 * @param {number} [digits]
 * @param {{trim?: boolean}} [options] drop trailing zeros after the point
 * @returns {string}
 */
export function formatEngineering(value, digits = 5, { trim = false } = {}) {
  if (value === 0) return "0";
  const [mantissa, exponentText] = value.toExponential(digits - 1).split("e");
  const exponent = Number(exponentText);
  const engineering = Math.floor(exponent / 3) * 3;
  const sign = mantissa.startsWith("-") ? "-" : "";
  const figures = mantissa.replace(/^-/, "").replace(".", "");
  const point = 1 + exponent - engineering;
  const whole = figures.slice(0, point).padEnd(point, "0");
  const rest = figures.slice(point);
  const fraction = trim ? rest.replace(/0+$/, "") : rest;
  const text = fraction ? `${whole}.${fraction}` : whole;
  return engineering === 0
    ? `${sign}${text}`
    : `${sign}${text}e${engineering}`;
}

/**
 * A value: integers with every digit (`20,240,611`, never `20,241,000`);
 * other numbers with five significant digits, in engineering notation
 * (`12.346e3`) once rounding would reach the units or below 1e-4, so a
 * rounded number never reads as exact digits; the server's strings for
 * NaN and infinities kept as is.
 * @param {number | bigint | string | null | undefined} value
 * @returns {string}
 */
export function formatValue(value) {
  if (value == null) return MISSING;
  if (typeof value === "string") return value;
  if (typeof value === "bigint") return formatInt(value);
  if (!Number.isFinite(value)) return String(value);
  if (Number.isInteger(value)) return formatInt(value);
  const magnitude = Math.abs(value);
  if (magnitude < 1e-4 || magnitude >= 1e4) {
    return formatEngineering(value);
  }
  return DECIMAL.format(value);
}

/** Units formatPosition knows, by the message that writes them. */
const POSITION_MESSAGES = Object.freeze({
  step: "fmt.position.step",
  epoch: "fmt.position.epoch",
  epochIndex: "fmt.position.epochIndex",
});

/**
 * A position with its unit: `step 350`, `epoch 8`, `epoch 2.5` (第 350 步
 * in Chinese: the units above are words of the tab's language).
 * @param {string} unit `step`, `epoch`, `epochIndex`, or any other word
 * @param {number | bigint | null | undefined} value
 * @returns {string}
 */
export function formatPosition(unit, value) {
  if (value == null) return MISSING;
  const text =
    typeof value === "number" && !Number.isInteger(value)
      ? formatValue(Number(value.toPrecision(4)))
      : formatInt(value);
  const key = POSITION_MESSAGES[/** @type {keyof POSITION_MESSAGES} */ (unit)];
  return key ? t(key, { value: text }) : `${unit} ${text}`;

}

/**
 * @param {number | bigint | null | undefined} first
 * @param {number | bigint | null | undefined} last
 * @returns {string} e.g. `0–400`
 */
export function formatSteps(first, last) {
  if (first == null || last == null) return MISSING;
  if (first == last) return formatInt(first); // a BigInt equals its number
  return `${formatInt(first)}–${formatInt(last)}`;
}

/**
 * A human duration: `850 ms`, `42.5 s`, `3 min 12 s`, `1 h 04 min`, `2 d 03 h`.
 * @param {number | null | undefined} seconds
 * @returns {string}
 */
export function formatDuration(seconds) {
  if (seconds == null || !Number.isFinite(seconds) || seconds < 0) {
    return MISSING;
  }
  if (seconds < 1) return `${Math.round(seconds * 1000)} ms`;
  if (seconds < 60) {
    return `${seconds < 10 ? seconds.toFixed(1) : Math.round(seconds)} s`;
  }
  const total = Math.round(seconds);
  const days = Math.floor(total / 86400);
  const hours = Math.floor((total % 86400) / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const secs = total % 60;
  const pad = (/** @type {number} */ n) => String(n).padStart(2, "0");
  if (days > 0) return `${days} d ${pad(hours)} h`;
  if (hours > 0) return `${hours} h ${pad(minutes)} min`;
  return `${minutes} min ${pad(secs)} s`;
}

/**
 * Local date and time of an epoch-seconds timestamp, `YYYY-MM-DD HH:MM:SS`.
 * @param {number | null | undefined} epochSeconds
 * @returns {string}
 */
export function formatTimestamp(epochSeconds) {
  if (epochSeconds == null || !Number.isFinite(epochSeconds)) return MISSING;
  const d = new Date(epochSeconds * 1000);
  const pad = (/** @type {number} */ n) => String(n).padStart(2, "0");
  return (
    `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ` +
    `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`
  );
}

/**
 * `1 run`, `3 runs`.
 * @param {number} count
 * @param {string} singular
 * @param {string} [plural]
 * @returns {string}
 */
export function plural(count, singular, plural = `${singular}s`) {
  return `${formatInt(count)} ${count === 1 ? singular : plural}`;
}

/**
 * One unit in the last place of a float32 number of magnitude `scale`: the
 * resolution of values as frameworks log them (TensorBoard's `simple_value`
 * and VisualDL's values are float32).
 * @param {number} scale
 * @returns {number} 0 when `scale` is 0 or not finite
 */
export function float32Ulp(scale) {
  const magnitude = Math.abs(scale);
  if (!(magnitude > 0) || !Number.isFinite(magnitude)) return 0;
  return 2 ** (Math.floor(Math.log2(magnitude)) - 23);
}

/**
 * A difference `a − b` written to the precision of its operands: below one
 * float32 ulp of the larger operand (`scale`) it is `0` (the two values are
 * equal as logged, whatever float noise interpolation or smoothing left),
 * and it keeps only the significant digits the operands carry (at most 5).
 * So a difference of two losses near 0.5 reads `0`, not `−1.155e−8`.
 * @param {number | string | null | undefined} value
 * @param {number} scale the larger |operand| at that point
 * @returns {string}
 */
export function formatDifference(value, scale) {
  if (typeof value !== "number" || !Number.isFinite(value)) {
    return formatValue(value);
  }
  const ulp = float32Ulp(scale);
  if (ulp === 0) return formatValue(value);
  const magnitude = Math.abs(value);
  if (magnitude < ulp) return "0";
  const digits = Math.min(
    5,
    Math.max(1, Math.floor(Math.log10(magnitude / ulp)) + 1),
  );
  const rounded = Number(value.toPrecision(digits));
  if (Math.abs(rounded) < 1e-4 || Math.abs(rounded) >= 1e9) {
    return rounded.toExponential(digits - 1);
  }
  return DECIMAL.format(rounded);
}
