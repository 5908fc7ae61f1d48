// Small DOM helpers. Text always goes in through textContent, never
// innerHTML, because run and tag names come from the user's files.

import { frameworkColor, frameworkLabel } from "./colors.js";

/**
 * @typedef {Object} ElementProps
 * @property {string} [className]
 * @property {string} [text] textContent
 * @property {string} [title]
 * @property {Record<string, string | number | boolean | null | undefined>} [attrs]
 *     attributes; `false`, null and undefined leave the attribute out
 * @property {Record<string, string>} [dataset]
 * @property {Record<string, string>} [style] CSS properties (custom ones too)
 * @property {Record<string, EventListener>} [on] event listeners
 */

/** @typedef {Node | string | number | null | undefined | false} Child */

/**
 * Creates an HTML element.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {ElementProps} [props]
 * @param {...(Child | Child[])} children strings become text nodes
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  if (props.className) node.className = props.className;
  if (props.text != null) node.textContent = props.text;
  if (props.title != null) node.title = props.title;
  for (const [name, value] of Object.entries(props.attrs ?? {})) {
    if (value === false || value == null) continue;
    node.setAttribute(name, value === true ? "" : String(value));
  }
  Object.assign(node.dataset, props.dataset ?? {});
  for (const [name, value] of Object.entries(props.style ?? {})) {
    node.style.setProperty(name, value);
  }
  for (const [type, listener] of Object.entries(props.on ?? {})) {
    node.addEventListener(type, listener);
  }
  return append(node, ...children);
}

/**
 * Replaces a node's children; like replaceChildren, but skipping empty
 * values (replaceChildren would insert the text "null").
 * @param {Node & ParentNode} parent
 * @param {(Child | Child[])[]} children
 */
export function setChildren(parent, ...children) {
  parent.replaceChildren();
  append(parent, ...children);
}

/**
 * Appends children, flattening arrays and skipping empty values.
 * @template {Node} T
 * @param {T} parent
 * @param {...(Child | Child[])} children
 * @returns {T} parent
 */
export function append(parent, ...children) {
  for (const child of children.flat()) {
    if (child == null || child === false) continue;
    parent.appendChild(
      child instanceof Node ? child : document.createTextNode(String(child)),
    );
  }
  return parent;
}

// Material Design icon paths (Apache-2.0), 24x24 viewBox.
const ICON_PATHS = {
  refresh:
    "M17.65 6.35A7.96 7.96 0 0 0 12 4a8 8 0 1 0 7.73 10h-2.08A6 6 0 1 1 12 6c1.66 0 3.14.69 4.22 1.78L13 11h7V4l-2.35 2.35z",
  link: "M3.9 12c0-1.71 1.39-3.1 3.1-3.1h4V7H7a5 5 0 0 0 0 10h4v-1.9H7c-1.71 0-3.1-1.39-3.1-3.1zM8 13h8v-2H8v2zm9-6h-4v1.9h4c1.71 0 3.1 1.39 3.1 3.1s-1.39 3.1-3.1 3.1h-4V17h4a5 5 0 0 0 0-10z",
  chevronRight: "M10 6 8.59 7.41 13.17 12l-4.58 4.59L10 18l6-6z",
  search:
    "M15.5 14h-.79l-.28-.27A6.47 6.47 0 0 0 16 9.5 6.5 6.5 0 1 0 9.5 16c1.61 0 3.09-.59 4.23-1.57l.27.28v.79l5 4.99L20.49 19l-4.99-5zm-6 0C7.01 14 5 11.99 5 9.5S7.01 5 9.5 5 14 7.01 14 9.5 11.99 14 9.5 14z",
  warning: "M1 21h22L12 2 1 21zm12-3h-2v-2h2v2zm0-4h-2v-4h2v4z",
  error:
    "M12 2a10 10 0 1 0 0 20 10 10 0 0 0 0-20zm1 15h-2v-2h2v2zm0-4h-2V7h2v6z",
  info: "M12 2a10 10 0 1 0 0 20 10 10 0 0 0 0-20zm1 15h-2v-6h2v6zm0-8h-2V7h2v2z",
  close:
    "M19 6.41 17.59 5 12 10.59 6.41 5 5 6.41 10.59 12 5 17.59 6.41 19 12 13.41 17.59 19 19 17.59 13.41 12z",
  arrowUp: "M4 12l1.41 1.41L11 7.83V20h2V7.83l5.58 5.59L20 12l-8-8-8 8z",
  arrowDown: "M20 12l-1.41-1.41L13 16.17V4h-2v12.17l-5.58-5.59L4 12l8 8 8-8z",
  check: "M9 16.17 4.83 12l-1.42 1.41L9 19 21 7l-1.41-1.41z",
  logScale:
    "M3 19h18v2H3v-2zm2-2V5h2v12H5zm4 0V9h2v8H9zm4 0v-5h2v5h-2zm4 0v-3h2v3h-2z",
  tune: "M3 17v2h6v-2H3zM3 5v2h10V5H3zm10 16v-2h8v-2h-8v-2h-2v6h2zM7 9v2H3v2h4v2h2V9H7zm14 4v-2H11v2h10zm-6-4h2V7h4V5h-4V3h-2v6z",
};

/** @typedef {keyof typeof ICON_PATHS} IconName */

/**
 * An inline SVG icon that inherits the text colour.
 * @param {IconName} name
 * @param {{size?: number, className?: string}} [options]
 * @returns {SVGSVGElement}
 */
export function icon(name, { size = 18, className = "" } = {}) {
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("width", String(size));
  svg.setAttribute("height", String(size));
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("focusable", "false");
  svg.setAttribute("class", `icon ${className}`.trim());
  const path = document.createElementNS(ns, "path");
  path.setAttribute("d", ICON_PATHS[name]);
  path.setAttribute("fill", "currentColor");
  svg.appendChild(path);
  return svg;
}

/**
 * Adds a stylesheet `<link>` once (a no-op when the same href is present).
 * @param {string | URL} href
 * @returns {HTMLLinkElement}
 */
export function ensureStylesheet(href) {
  const url = String(href);
  for (const link of document.querySelectorAll('link[rel="stylesheet"]')) {
    if (/** @type {HTMLLinkElement} */ (link).href === url) {
      return /** @type {HTMLLinkElement} */ (link);
    }
  }
  const link = document.createElement("link");
  link.rel = "stylesheet";
  link.href = url;
  document.head.appendChild(link);
  return link;
}

/**
 * A framework badge: its name on the framework's colour.
 * @param {string} framework
 * @param {string} className the view's badge class
 * @returns {HTMLElement}
 */
export function frameworkBadge(framework, className) {
  return h("span", {
    className,
    text: frameworkLabel(framework),
    dataset: { framework },
    style: { "--badge": frameworkColor(framework) },
  });
}
