// The app shell: header with the view switcher, global banners, and the
// active view. Views live in views/ and share one context (see ViewContext).

import { bindColorScope } from "./colors.js";
import { ensureStylesheet, h, icon } from "./dom.js";
import { RUN_FILTER_KEYS, runsOnScreen } from "./filter.js";
import {
  chooseLanguage,
  chosenLanguage,
  LANG_KEY,
  LANGUAGES,
  language,
  loadLanguage,
  t,
} from "./i18n.js";
import { formatTimeOfDay } from "./intl.js";
import { installKeyboard, skipLinks } from "./keyboard.js";
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

/** @type {Record<string, {label: () => string, load: () => Promise<ViewModule>}>} */
const VIEW_MODULES = {
  runs: {
    label: () => t("shell.tab.runs"),
    load: () => import("./views/runs.js"),
  },
  compare: {
    label: () => t("shell.tab.compare"),
    load: () => import("./views/compare.js"),
  },
  metrics: {
    label: () => t("shell.tab.metrics"),
    load: () => import("./views/metrics.js"),
  },
  layouts: {
    label: () => t("shell.tab.layouts"),
    load: () => import("./views/layouts.js"),
  },
  histograms: {
    label: () => t("shell.tab.histograms"),
    load: () => import("./views/histograms.js"),
  },
};
/** Each language's name, written in that language (the switch's options). */
const LANGUAGE_NAMES = Object.freeze({ en: "English", "zh-CN": "简体中文" });

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
  const state = new AppState();
  await Promise.all([loadStylesheets(), loadLanguage(chosenLanguage(state))]);
  const app = new App(root, state);
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
  /**
   * @param {HTMLElement} root
   * @param {AppState} [state] the URL state (made here when not given)
   */
  constructor(root, state = new AppState()) {
    this.root = root;
    this.theme = new Theme();
    this.state = state;
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
    /** @type {Map<string, HTMLButtonElement>} */
    this._tabs = new Map();
    this._header = this._buildHeader();
    this._skip = skipLinks(this._main);
    this.element = h(
      "div",
      { className: "tbmf-app" },
      // First in the tab order: past 50 runs' rows to the controls.
      this._skip,
      this._header,
      this._banners,
      this._main,
      this._toast,
    );
  }

  /**
   * The header in the current language: view tabs, status, reload, Copy
   * link and the language switch. Built again when the language changes.
   * @returns {HTMLElement}
   */
  _buildHeader() {
    this._tabs = new Map(
      VIEWS.map((id) => [
        id,
        h("button", {
          className: "tbmf-tab",
          text: VIEW_MODULES[id].label(),
          attrs: { type: "button", role: "tab", "aria-selected": "false" },
          dataset: { view: id },
          on: { click: () => this.state.update({ [KEYS.view]: id }) },
        }),
      ]),
    );
    const refreshButton = h(
      "button",
      {
        className: "tbmf-icon-button",
        title: t("shell.reload"),
        attrs: { type: "button", "aria-label": t("shell.reload") },
        on: { click: () => void this.catalog.refresh() },
      },
      icon("refresh"),
    );
    const copyButton = h(
      "button",
      {
        className: "tbmf-button tbmf-copy-link",
        title: t("shell.copyLink.title"),
        attrs: { type: "button" },
        on: { click: () => void this.copyLink() },
      },
      icon("link"),
      h("span", { text: t("shell.copyLink") }),
    );
    const languageSelect = h(
      "select",
      {
        className: "tbmf-lang-select",
        title: t("shell.language"),
        attrs: { "aria-label": t("shell.language") },
        on: {
          change: (event) => {
            const target = /** @type {HTMLSelectElement} */ (event.target);
            chooseLanguage(this.state, target.value);
          },
        },
      },
      LANGUAGES.map((lang) =>
        h("option", {
          text: LANGUAGE_NAMES[lang],
          attrs: { value: lang, lang, selected: lang === language() },
        }),
      ),
    );
    const header = h(
      "header",
      { className: "tbmf-header" },
      h(
        "nav",
        {
          className: "tbmf-tabs",
          attrs: { role: "tablist", "aria-label": t("shell.views") },
        },
        [...this._tabs.values()],
      ),
      h(
        "div",
        { className: "tbmf-header__end" },
        this._status,
        refreshButton,
        copyButton,
        languageSelect,
      ),
    );
    this._markActiveTab(this._viewId);
    return header;
  }

  /** @param {string | null} id */
  _markActiveTab(id) {
    for (const [tabId, tab] of this._tabs) {
      const active = tabId === id;
      tab.setAttribute("aria-selected", String(active));
      tab.classList.toggle("is-active", active);
    }
  }

  /**
   * Shows the tab in the language the state names (the switch, or a link
   * or Back/Forward that changed `lang`): loads its catalog, then builds
   * the header and the view again.
   */
  async _followLanguage() {
    const lang = chosenLanguage(this.state);
    if (lang === language()) return;
    if (!(await loadLanguage(lang))) return;
    const header = this._buildHeader();
    this._header.replaceWith(header);
    this._header = header;
    const skip = skipLinks(this._main);
    this._skip.replaceWith(skip);
    this._skip = skip;
    this._renderStatus();
    const view = this._viewId ?? this.state.view;
    this._viewId = null;
    void this._showView(view);
  }

  start() {
    // TensorBoard's plugin_entry.html has neither (WCAG 3.1.1, 2.4.2).
    // (i18n.js sets the language's code once its catalog is loaded.)
    document.documentElement.lang ||= language();
    document.title ||= "Frameworks";
    this.theme.start();
    this.root.replaceChildren(this.element);
    installKeyboard(this.element);
    this.state.subscribe((changed) => {
      if (changed.has(KEYS.view)) void this._showView(this.state.view);
      if (changed.has(LANG_KEY)) void this._followLanguage();
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
      this.toast(t("shell.linkCopied"));
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
    if (copied) this.toast(t("shell.linkCopied"));
    else this.toast(t("shell.copyThisLink", { url }), "error");
  }

  /** @param {string} id */
  async _showView(id) {
    if (id === this._viewId) return;
    this._viewId = id;
    const generation = ++this._viewGeneration;
    this._markActiveTab(id);
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
          text: t("shell.viewLoadError", {
            view: VIEW_MODULES[id].label(),
            error: errorText(error),
          }),
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
            ? t("shell.refreshError", { error: catalog.error.message })
            : t("shell.loadError", { error: catalog.error.message }),
          h("button", {
            className: "tbmf-button tbmf-button--text",
            text: t("common.retry"),
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
      this._status.replaceChildren(spinner(), t("shell.loadingRuns"));
    } else if (payload?.loading) {
      this._status.replaceChildren(spinner(), t("shell.readingLogdir"));
    } else if (catalog.error) {
      this._status.replaceChildren(
        icon("error", { size: 16, className: "tbmf-status__error" }),
        t("shell.offline"),
      );
    } else {
      const time = formatTimeOfDay(catalog.updatedAt);
      this._status.replaceChildren(t("shell.updated", { time }));
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
