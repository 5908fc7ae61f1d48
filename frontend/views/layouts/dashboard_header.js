// The head of an open layout: its name, a read-only badge for the layout
// logged in the runs, what it holds (categories, charts, where it was
// logged), the action buttons (Edit, Duplicate, Export, Delete, ...), and
// the problems met reading the logged layouts. The editor uses the same
// action buttons.

import { h } from "../../dom.js";
import { t } from "../../i18n.js";
import { icon } from "./icons.js";
import { chartCount } from "./schema.js";

/**
 * @typedef {import("./schema.js").Layout} Layout
 *
 * @typedef {Object} DashboardAction a button in the dashboard's header
 * @property {string} id `data-action`
 * @property {string} label
 * @property {import("./icons.js").LayoutIcon} icon
 * @property {() => void} run
 * @property {string} [title]
 * @property {string | null} [disabled] why it is disabled
 * @property {boolean} [primary]
 * @property {boolean} [danger]
 */

/**
 * @param {Layout} layout
 * @param {boolean} imported the layout logged in the runs
 * @param {DashboardAction[]} actions
 * @returns {HTMLElement}
 */
export function dashboardHeader(layout, imported, actions) {
  const sources = [
    ...new Set(layout.categories.flatMap((c) => c.source ?? [])),
  ];
  return h(
    "header",
    { className: "tbmf-lay-head" },
    h(
      "div",
      { className: "tbmf-lay-head__text" },
      h(
        "div",
        { className: "tbmf-lay-head__line" },
        h("h2", { className: "tbmf-lay-head__name", text: layout.name }),
        imported
          ? h(
              "span",
              {
                className: "tbmf-lay-badge",
                title: t("layouts.readOnly.title"),
              },
              icon("lock", { size: 13 }),
              t("layouts.readOnly"),
            )
          : null,
      ),
      h("div", {
        className: "tbmf-lay-head__meta",
        text: [
          t("layouts.count.categories", { n: layout.categories.length }),
          t("layouts.count.charts", { n: chartCount(layout) }),
          imported && sources.length
            ? t("layouts.head.loggedIn", { sources: sources.join(", ") })
            : "",
        ]
          .filter(Boolean)
          .join(" · "),
      }),
    ),
    h(
      "div",
      { className: "tbmf-lay-head__actions" },
      actions.map((action) => actionButton(action)),
    ),
  );
}

/**
 * @param {Layout} layout
 * @returns {HTMLElement | null} the logged layout's warnings
 */
export function layoutWarnings(layout) {
  const warnings = layout.warnings ?? [];
  if (!warnings.length) return null;
  return h(
    "details",
    { className: "tbmf-lay-warnings" },
    h(
      "summary",
      {},
      icon("warning", { size: 16 }),
      h("span", {
        text: t("layouts.head.problems", { n: warnings.length }),
      }),
    ),
    h(
      "ul",
      {},
      warnings.map((w) => h("li", { text: w })),
    ),
  );
}

/**
 * @param {DashboardAction} action
 * @returns {HTMLButtonElement}
 */
export function actionButton(action) {
  const kind = action.primary
    ? " is-primary"
    : action.danger
      ? " is-danger"
      : "";
  return h(
    "button",
    {
      className: `tbmf-button tbmf-lay-action${kind}`,
      title: action.disabled ?? action.title ?? action.label,
      attrs: { type: "button", disabled: Boolean(action.disabled) },
      dataset: { action: action.id },
      on: { click: () => action.run() },
    },
    icon(action.icon, { size: 16 }),
    h("span", { text: action.label }),
  );
}
