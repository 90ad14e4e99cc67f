"""Serving an ASGI app on a loopback socket for a test or a benchmark (uvicorn in a thread)."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from typing import Any


@contextlib.contextmanager
def serve(app: Any, timeout: float = 10.0) -> Iterator[str]:
    """Serve `app` on 127.0.0.1 (a free port) for the `with` block; yields the base URL."""
    import uvicorn

    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="critical",
                                           lifespan="off", access_log=False))
    thread = threading.Thread(target=server.run, name="loopback-server", daemon=True)
    thread.start()
    deadline = time.monotonic() + timeout
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the loopback server did not start")
        time.sleep(0.01)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout)
