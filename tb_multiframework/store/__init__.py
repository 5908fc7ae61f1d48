"""The store: every point read, per (run, tag), kept packed in memory.

`store.py` is the columnar store the readers append to and every route reads;
`series.py` the containers a series lives in (packed scalar blocks, histogram
chunks); `packing.py` the exact compact columns; `allocator.py` the malloc
settings that suit it; `collector.py` keeps the server's garbage collections
short. Persistence of the store is `cache/`.
"""
