// The app shell: header with the view switcher, global banners, and the
// active view. Views live in views/ and share one context (see ViewContext).

import { bindColorScope } from "./colors.js";
import { ensureStylesheet, h, icon } from "./dom.js";
import { RUN_FILTER_KEYS, runsOnScreen } from "./filter.js";
import { Catalog, errorText } from "./model.js";
import { AppState, KEYS, VIEWS } from "./state.js";
import { Theme } from "./theme.js";

/**
 * What every view gets.
 * @typedef {Object} ViewContext
 * @property {Catalog} catalog the runs catalog; subscribe for dataVersion
 * @property {AppState} state URL-backed state and the shared run selection
 * @property {Theme} theme
 * @property {(message: string, kind?: 'info' | 'error') => void} toast
 */

/**
 * A view module exports `mount(root, ctx)`, builds its DOM inside `root` and
 * returns a function that undoes everything it set up (listeners, timers,
 * charts). The shell clears `root` afterwards.
 * @typedef {{mount: (root: HTMLElement, ctx: ViewContext) => () => void}} ViewModule
 */

/** @type {Record<string, {label: string, load: () => Promise<ViewModule>}>} */
const VIEW_MODULES = {
  runs: { label: "Runs", load: () => import("./views/runs.js") },
  compare: { label: "Compare", load: () => import("./views/compare.js") },
  layouts: { label: "Layouts", load: () => import("./views/layouts.js") },
  histograms: {
    label: "Histograms",
    load: () => import("./views/histograms.js"),
  },
};

/** Milliseconds a toast stays up. */
const TOAST_MS = 2600;
/** Milliseconds to wait for the stylesheets before showing the app anyway. */
const STYLESHEET_TIMEOUT_MS = 3000;

let mounted = false;

/**
 * Builds the app inside `root` (the iframe's body). Idempotent.
 * @param {HTMLElement} root
 * @returns {Promise<App | null>}
 */
export async function mountApp(root) {
  if (mounted) return null;
  mounted = true;
  await loadStylesheets();
  const app = new App(root);
  app.start();
  return app;
}

/** Links uPlot's and our CSS; resolves once both loaded (or timed out). */
function loadStylesheets() {
  const links = [
    ensureStylesheet(new URL("./vendor/uplot/uPlot.min.css", import.meta.url)),
    ensureStylesheet(new URL("./styles.css", import.meta.url)),
  ];
  return Promise.race([
    Promise.all(
      links.map(
        (link) =>
          new Promise((resolve) => {
            if (link.sheet) resolve(null);
            link.addEventListener("load", resolve, { once: true });
            link.addEventListener("error", resolve, { once: true });
          }),
      ),
    ),
    new Promise((resolve) => setTimeout(resolve, STYLESHEET_TIMEOUT_MS)),
  ]);
}

export class App {
  /** @param {HTMLElement} root */
  constructor(root) {
    this.root = root;
    this.theme = new Theme();
    this.state = new AppState();
    this.catalog = new Catalog();
    // Run colours follow the runs on screen (the selection, narrowed by the
    // run filter when it narrows the charts) and the pins.
    bindColorScope(this.state, this.catalog, {
      runs: () => runsOnScreen(this.state, this.catalog.runs),
      signature: () =>
        this.state.get(RUN_FILTER_KEYS.narrow) === "1"
          ? this.state.get(RUN_FILTER_KEYS.query)
          : "",
    });
    /** @type {(() => void) | null} */
    this._unmountView = null;
    /** @type {string | null} */
    this._viewId = null;
    this._viewGeneration = 0;
    /** @type {ReturnType<typeof setTimeout> | null} */
    this._toastTimer = null;
    /** @type {ViewContext} */
    this.context = {
      catalog: this.catalog,
      state: this.state,
      theme: this.theme,
      toast: (message, kind) => this.toast(message, kind),
    };

    /** @type {Map<string, HTMLButtonElement>} */
    this._tabs = new Map(
      VIEWS.map((id) => [
        id,
        h("button", {
          className: "tbmf-tab",
          text: VIEW_MODULES[id].label,
          attrs: { type: "button", role: "tab", "aria-selected": "false" },
          dataset: { view: id },
          on: { click: () => this.state.update({ [KEYS.view]: id }) },
        }),
      ]),
    );
    this._status = h("span", {
      className: "tbmf-status",
      attrs: { "aria-live": "polite" },
    });
    this._banners = h("div", { className: "tbmf-banners" });
    this._main = h("main", { className: "tbmf-main" });
    this._toast = h("div", {
      className: "tbmf-toast",
      attrs: { role: "status", "aria-live": "polite", hidden: true },
    });
    this._refreshButton = h(
      "button",
      {
        className: "tbmf-icon-button",
        title: "Reload runs now",
        attrs: { type: "button", "aria-label": "Reload runs now" },
        on: { click: () => void this.catalog.refresh() },
      },
      icon("refresh"),
    );
    this._copyButton = h(
      "button",
      {
        className: "tbmf-button tbmf-copy-link",
        title: "Copy a TensorBoard link that reopens this view",
        attrs: { type: "button" },
        on: { click: () => void this.copyLink() },
      },
      icon("link"),
      h("span", { text: "Copy link" }),
    );
    this.element = h(
      "div",
      { className: "tbmf-app" },
      h(
        "header",
        { className: "tbmf-header" },
        h(
          "nav",
          {
            className: "tbmf-tabs",
            attrs: { role: "tablist", "aria-label": "Views" },
          },
          [...this._tabs.values()],
        ),
        h(
          "div",
          { className: "tbmf-header__end" },
          this._status,
          this._refreshButton,
          this._copyButton,
        ),
      ),
      this._banners,
      this._main,
      this._toast,
    );
  }

  start() {
    this.theme.start();
    this.root.replaceChildren(this.element);
    this.state.subscribe((changed) => {
      if (changed.has(KEYS.view)) void this._showView(this.state.view);
    });
    this.catalog.subscribe(() => this._renderStatus());
    this.catalog.start();
    this._renderStatus();
    void this._showView(this.state.view);
  }

  /**
   * @param {string} message
   * @param {'info' | 'error'} [kind]
   */
  toast(message, kind = "info") {
    this._toast.textContent = message;
    this._toast.dataset.kind = kind;
    this._toast.hidden = false;
    if (this._toastTimer !== null) clearTimeout(this._toastTimer);
    this._toastTimer = setTimeout(() => {
      this._toast.hidden = true;
    }, TOAST_MS);
  }

  /** Copies the link that reproduces this view to the clipboard. */
  async copyLink() {
    const url = this.state.shareableUrl();
    try {
      await navigator.clipboard.writeText(url);
      this.toast("Link copied");
      return;
    } catch {
      // Clipboard API refused (insecure origin, permissions): try the
      // selection-based copy below.
    }
    const field = h("textarea", {
      className: "tbmf-offscreen",
      attrs: { readonly: true },
    });
    field.value = url;
    document.body.appendChild(field);
    field.select();
    const copied = document.execCommand("copy");
    field.remove();
    if (copied) this.toast("Link copied");
    else this.toast(`Copy this link: ${url}`, "error");
  }

  /** @param {string} id */
  async _showView(id) {
    if (id === this._viewId) return;
    this._viewId = id;
    const generation = ++this._viewGeneration;
    for (const [tabId, tab] of this._tabs) {
      const active = tabId === id;
      tab.setAttribute("aria-selected", String(active));
      tab.classList.toggle("is-active", active);
    }
    this._unmountView?.();
    this._unmountView = null;
    this._main.replaceChildren();
    this._main.dataset.view = id;
    let module;
    try {
      module = await VIEW_MODULES[id].load();
    } catch (error) {
      if (generation !== this._viewGeneration) return;
      this._main.replaceChildren(
        h("div", {
          className: "tbmf-empty tbmf-empty--error",
          text: `Cannot load the ${VIEW_MODULES[id].label} view: ${errorText(error)}`,
        }),
      );
      return;
    }
    // The user may have switched again while the module loaded.
    if (generation !== this._viewGeneration) return;
    const viewRoot = h("div", {
      className: "tbmf-view",
      dataset: { view: id },
    });
    this._main.replaceChildren(viewRoot);
    this._unmountView = module.mount(viewRoot, this.context);
  }

  _renderStatus() {
    const { catalog } = this;
    const payload = catalog.payload;
    /** @type {HTMLElement[]} */
    const banners = [];
    if (catalog.error) {
      banners.push(
        banner(
          "error",
          catalog.payload
            ? `Cannot refresh the runs: ${catalog.error.message}. Showing the last data received.`
            : `Cannot load the runs: ${catalog.error.message}`,
          h("button", {
            className: "tbmf-button tbmf-button--text",
            text: "Retry",
            attrs: { type: "button" },
            on: { click: () => void catalog.refresh() },
          }),
        ),
      );
    }
    for (const message of payload?.errors ?? []) {
      banners.push(banner("warning", message));
    }
    // What the source of runs (e.g. TensorBoard's data provider) misses.
    for (const message of payload?.source?.notices ?? []) {
      banners.push(banner("warning", message));
    }
    this._banners.replaceChildren(...banners);

    this.element.classList.toggle("is-loading", Boolean(payload?.loading));
    if (catalog.pending) {
      this._status.replaceChildren(spinner(), "Loading runs…");
    } else if (payload?.loading) {
      this._status.replaceChildren(spinner(), "Reading the logdir…");
    } else if (catalog.error) {
      this._status.replaceChildren(
        icon("error", { size: 16, className: "tbmf-status__error" }),
        "Offline",
      );
    } else {
      const time = new Date(catalog.updatedAt).toLocaleTimeString("en-GB");
      this._status.replaceChildren(`Updated ${time}`);
    }
  }
}

/**
 * @param {'error' | 'warning' | 'info'} kind
 * @param {string} message
 * @param {HTMLElement | null} [action]
 * @returns {HTMLElement}
 */
function banner(kind, message, action = null) {
  return h(
    "div",
    {
      className: `tbmf-banner tbmf-banner--${kind}`,
      attrs: { role: kind === "error" ? "alert" : "status" },
    },
    icon(kind === "info" ? "info" : kind, { size: 18 }),
    h("span", { className: "tbmf-banner__text", text: message }),
    action,
  );
}

/** @returns {HTMLElement} */
function spinner() {
  return h("span", {
    className: "tbmf-spinner",
    attrs: { "aria-hidden": "true" },
  });
}
