"""`tbmf`: the tab's comparisons on the command line and in CI.

`main.py` parses arguments and dispatches; one module per command. Every
command reads the logdir in-process through `wiring.build_stack` and asks the
same `api`/`core` functions the tab's routes ask: no rule is implemented
twice. Modules import numpy and the ingest code only inside their `run`
functions, so `tbmf --help` starts fast.
"""
