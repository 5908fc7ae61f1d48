// Modal questions (confirm, ask for a name) as a styled <dialog>, so they
// follow the theme and a browser test can answer them like a user.

import { h } from "../../dom.js";
import { t } from "../../i18n.js";

/**
 * @typedef {Object} DialogButton
 * @property {string} value what the promise resolves with
 * @property {string} label
 * @property {'primary' | 'danger' | 'plain'} [kind]
 *
 * @typedef {Object} DialogSpec
 * @property {string} title
 * @property {string} [message]
 * @property {DialogButton[]} buttons the last one is the default
 * @property {{label: string, value: string, maxLength?: number,
 *     validate?: (value: string) => string | null}} [input] a text field;
 *     `validate` returns an error to show, or null
 */

/**
 * Shows a modal dialog; resolves with the chosen button's value (and the
 * field's text), or `cancel` when dismissed with Escape.
 * @param {DialogSpec} spec
 * @returns {Promise<{value: string, text: string}>}
 */
export function showDialog(spec) {
  return new Promise((resolve) => {
    const field = spec.input
      ? h("input", {
          className: "tbmf-lay-input",
          attrs: {
            type: "text",
            maxlength: spec.input.maxLength ?? null,
            spellcheck: "false",
            autocomplete: "off",
            "aria-label": spec.input.label,
          },
          dataset: { field: "dialog-input" },
        })
      : null;
    if (field && spec.input) field.value = spec.input.value;
    const problem = h("div", {
      className: "tbmf-lay-dialog__problem",
      attrs: { role: "alert", hidden: true },
    });
    /** @param {string} value */
    const finish = (value) => {
      const text = field ? field.value : "";
      if (value !== "cancel" && field && spec.input?.validate) {
        const error = spec.input.validate(text);
        if (error) {
          problem.textContent = error;
          problem.hidden = false;
          field.focus();
          return;
        }
      }
      dialog.close();
      dialog.remove();
      resolve({ value, text });
    };
    const buttons = spec.buttons.map((button) =>
      h("button", {
        className: `tbmf-button tbmf-lay-dialog__button is-${button.kind ?? "plain"}`,
        text: button.label,
        attrs: { type: "button" },
        dataset: { choice: button.value },
        on: { click: () => finish(button.value) },
      }),
    );
    const dialog = h(
      "dialog",
      {
        className: "tbmf-lay-dialog",
        attrs: { "aria-label": spec.title },
        on: {
          cancel: (event) => {
            event.preventDefault();
            finish("cancel");
          },
        },
      },
      h("h2", { className: "tbmf-lay-dialog__title", text: spec.title }),
      spec.message
        ? h("p", { className: "tbmf-lay-dialog__message", text: spec.message })
        : null,
      field
        ? h(
            "label",
            { className: "tbmf-lay-dialog__field" },
            h("span", { text: spec.input?.label ?? "" }),
            field,
          )
        : null,
      problem,
      h("div", { className: "tbmf-lay-dialog__buttons" }, buttons),
    );
    if (field) {
      field.addEventListener("keydown", (event) => {
        if (event.key === "Enter") {
          event.preventDefault();
          finish(spec.buttons[spec.buttons.length - 1].value);
        }
      });
    }
    document.body.appendChild(dialog);
    dialog.showModal();
    if (field) {
      field.focus();
      field.select();
    } else {
      buttons[buttons.length - 1]?.focus();
    }
  });
}

/**
 * Asks a yes/no question.
 * @param {{title: string, message?: string, confirm: string,
 *     danger?: boolean, cancel?: string}} spec
 * @returns {Promise<boolean>}
 */
export async function confirmDialog(spec) {
  const { value } = await showDialog({
    title: spec.title,
    message: spec.message,
    buttons: [
      { value: "cancel", label: spec.cancel ?? t("common.cancel") },
      {
        value: "ok",
        label: spec.confirm,
        kind: spec.danger ? "danger" : "primary",
      },
    ],
  });
  return value === "ok";
}
