// A small popover to pin a run's colour: the palette, any colour, or back
// to automatic. One open at a time; Escape or a click outside closes it.

import { RUN_PALETTE } from "../../colors.js";
import { h } from "../../dom.js";
import { t } from "../../i18n.js";

/** @type {{element: HTMLElement, close: () => void} | null} */
let open = null;

/**
 * Opens the picker under `anchor`.
 * @param {HTMLElement} anchor
 * @param {{run: string, color: string, pinned: boolean,
 *     onPick: (color: string | null) => void}} options
 */
export function openColorPicker(anchor, { run, color, pinned, onPick }) {
  open?.close();
  const pick = (/** @type {string | null} */ value) => {
    close();
    onPick(value);
  };
  const custom = h("input", {
    className: "tbmf-colorpicker__custom",
    attrs: { type: "color", "aria-label": t("cmp.color.anyFor", { run }) },
    on: { change: () => pick(custom.value) },
  });
  custom.value = color;
  const element = h(
    "div",
    {
      className: "tbmf-colorpicker",
      attrs: { role: "dialog", "aria-label": t("cmp.color.of", { run }) },
    },
    h("div", { className: "tbmf-colorpicker__title", text: run }),
    h(
      "div",
      { className: "tbmf-colorpicker__grid" },
      RUN_PALETTE.map((hex) =>
        h("button", {
          className: `tbmf-colorpicker__swatch${
            hex === color ? " is-current" : ""
          }`,
          title: hex,
          style: { "--swatch": hex },
          attrs: { type: "button", "aria-label": t("cmp.color.pinHex", { color: hex }) },
          dataset: { color: hex },
          on: { click: () => pick(hex) },
        }),
      ),
    ),
    h(
      "div",
      { className: "tbmf-colorpicker__foot" },
      h("label", { className: "tbmf-colorpicker__any" }, custom, t("cmp.color.any")),
      h("button", {
        className: "tbmf-button tbmf-button--text",
        text: t("cmp.color.automatic"),
        title: t("cmp.color.unpin"),

        attrs: { type: "button", disabled: !pinned },
        dataset: { action: "unpin" },
        on: { click: () => pick(null) },
      }),
    ),
  );
  document.body.appendChild(element);
  const box = anchor.getBoundingClientRect();
  const width = element.offsetWidth;
  const height = element.offsetHeight;
  const left = Math.min(
    box.left,
    document.documentElement.clientWidth - width - 4,
  );
  const below = box.bottom + 4;
  const top =
    below + height > document.documentElement.clientHeight
      ? Math.max(4, box.top - height - 4)
      : below;
  element.style.transform = `translate(${Math.max(4, left)}px, ${top}px)`;

  const onKey = (/** @type {KeyboardEvent} */ event) => {
    if (event.key === "Escape") close();
  };
  const onDown = (/** @type {MouseEvent} */ event) => {
    if (!element.contains(/** @type {Node} */ (event.target))) close();
  };
  function close() {
    document.removeEventListener("keydown", onKey, true);
    document.removeEventListener("mousedown", onDown, true);
    element.remove();
    if (open?.element === element) open = null;
  }
  document.addEventListener("keydown", onKey, true);
  document.addEventListener("mousedown", onDown, true);
  open = { element, close };
  /** @type {HTMLElement | null} */ (element.querySelector("button"))?.focus();
}
