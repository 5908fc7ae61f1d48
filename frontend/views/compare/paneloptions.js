// The options a comparison panel takes (panel.js, also mounted by the
// Metrics and Layouts views): a type only, kept apart from the panel's code.

/**
 * @typedef {import("./series.js").ScalarsResponse} ScalarsResponse
 */

/**
 * @typedef {Object} PanelOptions
 * @property {string[]} runs runs to draw (order kept)
 * @property {string | null} [metric] a metric key (`loss/train@batch`)
 * @property {string | null} [tag] a raw tag (instead of `metric`)
 * @property {string} [x] axis: step | epoch | relative | wall | progress
 * @property {number} [smoothing] 0 ≤ w < 1
 * @property {'ema' | 'time'} [smoothingMode]
 * @property {boolean} [logY]
 * @property {string | null} [baseline] a run of `runs`: adds the diff chart
 * @property {'difference' | 'ratio'} [diffMode]
 * @property {number} [points] buckets a series (1..MAX_POINTS)
 * @property {[number, number] | null} [xRange] zoom window on `x`
 * @property {boolean} [allAttempts] add the points a resumed run's later
 *     attempt superseded, as faint dashed series
 * @property {'logged' | 'per_batch' | 'running_mean'} [batchValues] show
 *     batch-level series as logged, as per-batch values or as running means
 * @property {string} [title] default: the metric name or tag
 * @property {string} [subtitle] e.g. the metric's level
 * @property {number} [height] main plot height, CSS pixels
 * @property {number} [diffHeight] difference plot height, CSS pixels
 * @property {boolean} [showExport] CSV/JSON links in the header (default true)
 * @property {boolean} [ignoreOutliers] fit y to the bulk of the values and
 *     mark clipped points at the edge (default true)
 * @property {(range: [number, number] | null) => void} [onZoomChange] the
 *     user zoomed (drag) or reset (double-click)
 * @property {(response: ScalarsResponse) => void} [onData] each answer
 * @property {string | null} [groupBy] draw groups of runs (`group`,
 *     `framework`, `writer`, `trainer`, `hparam:<key>`): each group's
 *     center line with its band (compare/groups.js); null draws runs
 * @property {'mean' | 'median'} [aggregate] the center line (default mean)
 * @property {'std' | 'ci95' | 'minmax' | 'none'} [band] (default std)
 * @property {boolean} [showMembers] also draw each member, faint
 * @property {string | null} [baselineGroup] a group: adds the difference
 *     of centers with its band
 * @property {'off' | 'hovered' | 'all' | null} [anomalyMarkers] which
 *     anomaly markers to draw (null: by the number of runs, anomalylayer.js)
 * @property {[number | null, number | null] | null} [yRange] the main
 *     chart's fixed y ends (null: fitted)
 * @property {import("../../components/charttooltip.js").TooltipSort} [tooltipSort]
 * @property {(chart: import("../../components/chart.js").Chart) => void} [onDraw]
 *     after every redraw of the main chart
 */

export {};
