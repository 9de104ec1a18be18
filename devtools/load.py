"""CPU-busy processes beside a measurement or a test suite, started and stopped by whoever asks (a test, `make
test-loaded`): each spins one core until it is stopped, by its process id, within a bound.

    with busy(2):          # two cores' worth of other work while the block runs
        ...
    python -m devtools.load 2 -- make test   # a command with two busy processes beside it
"""

from __future__ import annotations

import contextlib
import subprocess
import sys
from collections.abc import Iterator

SPIN = "while True: pass"


@contextlib.contextmanager
def busy(processes: int = 2) -> Iterator[list[int]]:
    """``processes`` CPU-busy Python processes while the block runs; their pids."""
    spinners = [subprocess.Popen([sys.executable, "-c", SPIN], stdin=subprocess.DEVNULL) for _ in range(processes)]
    try:
        yield [p.pid for p in spinners]
    finally:
        for p in spinners:
            p.kill()
        for p in spinners:
            p.wait(timeout=30)


def main(argv: list[str]) -> int:
    """``python -m devtools.load N -- COMMAND...``: run COMMAND with N busy processes beside it; its exit status."""
    if "--" not in argv or not argv[: argv.index("--")]:
        print("usage: python -m devtools.load N -- COMMAND [ARGS...]", file=sys.stderr)
        return 2
    count, command = int(argv[0]), argv[argv.index("--") + 1:]
    with busy(count):
        return subprocess.run(command).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
