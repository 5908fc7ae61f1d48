"""What the user set: the config file (`--tbmf_config`) and saved layouts.

Both are files the user owns, written atomically; they sit below every other
layer (the readers consult the config, the API reads and writes both).
"""
