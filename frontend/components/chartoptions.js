// The options a chart takes (chart.js): a type only, kept apart so the
// chart's code and its contract each stay a file a reader can hold.

/**
 * @typedef {import("./chartseries.js").ChartSeries} ChartSeries
 */

/**
 * @typedef {Object} ChartOptions
 * @property {ChartSeries[]} series
 * @property {string} [title]
 * @property {string} [label] the plot's accessible name (default: title)
 * @property {string} [xLabel] axis title and tooltip header, e.g. `step`
 * @property {string} [xAxisLabel] axis title when it should differ from the
 *     tooltip header (e.g. with a unit)
 * @property {string} [yLabel]
 * @property {'number' | 'time'} [xType] `time`: x in epoch seconds
 * @property {boolean} [logY] logarithmic y (non-positive values are hidden)
 * @property {boolean} [logYToggle] show the log-y button (default true)
 * @property {string | null} [syncKey] charts with the same key share cursor
 * @property {number} [height] plot height in CSS pixels
 * @property {boolean} [legend] default true
 * @property {boolean} [tooltip] default true
 * @property {number} [yAxisMinSize] narrowest y axis in CSS pixels: linked
 *     charts with the same value keep their plot areas aligned
 * @property {(x: number) => string} [formatX]
 * @property {(y: number) => string} [formatY]
 * @property {string} [emptyText] shown when there is nothing to draw
 * @property {[number, number] | null} [xRange] fixed x window (zoom); null
 *     fits the data
 * @property {(min: number, max: number) => void} [onZoom] called when the
 *     user drags a window on this chart (not on a synced one)
 * @property {() => void} [onZoomReset] called on a double-click
 * @property {boolean} [ignoreOutliers] fit y to the 0.5–99.5 percentile
 *     range of the drawn values (plus a margin) and mark the points it
 *     leaves out at the plot's edge (default false)
 * @property {number} [tooltipRows] rows the tooltip lists (default: the
 *     user's preference, prefs.js)
 * @property {(chart: import("./chart.js").Chart) => void} [onDraw] called after every redraw
 *     (zoom, resize, new data), to draw over the plot (e.g. anomaly
 *     markers: `chart.uplot`)
 * @property {(key: string | null) => void} [onHover] the series under the
 *     cursor changed (its key; null: none)
 * @property {[number | null, number | null] | null} [yRange] fixed y ends
 *     (null: fitted); on log y an end <= 0 is fitted
 * @property {import("./charttooltip.js").TooltipSort} [tooltipSort]
 */

export {};
