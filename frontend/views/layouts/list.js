// The side card listing layouts: the one logged in the runs first (read
// only, with the runs it came from), then the user's, and where they are
// saved. New and Import live in its header.

import { h, setChildren } from "../../dom.js";
import { serverText, t } from "../../i18n.js";
import { icon } from "./icons.js";
import { chartCount, MAX_IMPORT_BYTES } from "./schema.js";

/**
 * @typedef {import("./api.js").LayoutsPayload} LayoutsPayload
 * @typedef {import("./schema.js").Layout} Layout
 *
 * @typedef {{kind: 'imported'} | {kind: 'user', name: string}} LayoutRef
 */

export class LayoutList {
  /**
   * @param {Object} handlers
   * @param {(ref: LayoutRef) => void} handlers.onOpen
   * @param {() => void} handlers.onNew
   * @param {(file: File) => void} handlers.onImport
   * @param {() => void} handlers.onRetry
   */
  constructor(handlers) {
    this._handlers = handlers;
    this._file = h("input", {
      className: "tbmf-offscreen",
      attrs: {
        type: "file",
        accept: ".json,application/json",
        "aria-label": t("layouts.list.importFile"),
        tabindex: "-1",
      },
      dataset: { control: "import-file" },
      on: {
        change: () => {
          const file = this._file.files?.[0];
          this._file.value = "";
          if (file) handlers.onImport(file);
        },
      },
    });
    this._newButton = h(
      "button",
      {
        className: "tbmf-button tbmf-button--text",
        title: t("layouts.create"),
        attrs: { type: "button" },
        dataset: { action: "new-layout" },
        on: { click: () => handlers.onNew() },
      },
      icon("add", { size: 16 }),
      t("layouts.list.new"),
    );
    this._importButton = h(
      "button",
      {
        className: "tbmf-button tbmf-button--text",
        title: t("layouts.list.import.title", { kib: MAX_IMPORT_BYTES / 1024 }),
        attrs: { type: "button" },
        dataset: { action: "import-layout" },
        on: { click: () => this._file.click() },
      },
      icon("upload", { size: 16 }),
      t("layouts.list.import"),
    );
    this._count = h("span", { className: "tbmf-cmp-card__count" });
    this._list = h("ul", {
      className: "tbmf-lay-list",
      attrs: { "aria-label": t("shell.tab.layouts") },
    });
    this._messages = h("div", { className: "tbmf-lay-list__messages" });
    this._footer = h("footer", { className: "tbmf-lay-list__footer" });
    this.element = h(
      "section",
      { className: "tbmf-cmp-card tbmf-lay-list-card" },
      h(
        "header",
        { className: "tbmf-cmp-card__head" },
        h("h2", {
          className: "tbmf-cmp-card__title",
          text: t("shell.tab.layouts"),
        }),
        this._count,
        h(
          "span",
          { className: "tbmf-cmp-card__actions" },
          this._newButton,
          this._importButton,
        ),
      ),
      this._messages,
      this._list,
      this._footer,
      this._file,
    );
  }

  /**
   * @param {Object} model
   * @param {LayoutsPayload | null} model.payload null while loading
   * @param {string | null} model.error why the list could not be loaded
   * @param {LayoutRef | null} model.current the layout open now
   * @param {string | null} [model.importError]
   */
  render({ payload, error, current, importError = null }) {
    const writable = payload?.writable ?? false;
    const reason = serverText(
      payload?.pathReasonMessage,
      payload?.pathReason ?? "",
    );
    for (const button of [this._newButton, this._importButton]) {
      button.disabled = !writable;
      if (!writable && payload)
        button.title = t("layouts.cannotSave", { reason });
    }
    setChildren(
      this._messages,
      error
        ? message("error", t("layouts.list.loadError", { error }), {
            label: t("common.retry"),
            run: () => this._handlers.onRetry(),
          })
        : null,
      importError ? message("error", importError) : null,
      payload && !payload.writable
        ? message("warning", t("layouts.cannotSave", { reason }))
        : null,
      (payload?.warnings ?? []).map((w) => message("warning", w)),
    );
    if (!payload) {
      this._count.textContent = "";
      setChildren(
        this._list,
        error
          ? null
          : h("li", {
              className: "tbmf-lay-list__empty",
              text: t("common.loading"),
            }),
      );
      setChildren(this._footer);
      return;
    }
    const total = payload.layouts.length + (payload.imported ? 1 : 0);
    this._count.textContent = total ? String(total) : "";
    /** @type {HTMLElement[]} */
    const items = [];
    if (payload.imported) {
      const sources = [
        ...new Set(payload.imported.categories.flatMap((c) => c.source ?? [])),
      ];
      items.push(
        this._item(
          payload.imported,
          { kind: "imported" },
          current?.kind === "imported",
          sources.length
            ? t("layouts.list.from", { sources: sources.join(", ") })
            : t("layouts.list.loggedInRuns"),
        ),
      );
    }
    for (const layout of payload.layouts) {
      items.push(
        this._item(
          layout,
          { kind: "user", name: layout.name },
          current?.kind === "user" && current.name === layout.name,
          [
            t("layouts.count.categories", {
              n: layout.categories.length,
            }),
            t("layouts.count.charts", { n: chartCount(layout) }),
          ].join(" · "),
        ),
      );
    }
    if (payload.imported && payload.layouts.length === 0) {
      items.push(
        h("li", {
          className: "tbmf-lay-list__hint",
          text: t("layouts.list.noOwn"),
        }),
      );
    } else if (items.length === 0) {
      items.push(
        h("li", {
          className: "tbmf-lay-list__empty",
          text: t("layouts.list.none"),
        }),
      );
    }
    setChildren(this._list, items);
    setChildren(
      this._footer,
      payload.path
        ? h(
            "div",
            {
              className: "tbmf-lay-path",
              title: [payload.path, payload.pathReason ?? ""]
                .filter(Boolean)
                .join("\n"),
            },
            icon("folder", { size: 14 }),
            h("span", { text: t("layouts.list.savedIn") }),
            h("code", {
              className: "tbmf-lay-path__file",
              text: shortPath(payload.path),
            }),
          )
        : null,
    );
  }

  /**
   * @param {Layout} layout
   * @param {LayoutRef} ref
   * @param {boolean} current
   * @param {string} detail
   * @returns {HTMLElement}
   */
  _item(layout, ref, current, detail) {
    const imported = ref.kind === "imported";
    return h(
      "li",
      {
        className: `tbmf-lay-item${current ? " is-current" : ""}${
          imported ? " is-imported" : ""
        }`,
        dataset: { layout: layout.name, kind: ref.kind },
      },
      h(
        "button",
        {
          className: "tbmf-lay-item__button",
          attrs: {
            type: "button",
            "aria-current": current ? "page" : null,
          },
          on: { click: () => this._handlers.onOpen(ref) },
        },
        icon(imported ? "lock" : "dashboard", {
          size: 16,
          className: "tbmf-lay-item__icon",
        }),
        h(
          "span",
          { className: "tbmf-lay-item__text" },
          h("span", { className: "tbmf-lay-item__name", text: layout.name }),
          h("span", { className: "tbmf-lay-item__detail", text: detail }),
        ),
        imported
          ? h("span", {
              className: "tbmf-lay-badge tbmf-lay-badge--small",
              text: t("layouts.readOnly.small"),
            })
          : null,
      ),
    );
  }
}

/**
 * @param {'error' | 'warning'} kind
 * @param {string} text
 * @param {{label: string, run: () => void}} [action]
 * @returns {HTMLElement}
 */
function message(kind, text, action) {
  return h(
    "div",
    {
      className: `tbmf-lay-message tbmf-lay-message--${kind}`,
      attrs: { role: kind === "error" ? "alert" : "status" },
    },
    icon(kind, { size: 16 }),
    h("span", { className: "tbmf-lay-message__text", text }),
    action
      ? h("button", {
          className: "tbmf-button tbmf-button--text",
          text: action.label,
          attrs: { type: "button" },
          on: { click: action.run },
        })
      : null,
  );
}

/**
 * The file and its folder (`.tb_multiframework/layouts.json`); the whole
 * path is in the tooltip.
 * @param {string} path
 * @returns {string}
 */
function shortPath(path) {
  const parts = path.split(/[\\/]/).filter(Boolean);
  return parts.length > 2 ? `…/${parts.slice(-2).join("/")}` : path;
}
