// What the Layouts view's main area shows instead of a layout: a loading
// placeholder, the welcome card when there are no layouts, the card for a
// layout the URL names but nobody has, and notices (errors, warnings).

import { h } from "../../dom.js";
import { t } from "../../i18n.js";
import { icon } from "./icons.js";

/**
 * @typedef {import("./api.js").LayoutsPayload} LayoutsPayload
 * @typedef {import("./view_state.js").Target} Target
 */

/** @returns {HTMLElement} */
export function loadingPlaceholder() {
  return h(
    "div",
    { className: "tbmf-lay-placeholder" },
    h("span", {
      className: "tbmf-spinner",
      attrs: { "aria-hidden": "true" },
    }),
    h("span", { text: t("layouts.loading") }),
  );
}

/**
 * No layouts yet: what a layout is, and New.
 * @param {LayoutsPayload | null} payload
 * @param {() => void} onNew
 * @returns {HTMLElement}
 */
export function welcomeCard(payload, onNew) {
  const writable = payload?.writable ?? false;
  return h(
    "div",
    { className: "tbmf-lay-welcome" },
    icon("dashboard", { size: 40, className: "tbmf-lay-welcome__icon" }),
    h("h2", { text: t("layouts.welcome.title") }),
    h("p", { text: t("layouts.welcome.text") }),
    h(
      "button",
      {
        className: "tbmf-button tbmf-lay-action is-primary",
        attrs: { type: "button", disabled: !writable },
        title: writable
          ? t("layouts.create")
          : t("layouts.cannotSave", { reason: payload?.pathReason ?? "" }),
        dataset: { action: "new-layout" },
        on: { click: onNew },
      },
      icon("add", { size: 16 }),
      t("layouts.newLayout"),
    ),
  );
}

/**
 * @param {Target} where a layout the URL names that is not there
 * @returns {HTMLElement}
 */
export function missingCard(where) {
  return h(
    "div",
    { className: "tbmf-lay-welcome" },
    icon("warning", { size: 36, className: "tbmf-lay-welcome__icon" }),
    h("h2", {
      text:
        where.kind === "imported"
          ? t("layouts.missing.imported")
          : t("layouts.missing.named", { name: where.name }),
    }),
    h("p", {
      text: t("layouts.missing.text"),
    }),
  );
}

/**
 * @param {'error' | 'warning'} kind
 * @param {string} text
 * @returns {HTMLElement}
 */
export function notice(kind, text) {
  return h(
    "div",
    {
      className: `tbmf-lay-message tbmf-lay-message--${kind} tbmf-lay-message--wide`,
      attrs: { role: kind === "error" ? "alert" : "status" },
    },
    icon(kind, { size: 16 }),
    h("span", { className: "tbmf-lay-message__text", text }),
  );
}
