// The tab's language: which one (link, preference, browser), its catalog,
// and t(). The catalogs are the server's (tb_multiframework/i18n/catalogs/,
// fetched through `GET i18n`), so the tab, the server's messages and `tbmf`
// use one set of texts.
//
// Texts hold `{name}` placeholders only; plural-free by design (see
// tb_multiframework/i18n/__init__.py): a message reads right for any count.

import { fetchJson } from "./model.js";
import { getPref, setPref } from "./prefs.js";

/** Languages with a catalog, the default first. */
export const LANGUAGES = Object.freeze(["en", "zh-CN"]);
/** The state key (`tbmf.lang` in a link) and the preference's name. */
export const LANG_KEY = "lang";
const DEFAULT_LANG = "en";
const PLACEHOLDER = /\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

let current = DEFAULT_LANG;
/** @type {Record<string, string>} */
let messages = {};
/** @type {Set<(lang: string) => void>} */
const listeners = new Set();

/**
 * A supported language for a BCP 47 tag, or null: `zh`, `zh-CN`,
 * `zh-Hans-CN`, `zh-TW` → `zh-CN` (the one Chinese catalog); `en*` → `en`.
 * @param {string | null | undefined} tag
 * @returns {string | null}
 */
export function supportedLanguage(tag) {
  const lower = (tag ?? "").toLowerCase();
  if (lower === "zh" || lower.startsWith("zh-")) return "zh-CN";
  if (lower === "en" || lower.startsWith("en-")) return "en";
  return null;
}

/**
 * The browser's choice: the first of its preferred languages that has a
 * catalog (Chinese of any region → zh-CN), else English.
 * @param {readonly string[]} [preferred] navigator.languages
 * @returns {string}
 */
export function browserLanguage(preferred = navigator.languages ?? []) {
  for (const tag of preferred) {
    const lang = supportedLanguage(tag);
    if (lang) return lang;
  }
  return DEFAULT_LANG;
}

/**
 * The language to show: the link's (`lang` state key) wins, then the one
 * the user chose before (localStorage), then the browser's.
 * @param {{get: (key: string, fallback?: string) => string}} state
 * @returns {string}
 */
export function chosenLanguage(state) {
  return (
    supportedLanguage(state.get(LANG_KEY, "")) ??
    supportedLanguage(getPref(LANG_KEY, "")) ??
    browserLanguage()
  );
}

/** @returns {string} the language shown now */
export function language() {
  return current;
}

/**
 * Fetches `lang`'s catalog and makes it the current one; listeners hear it.
 * A catalog that cannot be fetched leaves the current one in place.
 * @param {string} lang one of LANGUAGES
 * @returns {Promise<boolean>} whether the catalog was loaded
 */
export async function loadLanguage(lang) {
  let payload;
  try {
    payload = await fetchJson("i18n", { lang });
  } catch (error) {
    console.warn(`tb_multiframework: no ${lang} messages:`, error);
    return false;
  }
  messages = payload.messages ?? {};
  current = payload.lang ?? lang;
  document.documentElement.lang = current;
  for (const listener of [...listeners]) listener(current);
  return true;
}

/**
 * The user's choice from the switch: kept as a preference and in the link.
 * @param {{update: (patch: Record<string, string | null>) => void}} state
 * @param {string} lang
 */
export function chooseLanguage(state, lang) {
  setPref(LANG_KEY, lang);
  state.update({ [LANG_KEY]: lang });
}

/**
 * @param {(lang: string) => void} listener called after a catalog loaded
 * @returns {() => void} unsubscribes
 */
export function onLanguage(listener) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/**
 * Whether the current catalog has `key` (server messages fall back to
 * their English text when it does not).
 * @param {string} key
 * @returns {boolean}
 */
export function hasMessage(key) {
  return Object.prototype.hasOwnProperty.call(messages, key);
}

/**
 * The message `key` with its `{name}` placeholders filled. Numbers are
 * formatted for the language; a missing parameter stays as `{name}`, a
 * missing key shows as itself (the catalog tests keep both from happening).
 * @param {string} key
 * @param {Record<string, unknown>} [params]
 * @returns {string}
 */
export function t(key, params) {
  const text = hasMessage(key) ? messages[key] : key;
  if (!params) return text;
  return text.replace(PLACEHOLDER, (whole, name) => {
    if (!(name in params)) return whole;
    const value = params[name];
    return typeof value === "number" && Number.isFinite(value)
      ? new Intl.NumberFormat(current).format(value)
      : String(value);
  });
}

/**
 * A server-made message in the user's language: `t(id, params)` when the
 * catalog knows the id, else the English text the server sent beside it.
 * @param {{id?: string, params?: Record<string, unknown>} | null | undefined} message
 * @param {string} english
 * @returns {string}
 */
export function serverText(message, english) {
  if (message && typeof message.id === "string" && hasMessage(message.id)) {
    return t(message.id, message.params ?? {});
  }
  return english;
}

/**
 * Server-made texts with their messages beside them (same length, null for
 * a text without an id), each in the user's language.
 * @param {readonly string[] | null | undefined} texts
 * @param {readonly ({id?: string, params?: Record<string, unknown>} | null)[] | null | undefined} messages
 * @returns {string[]}
 */
export function serverTexts(texts, messages) {
  return (texts ?? []).map((text, i) => serverText(messages?.[i], text));
}
