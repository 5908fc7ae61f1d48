// Icons the Layouts view needs beyond dom.js' set, drawn the same way
// (Material Design paths, Apache-2.0, 24x24 viewBox, current colour).

import { icon as sharedIcon } from "../../dom.js";

const PATHS = {
  add: "M19 13h-6v6h-2v-6H5v-2h6V5h2v6h6v2z",
  delete:
    "M6 19a2 2 0 0 0 2 2h8a2 2 0 0 0 2-2V7H6v12zM19 4h-3.5l-1-1h-5l-1 1H5v2h14V4z",
  edit: "M3 17.25V21h3.75L17.81 9.94l-3.75-3.75L3 17.25zM20.71 7.04a1 1 0 0 0 0-1.41l-2.34-2.34a1 1 0 0 0-1.41 0l-1.83 1.83 3.75 3.75 1.83-1.83z",
  copy: "M16 1H4a2 2 0 0 0-2 2v14h2V3h12V1zm3 4H8a2 2 0 0 0-2 2v14a2 2 0 0 0 2 2h11a2 2 0 0 0 2-2V7a2 2 0 0 0-2-2zm0 16H8V7h11v14z",
  download: "M19 9h-4V3H9v6H5l7 7 7-7zM5 18v2h14v-2H5z",
  upload: "M9 16h6v-6h4l-7-7-7 7h4v6zm-4 2h14v2H5v-2z",
  dashboard: "M3 13h8V3H3v10zm0 8h8v-6H3v6zm10 0h8V11h-8v10zm0-18v6h8V3h-8z",
  lock: "M18 8h-1V6A5 5 0 0 0 7 6v2H6a2 2 0 0 0-2 2v10a2 2 0 0 0 2 2h12a2 2 0 0 0 2-2V10a2 2 0 0 0-2-2zm-6 9a2 2 0 1 1 0-4 2 2 0 0 1 0 4zm3.1-9H8.9V6a3.1 3.1 0 0 1 6.2 0v2z",
  save: "M17 3H5a2 2 0 0 0-2 2v14a2 2 0 0 0 2 2h14a2 2 0 0 0 2-2V7l-4-4zm-5 16a3 3 0 1 1 0-6 3 3 0 0 1 0 6zm3-10H5V5h10v4z",
  folder:
    "M10 4H4a2 2 0 0 0-2 2v12a2 2 0 0 0 2 2h16a2 2 0 0 0 2-2V8a2 2 0 0 0-2-2h-8l-2-2z",
  chevronDown: "M16.59 8.59 12 13.17 7.41 8.59 6 10l6 6 6-6z",
  unfold:
    "M12 5.83 15.17 9l1.41-1.41L12 3 7.41 7.59 8.83 9 12 5.83zm0 12.34L8.83 15l-1.41 1.41L12 21l4.59-4.59L15.17 15 12 18.17z",
  fold: "M7.41 18.59 8.83 20 12 16.83 15.17 20l1.41-1.41L12 14l-4.59 4.59zm9.18-13.18L15.17 4 12 7.17 8.83 4 7.41 5.41 12 10l4.59-4.59z",
  regex:
    "M16 16.92c-.33.05-.66.08-1 .08s-.67-.03-1-.08v-3.51l-2.5 2.48c-.5-.39-.97-.86-1.36-1.36l2.48-2.5H9.08c-.05-.33-.08-.66-.08-1s.03-.67.08-1h3.53l-2.48-2.5c.19-.25.39-.5.65-.74.24-.26.49-.46.74-.65L14 8.61V5.08c.33-.05.66-.08 1-.08s.67.03 1 .08v3.53l2.5-2.48c.5.39.97.86 1.36 1.36L17.39 10h3.53c.05.33.08.66.08 1s-.03.67-.08 1h-3.53l2.48 2.5c-.19.25-.39.5-.65.74-.24.26-.49.46-.74.65L16 13.39v3.53zM7 19a2 2 0 1 1-4 0 2 2 0 0 1 4 0z",
};

/** @typedef {import("../../dom.js").IconName | keyof typeof PATHS} LayoutIcon */

/**
 * An inline SVG icon: dom.js' own, or one of the extra ones above.
 * @param {LayoutIcon} name
 * @param {{size?: number, className?: string}} [options]
 * @returns {SVGSVGElement}
 */
export function icon(name, options = {}) {
  if (!(name in PATHS)) {
    return sharedIcon(
      /** @type {import("../../dom.js").IconName} */ (name),
      options,
    );
  }
  const svg = sharedIcon("check", options);
  const path = /** @type {SVGPathElement} */ (svg.firstChild);
  path.setAttribute("d", PATHS[/** @type {keyof typeof PATHS} */ (name)]);
  return svg;
}
