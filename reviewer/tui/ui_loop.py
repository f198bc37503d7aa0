"""Handing work from a worker thread back to the UI loop, without waiting for it.

Not `App.call_from_thread`: it blocks until the loop has run the call, and a worker
blocked on a loop that is shutting down (while the loop waits for that worker) hangs `q`.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any


class UiLoop:
    """The running loop, captured when a widget mounts; `soon` is safe from any thread."""

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None

    def capture(self) -> None:
        """Call on the UI thread (in `on_mount`)."""
        self._loop = asyncio.get_running_loop()

    def soon(self, fn: Callable[..., Any], *args: Any) -> None:
        """Schedule `fn(*args)` on the UI loop; dropped when the loop is gone."""
        loop = self._loop
        if loop is None:
            return
        with contextlib.suppress(RuntimeError):  # the loop is closed: the app is gone
            loop.call_soon_threadsafe(fn, *args)
