// One kind of data the Histograms view fetches (pairs, distances, diff, a
// ridge chart's histograms): the arguments it was asked with, the last
// answer, its error, and whether a request is out. A superseded answer is
// dropped (LatestRequest).

import { LatestRequest } from "../../model.js";

/**
 * One kind of data: the arguments it was asked with, the last answer.
 * @template T
 */
export class Slot {
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
  /**
   * Asks for `key` with `load`. The answer (or the error) becomes the
   * slot's unless a later request superseded it or the view is gone.
   * @param {string} key
   * @param {(signal: AbortSignal) => Promise<T>} load
   * @param {() => boolean} live false once the view is destroyed
   * @returns {Promise<boolean>} whether the slot took the outcome
   */
  async load(key, load, live) {
    this.key = key;
    this.loading = true;
    this.error = null;
    const outcome = await this.request.run(load);
    if (outcome.stale || !live()) return false;
    this.loading = false;
    if (outcome.error) {
      this.error = outcome.error.message;
    } else {
      this.value = outcome.value;
      this.valueKey = key;
    }
    return true;
  }
}
