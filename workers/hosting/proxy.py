"""A byte proxy from a Unix socket to the referee's bot port.

A sandboxed bot runs in an empty network namespace (not even loopback leads anywhere): the only
thing it can reach is the Unix socket this proxy listens on, which is bound into the sandbox. Each
connection on the socket is piped, byte for byte, to a new TCP connection to the referee, so the bot
speaks the ordinary bot protocol (gRPC over HTTP/2) and the referee sees an ordinary client. The
proxy counts the bytes it carries, which the host reports.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from pathlib import Path


class UnixProxy:
    """Serves ``path`` (a Unix socket) and forwards each connection to ``host:port`` over TCP."""

    def __init__(self, path: Path, host: str, port: int) -> None:
        self.path = path
        self.host = host
        self.port = port
        self.bytes_up = 0
        """Bytes from the bot to the referee."""
        self.bytes_down = 0
        """Bytes from the referee to the bot."""
        self.connections = 0
        self._server: asyncio.AbstractServer | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    async def start(self) -> None:
        """Listens on the socket; it is made connectable by any uid (the sandbox's uid differs)."""
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()
        self._server = await asyncio.start_unix_server(self._serve, path=str(self.path))
        # Only the sandbox that binds this socket's folder can see it, so world-writable is safe here.
        os.chmod(self.path, 0o666)

    async def stop(self) -> None:
        """Stops listening and cuts every open connection."""
        if self._server is not None:
            self._server.close()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        if self._server is not None:
            with contextlib.suppress(Exception):
                await self._server.wait_closed()
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        self.connections += 1
        try:
            try:
                up_reader, up_writer = await asyncio.open_connection(self.host, self.port)
            except OSError:
                writer.close()
                return
            await asyncio.gather(
                self._pipe(reader, up_writer, up=True),
                self._pipe(up_reader, writer, up=False),
                return_exceptions=True,
            )
        finally:
            self._tasks.discard(task)

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, *, up: bool) -> None:
        try:
            while data := await reader.read(65536):
                if up:
                    self.bytes_up += len(data)
                else:
                    self.bytes_down += len(data)
                writer.write(data)
                await writer.drain()
        except (ConnectionError, OSError):
            pass
        finally:
            with contextlib.suppress(Exception):
                writer.close()
