// Number, time and duration formatting used by the tables and charts.

// en-US on purpose: the same digits and separators in every browser, which
// also keeps screenshots and browser tests stable.
const INTEGER = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });
const DECIMAL = new Intl.NumberFormat("en-US", {
  maximumSignificantDigits: 5,
});
const MISSING = "—";

/**
 * @param {number | null | undefined} value
 * @returns {string} e.g. `1,000,000`, or `—` when missing
 */
export function formatInt(value) {
  return value == null || !Number.isFinite(value)
    ? MISSING
    : INTEGER.format(value);
}

/**
 * A chart value: five significant digits, exponent for very small or large
 * magnitudes, and the server's strings for NaN and infinities kept as is.
 * @param {number | string | null | undefined} value
 * @returns {string}
 */
export function formatValue(value) {
  if (value == null) return MISSING;
  if (typeof value === "string") return value;
  if (!Number.isFinite(value)) return String(value);
  const magnitude = Math.abs(value);
  if (magnitude !== 0 && (magnitude < 1e-4 || magnitude >= 1e9)) {
    return value.toExponential(3);
  }
  return DECIMAL.format(value);
}

/**
 * @param {number | null | undefined} first
 * @param {number | null | undefined} last
 * @returns {string} e.g. `0–400`
 */
export function formatSteps(first, last) {
  if (first == null || last == null) return MISSING;
  if (first === last) return formatInt(first);
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
