// View state ↔ URL, and the run selection every view shares.
//
// The state is a flat map of short string keys (`view`, `q`, `sort`, `sel`,
// ... later views add their own). It is written to two places:
//   1. the iframe's own `location.hash` (`#view=runs&q=keras`), and
//   2. TensorBoard's page URL, as hash parameters prefixed `tbmf.`
//      (`/#tb_multiframework&tbmf.view=runs&tbmf.q=keras`).
// TensorBoard keeps unknown hash parameters when it rewrites its hash (its
// tf_storage parses `#<tab>&key=value&...` into a dict and writes the whole
// dict back), so a copied TensorBoard URL reproduces the view; the iframe
// itself is recreated with a bare URL on every page load. See README.md.

/** TensorBoard's id of this plugin: the `<tab>` part of its hash. */
export const PLUGIN_ID = "tb_multiframework";
/** Prefix of this plugin's parameters in TensorBoard's hash. */
export const PARENT_PREFIX = "tbmf.";
/** TensorBoard's hash dict key of the active tab (tf_storage's `__tab__`). */
const TAB_KEY = "__tab__";
/** Longest state value kept, in characters; longer ones are dropped. */
const MAX_VALUE_LENGTH = 8000;

/** The views of the app, in header order. */
export const VIEWS = Object.freeze([
  "runs",
  "compare",
  "metrics",
  "layouts",
  "histograms",
]);
/** State keys the shell owns. Views pick their own short keys. */
export const KEYS = Object.freeze({
  view: "view",
  selection: "sel",
});

/**
 * @typedef {(changed: Set<string>, state: AppState) => void} StateListener
 */

/**
 * Encodes a list of names into one value: comma-separated, with `%` and `,`
 * escaped so names may contain commas.
 * @param {string[]} items
 * @returns {string}
 */
export function encodeList(items) {
  return items
    .map((item) => item.replaceAll("%", "%25").replaceAll(",", "%2C"))
    .join(",");
}

/**
 * The inverse of encodeList; an empty string is the empty list.
 * @param {string} text
 * @returns {string[]}
 */
export function decodeList(text) {
  if (!text) return [];
  return text
    .split(",")
    .map((item) => item.replaceAll("%2C", ",").replaceAll("%25", "%"));
}

/**
 * Parses TensorBoard's hash (without `#`) the way its tf_storage does: `&`
 * separates items, an item without `=` is the active tab, others are
 * URI-encoded `key=value` pairs.
 * @param {string} hash
 * @returns {Record<string, string>}
 */
export function parseTensorBoardHash(hash) {
  /** @type {Record<string, string>} */
  const dict = {};
  for (const item of hash.split("&")) {
    const parts = item.split("=");
    try {
      if (parts.length === 1) dict[TAB_KEY] = parts[0];
      else if (parts.length === 2) {
        dict[decodeURIComponent(parts[0])] = decodeURIComponent(parts[1]);
      }
    } catch {
      // A malformed escape in someone else's parameter: skip that item.
    }
  }
  return dict;
}

/**
 * The inverse of parseTensorBoardHash, in tf_storage's order: tab first.
 * @param {Record<string, string>} dict
 * @returns {string}
 */
export function formatTensorBoardHash(dict) {
  const items = Object.entries(dict)
    .filter(([key]) => key !== TAB_KEY)
    .map(
      ([key, value]) =>
        `${encodeURIComponent(key)}=${encodeURIComponent(value)}`,
    );
  const tab = dict[TAB_KEY] ?? "";
  return items.length > 0 ? `${tab}&${items.join("&")}` : tab;
}

/**
 * The URL-backed state of the app. One instance, shared by all views.
 */
export class AppState {
  /**
   * @param {{win?: Window}} [options] the iframe's window (tests may pass
   *     another)
   */
  constructor({ win = window } = {}) {
    this._win = win;
    /** @type {Map<string, string>} */
    this._values = new Map();
    /** @type {Set<StateListener>} */
    this._listeners = new Set();
    this._onIframeHash = () => this._adopt(this._readIframe());
    this._onParentHash = () => {
      const parent = this._readParent();
      if (parent !== null) this._adopt(parent);
    };
    /** @type {Window | null} */
    this._parent = this._sameOriginParent();

    const fromParent = this._readParent();
    const fromIframe = this._readIframe();
    // A reload of TensorBoard recreates the iframe without a hash, so the
    // parent URL is the source of truth when it carries our parameters.
    const initial =
      fromParent !== null && fromParent.size > 0 ? fromParent : fromIframe;
    this._values = initial;
    this._write();
    this._win.addEventListener("hashchange", this._onIframeHash);
    this._parent?.addEventListener("hashchange", this._onParentHash);
  }

  /** Stops following URL changes. */
  dispose() {
    this._win.removeEventListener("hashchange", this._onIframeHash);
    this._parent?.removeEventListener("hashchange", this._onParentHash);
    this._listeners.clear();
  }

  /**
   * @param {string} key
   * @param {string} [fallback]
   * @returns {string}
   */
  get(key, fallback = "") {
    return this._values.get(key) ?? fallback;
  }

  /**
   * @param {string} key
   * @returns {boolean}
   */
  has(key) {
    return this._values.has(key);
  }

  /**
   * Sets keys; `null`, `undefined` or `""` removes a key. Listeners hear the
   * keys that really changed, once a call.
   * @param {Record<string, string | null | undefined>} patch
   * @param {{notify?: boolean}} [options] `notify: false` only records the
   *     values in the URLs (bookkeeping no view draws from, such as the
   *     remembered run colours): no listener runs
   */
  update(patch, { notify = true } = {}) {
    const next = new Map(this._values);
    for (const [key, value] of Object.entries(patch)) {
      if (value == null || value === "") next.delete(key);
      else next.set(key, String(value).slice(0, MAX_VALUE_LENGTH));
    }
    this._adopt(next, { write: true, notify });
  }

  /**
   * Listens to changes, from this app or from the URL (back/forward, a
   * pasted link).
   * @param {StateListener} listener
   * @returns {() => void} unsubscribes
   */
  subscribe(listener) {
    this._listeners.add(listener);
    return () => this._listeners.delete(listener);
  }

  /** @returns {string} the active view, one of VIEWS */
  get view() {
    const view = this.get(KEYS.view, VIEWS[0]);
    return VIEWS.includes(view) ? view : VIEWS[0];
  }

  /**
   * The selected runs, or null when every run is selected (the default, so
   * runs that appear later are selected too).
   * @returns {Set<string> | null}
   */
  get selection() {
    if (!this.has(KEYS.selection)) return null;
    const raw = this.get(KEYS.selection);
    // `sel=-` is an explicit empty selection, distinct from "all".
    return new Set(raw === "-" ? [] : decodeList(raw));
  }

  /**
   * @param {Iterable<string> | null} runs null selects every run
   */
  setSelection(runs) {
    if (runs === null) {
      this.update({ [KEYS.selection]: null });
      return;
    }
    const list = [...new Set(runs)].sort();
    this.update({ [KEYS.selection]: list.length ? encodeList(list) : "-" });
  }

  /**
   * Adds `runs` to the selection (or removes them). Selecting every run is
   * stored as "all", so runs that appear later join it.
   * @param {string[]} all every run name
   * @param {string[]} runs
   * @param {boolean} select
   */
  changeSelection(all, runs, select) {
    const current = new Set(this.selectedRuns(all));
    for (const run of runs) {
      if (select) current.add(run);
      else current.delete(run);
    }
    this.setSelection(all.every((run) => current.has(run)) ? null : current);
  }

  /**
   * @param {string} run
   * @returns {boolean}
   */
  isSelected(run) {
    const selection = this.selection;
    return selection === null || selection.has(run);
  }

  /**
   * The selected runs among `runs`, in the given order.
   * @param {string[]} runs all run names
   * @returns {string[]}
   */
  selectedRuns(runs) {
    const selection = this.selection;
    return selection === null ? runs : runs.filter((run) => selection.has(run));
  }

  /**
   * The link that reproduces this view: TensorBoard's URL when the iframe can
   * reach it (same origin), else the iframe's own.
   * @returns {string}
   */
  shareableUrl() {
    this._write();
    try {
      if (this._parent) return this._parent.location.href;
    } catch {
      // Fall through to the iframe URL.
    }
    return this._win.location.href;
  }

  /** @returns {string} the state as a query string, e.g. `view=runs&q=x` */
  toQueryString() {
    const params = new URLSearchParams();
    for (const key of [...this._values.keys()].sort()) {
      params.set(key, /** @type {string} */ (this._values.get(key)));
    }
    return params.toString();
  }

  /**
   * Replaces the values, writes the URLs when asked, notifies on change.
   * @param {Map<string, string>} next
   * @param {{write?: boolean, notify?: boolean}} [options]
   */
  _adopt(next, { write = false, notify = true } = {}) {
    /** @type {Set<string>} */
    const changed = new Set();
    for (const key of new Set([...this._values.keys(), ...next.keys()])) {
      if (this._values.get(key) !== next.get(key)) changed.add(key);
    }
    this._values = next;
    if (write || changed.size > 0) this._write();
    if (changed.size === 0 || !notify) return;
    for (const listener of [...this._listeners]) listener(changed, this);
  }

  /** @returns {Map<string, string>} */
  _readIframe() {
    const hash = this._win.location.hash.replace(/^#/, "");
    const values = new Map();
    for (const [key, value] of new URLSearchParams(hash)) {
      if (value) values.set(key, value);
    }
    return values;
  }

  /** @returns {Map<string, string> | null} null when the parent is unreachable */
  _readParent() {
    if (!this._parent) return null;
    try {
      const dict = parseTensorBoardHash(
        this._parent.location.hash.replace(/^#/, ""),
      );
      const values = new Map();
      for (const [key, value] of Object.entries(dict)) {
        if (key.startsWith(PARENT_PREFIX) && value) {
          values.set(key.slice(PARENT_PREFIX.length), value);
        }
      }
      return values;
    } catch {
      return null;
    }
  }

  /** Writes both URLs without adding history entries. */
  _write() {
    const query = this.toQueryString();
    const iframeUrl = new URL(this._win.location.href);
    iframeUrl.hash = query;
    if (iframeUrl.href !== this._win.location.href) {
      // replaceState: the iframe shares the joint session history with
      // TensorBoard, and every filter keystroke must not become a Back step.
      this._win.history.replaceState(this._win.history.state, "", iframeUrl);
    }
    this._writeParent();
  }

  _writeParent() {
    const parent = this._parent;
    if (!parent) return;
    try {
      const dict = parseTensorBoardHash(parent.location.hash.replace(/^#/, ""));
      // Only while our tab is the active one: never rewrite the URL of a
      // tab the user moved on to.
      if (dict[TAB_KEY] !== PLUGIN_ID) return;
      for (const key of Object.keys(dict)) {
        if (key.startsWith(PARENT_PREFIX)) delete dict[key];
      }
      for (const key of [...this._values.keys()].sort()) {
        dict[PARENT_PREFIX + key] = /** @type {string} */ (
          this._values.get(key)
        );
      }
      const url = new URL(parent.location.href);
      url.hash = formatTensorBoardHash(dict);
      if (url.href !== parent.location.href) {
        parent.history.replaceState(parent.history.state, "", url);
      }
    } catch (error) {
      // A parent that turned cross-origin (or a sandbox): keep the iframe URL.
      console.warn("tb_multiframework: cannot update the page URL", error);
      this._parent = null;
    }
  }

  /** @returns {Window | null} TensorBoard's window when same-origin */
  _sameOriginParent() {
    const parent = this._win.parent;
    if (!parent || parent === this._win) return null;
    try {
      // Reading location.href throws for a cross-origin parent.
      void parent.location.href;
      return parent;
    } catch {
      return null;
    }
  }
}
