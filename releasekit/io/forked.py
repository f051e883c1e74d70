"""Run one piece of work in a forked child process and get its answer back as bytes.

Adapter module. Loading a big catalog has two kinds of work that need nothing from each other until the
end (see :mod:`releasekit.io.fbc_load`): this lets the second core do one of them. The child is a
``fork`` of the caller, so it shares everything already read, copy-on-write; it runs ``work``, writes the
bytes it returns to a pipe and ends with ``os._exit`` (no clean-up, no buffered output flushed twice).

Forking is used only where it is safe and cheap: on Linux, when no other thread runs (a fork copies only
the calling thread; pytest-xdist workers and other hosts with threads get ``None`` and do the work
in-process). A child that fails in any way gives ``None`` at :meth:`Child.join`; the caller then does
the work itself, so results never depend on whether a child ran.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable, Sequence

__all__ = ["WORK_QUEUE_MAX", "Child", "WorkQueue", "can_fork", "start_child"]


def can_fork() -> bool:
    """True when :func:`start_child` may fork here (Linux, and this is the only thread)."""
    return sys.platform == "linux" and threading.active_count() == 1 and hasattr(os, "fork")


class Child:
    """A running child; :meth:`join` waits for its answer (``None`` if it failed)."""

    def __init__(self, pid: int, read_end: int) -> None:
        self._pid = pid
        self._read_end = read_end
        self._answer: bytes | None = None
        self._joined = False

    def join(self) -> bytes | None:
        """The bytes the child's work returned, or ``None`` if it did not finish cleanly."""
        if self._joined:
            return self._answer
        self._joined = True
        chunks: list[bytes] = []
        try:
            while chunk := os.read(self._read_end, 1 << 20):
                chunks.append(chunk)
        finally:
            os.close(self._read_end)
            _, status = os.waitpid(self._pid, 0)
        if status == 0:
            self._answer = b"".join(chunks)
        return self._answer


def start_child(work: Callable[[], bytes]) -> Child | None:
    """Fork a child that runs ``work``; ``None`` when that is not possible here (do the work in-process)."""
    if not can_fork():
        return None
    try:
        read_end, write_end = os.pipe()
    except OSError:  # pragma: no cover - out of file descriptors
        return None
    try:
        pid = os.fork()
    except OSError:  # pragma: no cover - out of processes or memory
        os.close(read_end)
        os.close(write_end)
        return None
    if pid == 0:  # pragma: no cover - the child; coverage cannot follow it
        status = 1
        try:
            os.close(read_end)
            answer = memoryview(work())
            while answer:
                answer = answer[os.write(write_end, answer) :]
            status = 0
        finally:
            os._exit(status)
    os.close(write_end)
    return Child(pid, read_end)


class WorkQueue:
    """Hands out the numbers it was given, each once, to whichever process asks first.

    Made before :func:`start_child`, so the parent and the child share it: the numbers wait in a pipe
    whose write end is already closed, and every :meth:`take` is one 4-byte read, which the kernel never
    splits between two readers. The work is balanced as it goes: a process that finishes its piece early
    simply takes the next one. At most :data:`WORK_QUEUE_MAX` numbers (they must fit the pipe's buffer
    before anyone reads).
    """

    def __init__(self, numbers: Sequence[int]) -> None:
        if len(numbers) > WORK_QUEUE_MAX:
            raise ValueError(f"at most {WORK_QUEUE_MAX} numbers fit a work queue, not {len(numbers)}")
        self._read_end, write_end = os.pipe()
        try:
            queued = memoryview(b"".join(number.to_bytes(4, "little") for number in numbers))
            while queued:
                queued = queued[os.write(write_end, queued) :]
        finally:
            os.close(write_end)

    def take(self) -> int | None:
        """The next number, or ``None`` when none is left."""
        chunk = os.read(self._read_end, 4)
        while chunk and len(chunk) < 4:  # pragma: no cover - a pipe read of 4 queued bytes is whole
            more = os.read(self._read_end, 4 - len(chunk))
            if not more:
                raise OSError("work queue: a number was cut short")
            chunk += more
        return int.from_bytes(chunk, "little") if chunk else None

    def close(self) -> None:
        """Let go of the pipe (each process that took numbers closes its own copy)."""
        if self._read_end >= 0:
            os.close(self._read_end)
            self._read_end = -1


WORK_QUEUE_MAX = 4096
"""Most numbers one :class:`WorkQueue` holds: 16 KiB, well inside a pipe's 64 KiB buffer."""
