// The baseline `<select>` of the Compare and Layouts views.

import { h, setChildren } from "../../dom.js";
import { t } from "../../i18n.js";

/** What each select was last filled with. */
/** @type {WeakMap<HTMLSelectElement, string>} */
const filled = new WeakMap();

/**
 * Fills a baseline `<select>`: "None", then each candidate run; a baseline
 * from the URL that is not a candidate stays listed, disabled, so the link
 * keeps it for when its run comes back.
 * @param {HTMLSelectElement} select
 * @param {string[]} candidates
 * @param {string | null} baseline
 * @param {string} whyNot shown after a baseline that is not a candidate
 */
export function setBaselineOptions(select, candidates, baseline, whyNot) {
  // Unchanged (most redraws): keep the options, 50 of them cost a layout.
  const signature = JSON.stringify([candidates, baseline, whyNot]);
  if (filled.get(select) === signature) {
    select.value = baseline && candidates.includes(baseline) ? baseline : "";
    return;
  }
  filled.set(select, signature);
  const options = [
    h("option", { text: t("cmp.baseline.none"), attrs: { value: "" } }),

    ...candidates.map((run) =>
      h("option", { text: run, attrs: { value: run } }),
    ),
  ];
  if (baseline && !candidates.includes(baseline)) {
    options.push(
      h("option", {
        text: `${baseline} (${whyNot})`,
        attrs: { value: baseline, disabled: true },
      }),
    );
  }
  setChildren(select, options);
  select.value = baseline && candidates.includes(baseline) ? baseline : "";
}
