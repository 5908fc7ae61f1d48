// Follows TensorBoard's dark mode.
//
// TensorBoard 2.21 marks dark mode with the class `dark-mode` on its own
// `<body>` (its dark-mode-supporter toggles it from the header's toggle, the
// `?darkMode=true` parameter, or the browser's preference when the user left
// it on "browser default"). The iframe is same-origin, so we read that class
// and watch it with a MutationObserver. Outside TensorBoard (or cross-origin)
// we fall back to `prefers-color-scheme`.
//
// The result is `data-theme="dark" | "light"` on our <html>; styles.css keys
// its colour variables off it.

const DARK_CLASS = "dark-mode";
const DARK_QUERY = "(prefers-color-scheme: dark)";

/** @typedef {(dark: boolean) => void} ThemeListener */

export class Theme {
  /**
   * @param {{win?: Window}} [options]
   */
  constructor({ win = window } = {}) {
    this._win = win;
    this._dark = false;
    /** @type {Set<ThemeListener>} */
    this._listeners = new Set();
    /** @type {MutationObserver | null} */
    this._observer = null;
    this._media = win.matchMedia ? win.matchMedia(DARK_QUERY) : null;
    this._onMedia = () => this._update();
    /** @type {HTMLElement | null} */
    this._parentBody = null;
  }

  /** @returns {boolean} */
  get dark() {
    return this._dark;
  }

  /** Starts following TensorBoard (or the browser) and applies the theme. */
  start() {
    this._parentBody = this._findParentBody();
    if (this._parentBody) {
      this._observer = new MutationObserver(() => this._update());
      this._observer.observe(this._parentBody, {
        attributes: true,
        attributeFilter: ["class"],
      });
    } else {
      this._media?.addEventListener("change", this._onMedia);
    }
    this._update(true);
  }

  stop() {
    this._observer?.disconnect();
    this._observer = null;
    this._media?.removeEventListener("change", this._onMedia);
    this._listeners.clear();
  }

  /**
   * @param {ThemeListener} listener called on every change
   * @returns {() => void} unsubscribes
   */
  subscribe(listener) {
    this._listeners.add(listener);
    return () => this._listeners.delete(listener);
  }

  /** @param {boolean} [force] apply even if unchanged */
  _update(force = false) {
    const dark = this._parentBody
      ? this._parentBody.classList.contains(DARK_CLASS)
      : Boolean(this._media?.matches);
    if (dark === this._dark && !force) return;
    this._dark = dark;
    const root = this._win.document.documentElement;
    root.dataset.theme = dark ? "dark" : "light";
    root.style.colorScheme = dark ? "dark" : "light";
    for (const listener of [...this._listeners]) listener(dark);
  }

  /** @returns {HTMLElement | null} TensorBoard's body, if reachable */
  _findParentBody() {
    const parent = this._win.parent;
    if (!parent || parent === this._win) return null;
    try {
      const body = parent.document.body;
      // Only TensorBoard's page: a bare parent that never sets the class
      // would pin us to light mode.
      return parent.document.querySelector("tb-webapp") ? body : null;
    } catch {
      return null;
    }
  }
}

/**
 * The current value of a CSS custom property on our <html>, for canvas
 * drawing that cannot use CSS (chart axes and grid).
 * @param {string} name e.g. `--chart-axis`
 * @param {string} [fallback]
 * @returns {string}
 */
export function cssVar(name, fallback = "") {
  // Read once per theme: getComputedStyle brought the page's styles up to
  // date on every chart redraw. The variables follow <html>'s attributes.
  const root = document.documentElement;
  const context = `${root.dataset.theme}|${root.className}|${root.getAttribute("style")}`;
  if (context !== cssContext) {
    cssContext = context;
    cssValues.clear();
  }
  let value = cssValues.get(name);
  if (value === undefined) {
    value = getComputedStyle(root).getPropertyValue(name).trim();
    // Not defined (yet: a stylesheet still loading): ask again next time.
    if (value) cssValues.set(name, value);
  }
  return value || fallback;
}

/** The <html> attributes the cached variables were read under. */
let cssContext = "";
/** @type {Map<string, string>} */
const cssValues = new Map();
