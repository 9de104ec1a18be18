"""How long the calling thread has waited for a core: Linux's run-queue delay (``/proc/thread-self/schedstat``,
its second field, nanoseconds the thread was ready to run and not running).

A busy machine stretches the parts of a step unevenly. Python run on the training thread is always ready to run,
so it waits for a core whenever another process holds one; a part that sleeps on TensorFlow's own threads
(model.predict's pipeline) waits less on this thread, and its own threads wait instead. Beside a test suite on 2
cores a loop like the naive port's waited 63-75% of its step on its training thread; in two such runs its eager part
was 34% and 41% of the wall step, and 32% and 33% with this thread's wait taken out. The lab's step markers carry
the wait in their metadata (``WAITED``), and the reading says it beside the causes when it is a large part of the
step (``why.WAITED_SHARE``).
Taking it out of each part would need every thread's wait, not only this one's: with this thread's alone, the
port beside eight busy processes read model.predict at 56% where quiet it reads 41-45%, so it is said, not
subtracted.

Off Linux (no schedstat) ``waited`` is None and nothing is recorded: the reading then keeps the wall times.
"""

from __future__ import annotations

import os
import threading

WAITED = "waited_ns"  # the metadata key on a step marker or span: the training thread's wait for a core inside it
_PATH = "/proc/thread-self/schedstat"
_local = threading.local()


def waited() -> int | None:
    """Nanoseconds this thread has waited for a core since it started; None where Linux's schedstat is not."""
    fd = getattr(_local, "fd", None)
    if fd is None or _local.pid != os.getpid():  # a forked child's thread is not its parent's
        try:
            fd = os.open(_PATH, os.O_RDONLY)
        except OSError:
            fd = -1
        _local.fd, _local.pid = fd, os.getpid()
    if fd < 0:
        return None
    try:  # one pread of a few bytes (~2 µs): the file is made again at every read from its start
        return int(os.pread(fd, 96, 0).split()[1])
    except (OSError, IndexError, ValueError):
        return None
