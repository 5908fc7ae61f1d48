"""JavaScript the browser tests evaluate to read what a chart drew."""

# Every drawn series of a chart as uPlot holds it: the joined x column
# filtered to the rows where the series has a value (alignment holes are
# undefined, logged gaps null).
READ_CHART = """
sel => {
  const el = document.querySelector(sel);
  if (!el) return null;
  const chart = el.tbmfChart;
  const u = chart.uplot;
  const xs = u.data[0];
  const pick = (col) => {
    const x = [], y = [];
    if (col === null) return {x, y};
    u.data[col].forEach((v, i) => {
      if (v !== null && v !== undefined) { x.push(xs[i]); y.push(v); }
    });
    return {x, y};
  };
  return chart.slots.map((s) => ({
    key: s.key, label: s.label, run: s.run, index: s.index,
    dash: u.series[s.index].dash ?? null,
    line: pick(s.index), upper: pick(s.upper), lower: pick(s.lower),
    markers: s.markers,
  }));
}
"""
