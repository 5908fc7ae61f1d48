// Talks to the plugin's HTTP API: fetch helpers, stale-response handling and
// the runs catalog, which polls `dataVersion` and tells views when data moved.

/**
 * @typedef {'pytorch' | 'tensorflow' | 'paddle' | 'unknown'} Framework
 *
 * @typedef {Object} RunInfo One entry of `GET runs`.
 * @property {string} run TensorBoard's run name (`/`-separated directory)
 * @property {string} group the logical run (Keras `x/train` → `x`)
 * @property {Framework} framework
 * @property {string} writer e.g. `torch.utils.tensorboard`, `keras`
 * @property {string} format `tfevents` or `visualdl`
 * @property {string} [displayName] a name the user set in the config file
 * @property {string[]} scalarTags the first 1,000 (GET runs?tags=all: all)
 * @property {string[]} histogramTags the first 1,000
 * @property {number} [scalarTagCount] how many scalar tags the run has
 * @property {number} [histogramTagCount]
 * @property {Record<string, string[]>} [otherTags] plugin name → tags
 * @property {number} numPoints scalar points read
 * @property {number} numHistograms
 * @property {boolean} [hasEpochAxis] its steps can be placed on epochs
 * @property {number | bigint | null} firstStep a BigInt beyond 2^53
 * @property {number | bigint | null} lastStep
 * @property {number | null} startTime epoch seconds
 * @property {number | null} endTime epoch seconds
 * @property {string | null} epochSource
 * @property {boolean} [hasLayout]
 * @property {string[]} [evidence] why this framework and writer
 * @property {string[]} [files]
 * @property {string[]} warnings
 * @property {string} [trainer] lightning | transformers | keras_fit |
 *     paddle_hapi | "" (the training loop on top of the writer)
 * @property {string[]} [trainerEvidence]
 * @property {string} [parent] the run this is a torch sub-run of
 * @property {string} [subRun] add_scalars | add_hparams | ""
 * @property {RunAttempt[]} [attempts] one per attempt of a resumed run
 * @property {string} [resumeNote] "resumed at step 40 · 20 points
 *     superseded", or ""
 * @property {RunSpeed | null} [speed] speed derived from wall time
 *
 * @typedef {Object} RunSpeed The `speed` summary of a `GET runs` entry.
 * @property {number | null} medianStepTime seconds
 * @property {number | null} stepsPerSecond steady
 * @property {number | null} samplesPerSecond when the batch size is known
 * @property {number | null} totalSeconds first to last point of the stream
 * @property {number | null} trainingSeconds resume downtime left out
 * @property {number} intervals logged intervals read
 * @property {number | null} medianEpochSeconds
 * @property {number} stalls
 * @property {string} stream the tag read
 * @property {string[]} timestampTags tags whose steps are timestamps
 * @property {string[] | null} sharedWriters files written at once
 * @property {Record<string, any>} [inferences] each inference (framework,
 *     trainer, epochAxis, resume, loops, parent) with `value`, `status`
 *     (evidence | unknown | set by you), `evidence`, `reason`, `howToSet`
 *
 * @typedef {Object} RunAttempt
 * @property {number} attempt 0 for the first
 * @property {number | null} startStep
 * @property {string} cause session_log | step_decrease | step_relogged | ""
 * @property {number} points scalar points logged in it
 * @property {number} superseded of those, replaced by a later attempt
 * @property {number} repeated of those, logged again at the same step
 *
 * @typedef {Object} RunsPayload The body of `GET runs`.
 * @property {RunInfo[]} runs
 * @property {boolean} loading true until the first load of the logdir ended
 * @property {number} dataVersion grows whenever the data changes
 * @property {string[]} errors global problems, e.g. a bad config file
 * @property {SourceInfo | null} [source] where the runs come from
 *
 * @typedef {Object} SourceInfo
 * @property {"files" | "provider"} kind the logdir's files, or TensorBoard's
 *   data provider
 * @property {string} location
 * @property {string} reason
 * @property {string[]} notices what this source misses, with the fix
 */

/** The plugin's route root; this module lives in `<root>/static/`. */
export const API_BASE = new URL("../", import.meta.url);

/** Milliseconds between two polls of `runs` while the tab is visible. */
export const POLL_INTERVAL_MS = 5000;
/** Milliseconds between polls while TensorBoard is still reading the logdir. */
export const LOADING_POLL_INTERVAL_MS = 1000;
/** Longest server message shown to the user, in characters. */
const MAX_ERROR_TEXT = 500;

/** An HTTP or network failure, with the server's `{"error"}` text. */
export class ApiError extends Error {
  /**
   * @param {string} message what went wrong, ready to show
   * @param {{status?: number, route?: string}} [details]
   */
  constructor(message, { status = 0, route = "" } = {}) {
    super(message);
    this.name = "ApiError";
    /** HTTP status, 0 for network failures. */
    this.status = status;
    /** The route that failed, e.g. `runs`. */
    this.route = route;
  }
}

/**
 * The absolute URL of a route; relative to this module, so it works under
 * `--path_prefix` and behind proxies. Array values repeat the parameter.
 * @param {string} route e.g. `runs` or `scalars`
 * @param {Record<string, string | number | boolean | null | undefined | (string | number)[]>} [params]
 * @returns {URL}
 */
export function apiUrl(route, params = {}) {
  const url = new URL(route, API_BASE);
  for (const [name, value] of Object.entries(params)) {
    if (value == null) continue;
    for (const item of Array.isArray(value) ? value : [value]) {
      url.searchParams.append(name, String(item));
    }
  }
  return url;
}

/**
 * GETs (or sends) JSON. A non-2xx answer becomes an ApiError carrying the
 * server's `{"error": "..."}` text; aborting rejects with the AbortError.
 * @param {string} route
 * @param {Parameters<typeof apiUrl>[1]} [params]
 * @param {{signal?: AbortSignal, method?: string, body?: unknown}} [options]
 *     a `body` is sent as JSON with the header TensorBoard's own frontend
 *     uses against cross-site requests
 * @returns {Promise<any>}
 */
export async function fetchJson(route, params = {}, options = {}) {
  const { signal, method = "GET", body } = options;
  /** @type {RequestInit} */
  const init = { method, signal, credentials: "same-origin" };
  if (body !== undefined) {
    init.headers = {
      "Content-Type": "application/json",
      "X-XSRF-Protected": "1",
    };
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(apiUrl(route, params), init);
  } catch (error) {
    if (isAbort(error)) throw error;
    throw new ApiError(
      `Cannot reach TensorBoard (${route}): ${errorText(error)}`,
      { route },
    );
  }
  const text = await response.text();
  /** @type {any} */
  let data = null;
  try {
    data = text ? parseJson(text) : null;
  } catch {
    data = null;
  }
  if (!response.ok) {
    const serverText =
      data && typeof data.error === "string"
        ? data.error
        : text.slice(0, MAX_ERROR_TEXT) || response.statusText;
    throw new ApiError(serverText || `HTTP ${response.status}`, {
      status: response.status,
      route,
    });
  }
  if (data === null) {
    throw new ApiError(`The ${route} route did not answer JSON`, {
      status: response.status,
      route,
    });
  }
  return data;
}

/** Digits enough to be beyond 2^53 (9,007,199,254,740,992: 16 digits). */
const LONG_INTEGER = /\d{16}/;

/**
 * JSON text parsed with every integer exact: an integer beyond 2^53
 * (a step up to 2^63 − 1, a seed) becomes a BigInt of its digits instead
 * of the nearest double (JSON.parse would turn 2^53 + 1 into 2^53).
 * Texts without 16 digits in a row are parsed as they are.
 * @param {string} text
 * @returns {any}
 */
export function parseJson(text) {
  if (!LONG_INTEGER.test(text)) return JSON.parse(text);
  return JSON.parse(
    text,
    (
      /** @type {string} */ _key,
      /** @type {unknown} */ value,
      /** @type {{source?: string}} */ context,
    ) =>
      typeof value === "number" &&
      !Number.isSafeInteger(value) &&
      context?.source !== undefined &&
      /^-?\d+$/.test(context.source)
        ? BigInt(context.source)
        : value,
  );
}

/**
 * @param {unknown} error
 * @returns {boolean} whether `error` is the rejection of an aborted fetch
 */
export function isAbort(error) {
  return error instanceof DOMException && error.name === "AbortError";
}

/**
 * @param {unknown} error
 * @returns {string} a message to show for any thrown value
 */
export function errorText(error) {
  if (error instanceof Error) return error.message;
  return String(error);
}

/**
 * @template T
 * @typedef {{stale: true} | {stale: false, value: T, error?: undefined}
 *     | {stale: false, error: ApiError, value?: undefined}} Outcome
 */

/**
 * Keeps only the newest of overlapping requests: starting a new one aborts
 * the previous, whose outcome comes back as `{stale: true}` for the caller
 * to drop. A view keeps one of these per kind of data it loads.
 */
export class LatestRequest {
  constructor() {
    /** @type {AbortController | null} */
    this._controller = null;
    this._generation = 0;
  }

  /**
   * @template T
   * @param {(signal: AbortSignal) => Promise<T>} load
   * @returns {Promise<Outcome<T>>}
   */
  async run(load) {
    this.cancel();
    const controller = new AbortController();
    this._controller = controller;
    const generation = ++this._generation;
    try {
      const value = await load(controller.signal);
      if (generation !== this._generation) return { stale: true };
      return { stale: false, value };
    } catch (error) {
      if (generation !== this._generation || isAbort(error)) {
        return { stale: true };
      }
      const apiError =
        error instanceof ApiError ? error : new ApiError(errorText(error));
      return { stale: false, error: apiError };
    } finally {
      if (this._controller === controller) this._controller = null;
    }
  }

  /** Aborts the request in flight, if any. */
  cancel() {
    this._generation++;
    this._controller?.abort();
    this._controller = null;
  }
}

/**
 * @typedef {Object} CatalogChange
 * @property {boolean} dataChanged `dataVersion` moved (or the first load
 *     arrived): views re-fetch their data
 * @property {boolean} statusChanged loading, errors or the fetch error moved
 */

/** @typedef {(catalog: Catalog, change: CatalogChange) => void} CatalogListener */

/**
 * The runs catalog: the latest `GET runs` payload, polled while the tab is
 * visible. Views subscribe and re-fetch their own data when `dataChanged`.
 */
export class Catalog {
  /**
   * @param {{intervalMs?: number, loadingIntervalMs?: number}} [options]
   */
  constructor({
    intervalMs = POLL_INTERVAL_MS,
    loadingIntervalMs = LOADING_POLL_INTERVAL_MS,
  } = {}) {
    /** @type {RunsPayload | null} */
    this.payload = null;
    /** The last failure of `GET runs`, cleared by the next success. */
    /** @type {ApiError | null} */
    this.error = null;
    /** Date.now() of the last successful fetch. */
    this.updatedAt = 0;
    this._intervalMs = intervalMs;
    this._loadingIntervalMs = loadingIntervalMs;
    this._request = new LatestRequest();
    /** @type {Set<CatalogListener>} */
    this._listeners = new Set();
    /** @type {ReturnType<typeof setTimeout> | null} */
    this._timer = null;
    this._started = false;
    /** @type {Map<string, RunInfo>} */
    this._byName = new Map();
    this._onVisible = () => {
      if (this._isShown()) void this.refresh();
    };
    /** @type {IntersectionObserver | null} */
    this._observer = null;
  }

  /** @returns {RunInfo[]} */
  get runs() {
    return this.payload?.runs ?? [];
  }

  /** @returns {boolean} true until the first answer (or error) arrived */
  get pending() {
    return this.payload === null && this.error === null;
  }

  /**
   * @param {string} name
   * @returns {RunInfo | undefined}
   */
  run(name) {
    return this._byName.get(name);
  }

  /**
   * Calls `listener` on every change, and at once if data is already there.
   * @param {CatalogListener} listener
   * @returns {() => void} unsubscribes
   */
  subscribe(listener) {
    this._listeners.add(listener);
    if (!this.pending) {
      listener(this, { dataChanged: true, statusChanged: true });
    }
    return () => this._listeners.delete(listener);
  }

  /** Starts polling; the first fetch goes out now. */
  start() {
    if (this._started) return;
    this._started = true;
    document.addEventListener("visibilitychange", this._onVisible);
    // TensorBoard hides the iframe of an inactive tab without changing
    // document.visibilityState; an observer sees the tab come back.
    if ("IntersectionObserver" in window) {
      this._observer = new IntersectionObserver((entries) => {
        if (entries.some((entry) => entry.isIntersecting)) this._onVisible();
      });
      this._observer.observe(document.documentElement);
    }
    void this.refresh();
  }

  /** Stops polling and drops the request in flight. */
  stop() {
    this._started = false;
    document.removeEventListener("visibilitychange", this._onVisible);
    this._observer?.disconnect();
    this._observer = null;
    if (this._timer !== null) clearTimeout(this._timer);
    this._timer = null;
    this._request.cancel();
  }

  /**
   * Fetches `runs` now and notifies listeners of what changed.
   * @returns {Promise<void>}
   */
  async refresh() {
    if (this._timer !== null) clearTimeout(this._timer);
    this._timer = null;
    const outcome = await this._request.run(
      (signal) =>
        /** @type {Promise<RunsPayload>} */ (fetchJson("runs", {}, { signal })),
    );
    if (outcome.stale) return;
    if (outcome.error) {
      const statusChanged = this.error?.message !== outcome.error.message;
      this.error = outcome.error;
      this._notify({ dataChanged: false, statusChanged });
    } else {
      this._accept(outcome.value);
    }
    this._schedule();
  }

  /** @param {RunsPayload} payload */
  _accept(payload) {
    const previous = this.payload;
    const normalized = {
      ...payload,
      runs: Array.isArray(payload.runs) ? payload.runs : [],
      errors: Array.isArray(payload.errors) ? payload.errors : [],
      loading: Boolean(payload.loading),
    };
    const dataChanged =
      previous === null ||
      previous.dataVersion !== normalized.dataVersion ||
      previous.runs.length !== normalized.runs.length;
    const statusChanged =
      previous === null ||
      this.error !== null ||
      previous.loading !== normalized.loading ||
      previous.errors.join("\n") !== normalized.errors.join("\n") ||
      String(previous.source?.notices) !== String(normalized.source?.notices);
    this.error = null;
    this.updatedAt = Date.now();
    if (dataChanged) {
      this.payload = normalized;
      this._byName = new Map(normalized.runs.map((run) => [run.run, run]));
    } else {
      this.payload = { ...previous, ...normalized, runs: previous.runs };
    }
    if (dataChanged || statusChanged) {
      this._notify({ dataChanged, statusChanged });
    }
  }

  /** @param {CatalogChange} change */
  _notify(change) {
    for (const listener of [...this._listeners]) {
      try {
        listener(this, change);
      } catch (error) {
        // One broken view must not stop the others from updating.
        console.warn("tb_multiframework: a view failed to update", error);
      }
    }
  }

  _schedule() {
    if (!this._started) return;
    const delay = this.payload?.loading
      ? this._loadingIntervalMs
      : this._intervalMs;
    this._timer = setTimeout(() => {
      this._timer = null;
      if (this._isShown()) void this.refresh();
      else this._schedule();
    }, delay);
  }

  /** @returns {boolean} whether the user can see the tab */
  _isShown() {
    if (document.visibilityState === "hidden") return false;
    try {
      const frame = window.frameElement;
      // An inactive TensorBoard tab is display:none: no client rects.
      return !frame || frame.getClientRects().length > 0;
    } catch {
      return true;
    }
  }
}

// Scalars answers with compact arrays (`encoding=b64`, docs/api.md).

/** The numeric array fields of a series, diff, aggregate or group diff. */
const PACKED_FIELDS = Object.freeze([
  "x",
  "y",
  "yMin",
  "yMax",
  "smoothed",
  "steps",
  "lower",
  "upper",
  "count",
  "countBaseline",
]);

/** The lists of a scalars answer whose entries carry packed arrays. */
const PACKED_LISTS = Object.freeze([
  "series",
  "diffs",
  "aggregates",
  "groupDiffs",
]);

/** Typed array constructors by the server's `dtype`. */
const DTYPES = Object.freeze({
  f4: Float32Array,
  f8: Float64Array,
  i4: Int32Array,
  i8: BigInt64Array,
});

/**
 * A page of the metric index (`GET metrics`) and, beyond it, the entries of
 * `wanted` keys the page does not hold (a chosen or pinned metric further
 * down the index is still shown).
 * @param {{search: string, runs: string[], limit: number,
 *     wanted: string[]}} query
 * @param {AbortSignal} signal
 * @returns {Promise<{entries: any[], total: number}>}
 */
export async function fetchMetricPage({ search, runs, limit, wanted }, signal) {
  const page = await fetchJson(
    "metrics",
    { search, run: runs, limit },
    { signal },
  );
  const entries = Array.isArray(page?.metrics) ? page.metrics : [];
  const missing = wanted.filter((k) => !entries.some((e) => e.key === k));
  if (missing.length > 0) {
    const more = await fetchJson("metrics", { key: missing }, { signal });
    entries.push(...(Array.isArray(more?.metrics) ? more.metrics : []));
  }
  return { entries, total: Number(page?.total ?? entries.length) };
}

/**
 * GETs `scalars` with compact arrays and decodes them: each numeric array
 * of every series, diff, aggregate and group diff arrives as a typed array
 * (NaN and ±Infinity are
 * plain IEEE values in it, no strings), in the same shape as the plain
 * JSON answer otherwise.
 * @param {Parameters<typeof apiUrl>[1]} params the scalars arguments
 * @param {{signal?: AbortSignal}} [options]
 * @returns {Promise<any>} the answer, arrays decoded
 */
export async function fetchScalars(params, options = {}) {
  const payload = await fetchJson(
    "scalars",
    { ...params, encoding: "b64" },
    options,
  );
  return decodeScalars(payload);
}

/**
 * Decodes the packed arrays of a scalars answer in place.
 * @param {any} payload the body of `GET scalars?encoding=b64`
 * @returns {any} the same object, with typed arrays
 */
export function decodeScalars(payload) {
  const entries = PACKED_LISTS.flatMap((list) => payload[list] ?? []);
  for (const entry of entries) {
    for (const field of PACKED_FIELDS) {
      const value = entry[field];
      if (value && typeof value.b64 === "string") {
        entry[field] = decodeArray(value.dtype, value.b64);
      }
    }
    for (const field of PACKED_FIELDS) {
      const value = entry[field];
      if (value && typeof value.sameAs === "string") {
        const source = entry[value.sameAs];
        if (!ArrayBuffer.isView(source)) {
          throw new ApiError(`scalars: ${field} refers to ${value.sameAs}`);
        }
        // A copy, so that no two fields share one buffer.
        entry[field] = /** @type {any} */ (source).slice();
      }
    }
  }
  return payload;
}

/**
 * @param {string} dtype `f4`, `f8`, `i4` or `i8`
 * @param {string} b64 base64 of the little-endian values
 * @returns {Float32Array | Float64Array | Int32Array | BigInt64Array}
 */
function decodeArray(dtype, b64) {
  const Type = DTYPES[/** @type {keyof typeof DTYPES} */ (dtype)];
  if (!Type) throw new ApiError(`scalars: unknown array type ${dtype}`);
  const text = atob(b64);
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  if (bytes.length % Type.BYTES_PER_ELEMENT !== 0) {
    throw new ApiError(`scalars: ${bytes.length} bytes are not ${dtype}s`);
  }
  // Typed arrays use the machine's byte order: little-endian on every
  // platform a browser runs on (x86, ARM, RISC-V as configured by them).
  return new Type(bytes.buffer);
}
