// Small form controls of the layout editor: a text field, an icon button,
// a segmented control and an "Add …" button.

import { h } from "../../dom.js";
import { icon } from "./icons.js";

/**
 * @param {{value: string, label: string, placeholder: string,
 *     maxLength: number, field: string, focus: string,
 *     onInput: (value: string) => void}} spec
 * @returns {HTMLInputElement}
 */
export function textInput(spec) {
  const input = h("input", {
    className: "tbmf-lay-input",
    attrs: {
      type: "text",
      maxlength: spec.maxLength,
      spellcheck: "false",
      autocomplete: "off",
      placeholder: spec.placeholder,
      "aria-label": spec.label,
    },
    dataset: { field: spec.field, focus: spec.focus },
    on: { input: () => spec.onInput(input.value) },
  });
  input.value = spec.value;
  return input;
}

/**
 * A small icon button.
 * @param {import("./icons.js").LayoutIcon} name
 * @param {string} title
 * @param {string} action `data-action`
 * @param {boolean} disabled
 * @param {() => void} onClick
 * @returns {HTMLButtonElement}
 */
export function toolButton(name, title, action, disabled, onClick) {
  return h(
    "button",
    {
      className: "tbmf-lay-tool",
      title,
      attrs: { type: "button", "aria-label": title, disabled },
      dataset: { action },
      on: { click: onClick },
    },
    icon(name, { size: 16 }),
  );
}

/**
 * A segmented control (Compare's look).
 * @param {string} label
 * @param {{value: string, label: string, title: string}[]} choices
 * @param {string} current
 * @param {string} dataKey each button's `data-<dataKey>`
 * @param {(value: string) => void} onPick
 * @returns {HTMLElement}
 */
export function segmented(label, choices, current, dataKey, onPick) {
  return h(
    "span",
    {
      className: "tbmf-cmp-seg tbmf-lay-seg",
      attrs: { role: "group", "aria-label": label },
    },
    choices.map((choice) =>
      h("button", {
        className: `tbmf-cmp-seg__item${choice.value === current ? " is-on" : ""}`,
        text: choice.label,
        title: choice.title,
        attrs: {
          type: "button",
          "aria-pressed": String(choice.value === current),
        },
        dataset: { [dataKey]: choice.value },
        on: {
          click: () => {
            if (choice.value !== current) onPick(choice.value);
          },
        },
      }),
    ),
  );
}

/**
 * A text button that adds an item (a chart, a regex, a margin series).
 * @param {string} label
 * @param {string} action `data-action`, for tests
 * @param {boolean} disabled at the cap
 * @param {() => void} onClick
 * @returns {HTMLButtonElement}
 */
export function addButton(label, action, disabled, onClick) {
  return /** @type {HTMLButtonElement} */ (
    h(
      "button",
      {
        className: "tbmf-button tbmf-button--text tbmf-lay-add",
        attrs: { type: "button", disabled },
        dataset: { action },
        on: { click: onClick },
      },
      icon("add", { size: 16 }),
      label,
    )
  );
}
