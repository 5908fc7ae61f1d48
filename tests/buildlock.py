"""One build of the checkout at a time.

`python -m build` and `pip wheel` both write into the source tree (`build/`,
`*.egg-info`); two test files building at once on two xdist workers would
tread on each other's files. Each build holds this lock (a file lock, so it
holds across worker processes).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import tempfile
from typing import Iterator


@contextlib.contextmanager
def building(source: str) -> Iterator[None]:
    """Holds the build lock of `source` for the block."""
    key = hashlib.sha1(os.path.realpath(source).encode()).hexdigest()[:12]
    path = os.path.join(tempfile.gettempdir(), f"tbmf-build-{key}.lock")
    with open(path, "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
