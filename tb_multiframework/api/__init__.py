"""The API layer: the answers of the HTTP routes and of `tbmf`, from store + core.

`service.py` is the facade (`Api`) both front doors call; `scalars.py`,
`histograms.py`, `anomalies.py` (with `anomaly_inputs.py` and
`anomaly_entries.py`), `experiments.py`, `run_answers.py` and
`layout_answers.py` build one family of answers each; `context.py` derives
what every request needs about the runs once per data version; `views.py`
decides which points a request sees; `placed.py` keeps placed series
between requests; `pairs.py` compares a run against a baseline for the
CLI's cards; `encoding.py` is how answers travel.
"""
