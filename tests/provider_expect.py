"""What the provider source must say about a run the files source knows.

Through a data provider the file names and the writer named in the events
are hidden, so a run written with legacy summaries (torch's SummaryWriter or
tensorboardX) may have no evidence of its framework left: then the provider
source must say "unknown" and why, never guess another framework.
"""

from __future__ import annotations

from typing import Any

LEGACY_WRITERS = ("torch.utils.tensorboard", "tensorboardX")


def framework_agrees(
    run: str, got: dict[str, Any], want: dict[str, Any]
) -> bool:
    """Asserts `got` (provider) names `want`'s (files) framework or, for a
    legacy-writer run, says honestly that it cannot tell, and names the same
    writer or none; returns whether the frameworks are the same."""
    # A writer, when the provider source names one, is the right one.
    assert got["writer"] in ("", want["writer"]), (run, got["writer"], want)
    if got["framework"] == want["framework"]:
        return True
    assert got["framework"] == "unknown", (run, got["framework"], want)
    assert want["writer"] in LEGACY_WRITERS, (run, want["writer"])
    assert any("data provider" in line for line in got["evidence"]), run
    return False
