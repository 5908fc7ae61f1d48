"""Reloading in a background thread, shared by every source of runs."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

logger = logging.getLogger(__name__)


class PeriodicReload:
    """Calls `reload()` in a daemon thread, then every `interval` seconds.

    Attributes:
      loaded_once: set once the first reload finished (or failed) and
        `after_reload` ran after it.
      last_error: the last reload's failure, "" after a good one.
      reloading: True while the background thread reloads.
      after_reload: called by the background thread after each reload
        (the api builds what requests need of the new data there, so
        that no request waits for it).
    """

    def __init__(self) -> None:
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self.loaded_once = threading.Event()
        self.last_error = ""
        self.reloading = False
        self.after_reload: Callable[[], Any] | None = None

    def reload(self) -> Any:
        raise NotImplementedError

    def start(self, interval: float, *, wait_first: bool = False) -> None:
        """Loads in a background thread, then every `interval` seconds.

        With `interval` <= 0 it loads once, as TensorBoard does with
        `--reload_interval 0`. With `wait_first` the first load waits one
        interval (the caller has just loaded).
        """
        if self._thread is not None:
            return
        self._thread = threading.Thread(
            target=self._run_forever,
            args=(interval, wait_first),
            name="tb_multiframework-loader",
            daemon=True,
        )
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()

    def _run_forever(self, interval: float, wait_first: bool) -> None:
        if wait_first:
            self._stop.wait(interval)
        while not self._stop.is_set():
            self.reloading = True
            try:
                self.reload()
                self.last_error = ""
            except Exception as error:  # noqa: BLE001 - keep the thread alive
                # A bug while reading must not end reloading for good; it is
                # logged and shown in the catalog.
                logger.exception("tb_multiframework: reload failed")
                self.last_error = f"reload failed: {error!r}"
            finally:
                self.reloading = False
            if self.after_reload is not None:
                try:
                    self.after_reload()
                except Exception:  # noqa: BLE001 - keep the thread alive
                    logger.exception("tb_multiframework: after reload failed")
            # Only now: requests answered once it is set get the context of
            # the whole first load, never one of part of it.
            self.loaded_once.set()
            if interval <= 0:
                return
            self._stop.wait(interval)
