// The filter boxes of the run and metric lists: what the user types is a
// case-insensitive regex, or plain text when it is not a valid one.
//
// The regex runs in the user's own tab (JavaScript's backtracking RegExp),
// but it may come from a shared link, so a pattern that can backtrack
// catastrophically is not run as a regex: it is matched as plain text and
// the box says so. Refused as regex: backreferences, a quantified group
// that itself holds a quantifier or an alternation (`(a+)+`, `(a|ab)*`),
// and more than MAX_UNBOUNDED unbounded quantifiers (`.*a.*b.*c` is cubic).
// Regexes are applied to the first MAX_MATCHED_CHARS characters of a name.

import { frameworkLabel } from "./colors.js";
import { t } from "./i18n.js";

/** Longest pattern compiled as a regex, in characters. */
export const MAX_PATTERN_LENGTH = 200;
/** Characters of a name a regex is applied to. */
export const MAX_MATCHED_CHARS = 512;
/** Most unbounded quantifiers (`*`, `+`, `{n,}`) in one pattern. */
export const MAX_UNBOUNDED = 2;

/**
 * @typedef {Object} CompiledFilter
 * @property {(value: string) => boolean} test
 * @property {'all' | 'regex' | 'text'} mode
 * @property {string} note why a pattern is matched as text ("" otherwise)
 */

/**
 * Why `pattern` may backtrack catastrophically, or "" when it is safe to
 * run (its cost stays polynomial of a low degree in the name's length).
 * @param {string} pattern
 * @returns {string}
 */
export function unsafeRegexReason(pattern) {
  if (pattern.length > MAX_PATTERN_LENGTH) return t("filter.tooLong");
  /** Per open group: does it hold a quantifier or an alternation? */
  const groups = [{ risky: false }];
  let unbounded = 0;
  let lastGroupRisky = false;
  let i = 0;
  while (i < pattern.length) {
    const c = pattern[i];
    let closedGroup = false;
    if (c === "\\") {
      const next = pattern[i + 1] ?? "";
      if (/[1-9]/.test(next) || next === "k") {
        return t("filter.backreference");
      }
      i += 2;
    } else if (c === "[") {
      // A character class: skip to its end (a `]` first is literal).
      i++;
      if (pattern[i] === "^") i++;
      if (pattern[i] === "]") i++;
      while (i < pattern.length && pattern[i] !== "]") {
        i += pattern[i] === "\\" ? 2 : 1;
      }
      i++;
    } else if (c === "(") {
      groups.push({ risky: false });
      i++;
      // (?:, (?=, (?!, (?<=, (?<!, (?<name>
      if (pattern[i] === "?") {
        i++;
        if (pattern[i] === "<" && pattern[i + 1] !== "=" && pattern[i + 1] !== "!") {
          while (i < pattern.length && pattern[i] !== ">") i++;
        }
        i++;
      }
    } else if (c === ")") {
      const group = groups.length > 1 ? groups.pop() : { risky: false };
      lastGroupRisky = Boolean(group?.risky);
      closedGroup = true;
      i++;
    } else if (c === "|") {
      groups[groups.length - 1].risky = true;
      i++;
    } else {
      i++;
    }
    // A quantifier after this atom?
    const quantifier = readQuantifier(pattern, i);
    if (quantifier) {
      if (quantifier.unbounded) unbounded++;
      if (closedGroup && lastGroupRisky && quantifier.repeats) {
        return t("filter.nestedRepeat");
      }
      for (const group of groups) group.risky = true;
      i += quantifier.length;
    }
  }
  if (unbounded > MAX_UNBOUNDED) {
    return t("filter.unbounded", { n: MAX_UNBOUNDED });
  }
  return "";
}

/**
 * @param {string} pattern
 * @param {number} i
 * @returns {{length: number, unbounded: boolean, repeats: boolean} | null}
 */
function readQuantifier(pattern, i) {
  const c = pattern[i];
  let length = 0;
  let unbounded = false;
  let repeats = false;
  if (c === "*" || c === "+") {
    length = 1;
    unbounded = true;
    repeats = true;
  } else if (c === "?") {
    length = 1;
  } else if (c === "{") {
    const match = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(i));
    if (!match) return null;
    length = match[0].length;
    unbounded = match[2] !== undefined && match[3] === "";
    const most = match[2] === undefined ? Number(match[1]) : Number(match[3]);
    repeats = unbounded || most > 1;
  } else {
    return null;
  }
  // A lazy or possessive-looking suffix belongs to the quantifier.
  if (pattern[i + length] === "?") length++;
  return { length, unbounded, repeats };
}

/**
 * @param {string} text what the user typed
 * @returns {CompiledFilter}
 */
export function compileFilter(text) {
  if (!text) return { test: () => true, mode: "all", note: "" };
  const needle = text.toLowerCase();
  const asText = (/** @type {string} */ note) => ({
    test: (/** @type {string} */ value) => value.toLowerCase().includes(needle),
    mode: /** @type {const} */ ("text"),
    note,
  });
  const unsafe = unsafeRegexReason(text);
  if (unsafe) return asText(t("filter.asText", { reason: unsafe }));
  let pattern;
  try {
    pattern = new RegExp(text, "i");
  } catch {
    return asText(t("filter.asText", { reason: t("filter.invalid") }));

  }
  return {
    test: (value) => pattern.test(value.slice(0, MAX_MATCHED_CHARS)),
    mode: "regex",
    note: "",
  };
}

/**
 * @param {string} text
 * @returns {(value: string) => boolean}
 */
export function textMatcher(text) {
  return compileFilter(text).test;
}

/**
 * Matches a run by name, display name, group, framework and writer.
 * @param {string} text
 * @returns {(run: import("./model.js").RunInfo) => boolean}
 */
export function runMatcher(text) {
  if (!text) return () => true;
  const test = textMatcher(text);
  return (run) =>
    [
      run.run,
      run.displayName ?? "",
      run.group,
      run.framework,
      frameworkLabel(run.framework),
      run.writer,
    ].some(test);
}

/** State keys of the run filter shared by the Compare and Layouts lists. */
export const RUN_FILTER_KEYS = Object.freeze({
  query: "rq", // the filter text
  narrow: "rqn", // "1": the charts show only matching runs (TensorBoard's way)
});

/**
 * The runs the charts draw: the selected ones, and with "narrow" on only
 * those matching the run filter, as TensorBoard's run filter does.
 * @param {import("./state.js").AppState} state
 * @param {import("./model.js").RunInfo[]} runs every run, in catalog order
 * @returns {string[]}
 */
export function runsOnScreen(state, runs) {
  const selected = state.selectedRuns(runs.map((r) => r.run));
  const query = state.get(RUN_FILTER_KEYS.query);
  if (state.get(RUN_FILTER_KEYS.narrow) !== "1" || !query) return selected;
  const matches = runMatcher(query);
  const matching = new Set(runs.filter(matches).map((r) => r.run));
  return selected.filter((run) => matching.has(run));
}
