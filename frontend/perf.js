// Interaction timings: from the user's input to the chart redrawn with its
// result (the next frame after the draw). Each one becomes a performance
// measure named `tbmf:<kind>` (`detail: {fetched}`) that the browser tests
// read and report; the tab itself never shows them.
//
//   markInput("axis", event);   // in the input handler
//   fetchStarted();             // a request the redraw has to wait for
//   fetchDone();                // its answer is about to be drawn
//   chartDrawn();               // a chart finished drawing

/** An input older than this is dropped unmeasured, in milliseconds. */
const STALE_MS = 20000;

/**
 * @typedef {Object} Pending
 * @property {string} kind
 * @property {number} start performance.now() time base
 * @property {number} waiting requests the redraw waits for
 * @property {boolean} fetched a request was involved
 */

/** @type {Pending | null} */
let pending = null;

/**
 * Starts timing an interaction (a newer input replaces an unfinished one).
 * @param {string} kind e.g. `axis`, `log-y`, `zoom`
 * @param {Event} [event] its time stamp is the start (else now)
 */
export function markInput(kind, event) {
  const stamp = event?.timeStamp;
  const start =
    typeof stamp === "number" && stamp > 0 && stamp <= performance.now()
      ? stamp
      : performance.now();
  pending = { kind, start, waiting: 0, fetched: false };
}

/** The pending interaction needs a server answer before its redraw. */
export function fetchStarted() {
  if (!pending) return;
  pending.waiting++;
  pending.fetched = true;
}

/** An answer arrived (or was dropped): one request fewer to wait for. */
export function fetchDone() {
  if (pending && pending.waiting > 0) pending.waiting--;
}

/** A chart drew: ends the pending interaction unless it awaits data. */
export function chartDrawn() {
  const current = pending;
  if (!current || current.waiting > 0) return;
  if (performance.now() - current.start > STALE_MS) {
    pending = null;
    return;
  }
  pending = null;
  requestAnimationFrame(() => {
    performance.measure(`tbmf:${current.kind}`, {
      start: current.start,
      end: performance.now(),
      detail: { fetched: current.fetched },
    });
  });
}
