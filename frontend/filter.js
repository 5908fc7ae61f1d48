// The filter boxes of the run lists: what the user types is a
// case-insensitive regex, or plain text when it is not a valid one.

import { frameworkLabel } from "./colors.js";

/**
 * @param {string} text
 * @returns {(value: string) => boolean}
 */
export function textMatcher(text) {
  if (!text) return () => true;
  try {
    const pattern = new RegExp(text, "i");
    return (value) => pattern.test(value);
  } catch {
    const needle = text.toLowerCase();
    return (value) => value.toLowerCase().includes(needle);
  }
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
