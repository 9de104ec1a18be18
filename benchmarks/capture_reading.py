"""How long a capture's timeline takes to read: the lab's reader (``rlcore.tracking.timeline``: TensorFlow's XSpace
schema parsed by protobuf's C runtime) against xprof's ``ProfileData`` (a ctypes wrapper, a Python object and a
finalizer per event), both walking every event's name, times and stats as the lab's reading needs them; and the
whole reading (``xplane.read_capture``) beside it. Alternating pairs in one process, medians.

    .venv/bin/python benchmarks/capture_reading.py [CAPTURE.xplane.pb ...] [--pairs 5]

Without a path it reads the V100 capture (tests/fixtures/captures). A capture of the seed's naive port (the
Reproduce run's, 5 MB, 302,854 events) is under a run's ``profile/`` folder in a store: pass its path.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
V100 = ROOT / "tests" / "fixtures" / "captures" / "v100_multi_worker" / "gpu_mw.xplane.pb"


def with_xprof(path: Path) -> int:
    from xprof.profile_data import ProfileData

    n = 0
    for plane in ProfileData.from_file(str(path)).planes:
        for line in plane.lines:
            for e in line.events:
                _ = (e.name, e.start_ns, e.duration_ns,
                     {str(k): str(v) for k, v in dict(e.stats).items()} if e.stats else {})
                n += 1
    return n


def with_timeline(path: Path) -> int:
    from rlcore.tracking import timeline

    return sum(len(line.events) for plane in timeline.read(path) for line in plane.lines)


def whole_reading(path: Path) -> int:
    from rlcore.tracking import xplane

    return xplane.read_capture(path, any_capture=True).steps


def timed(fn, path: Path) -> tuple[float, int]:
    start = time.perf_counter()
    n = fn(path)
    return time.perf_counter() - start, n


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("captures", nargs="*", type=Path, default=[V100])
    parser.add_argument("--pairs", type=int, default=5)
    args = parser.parse_args()
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    print(f"machine: {platform.node()}, {os.cpu_count()} cores, Python {platform.python_version()}; "
          f"{args.pairs} alternating pairs, medians")
    for path in args.captures:
        timed(with_timeline, path), timed(with_xprof, path)  # warm: imports, the file in the page cache
        ours, theirs = [], []
        for i in range(args.pairs):
            order = [(with_timeline, ours), (with_xprof, theirs)]
            for fn, into in order if i % 2 == 0 else order[::-1]:
                seconds, events = timed(fn, path)
                into.append(seconds)
        reading = [timed(whole_reading, path)[0]
                   for _ in range(max(1, args.pairs // 2))]
        a, b, whole = statistics.median(ours), statistics.median(theirs), statistics.median(reading)
        print(f"{path} ({path.stat().st_size / 1e6:.1f} MB, {events:,} events): timeline {a:.2f} s, xprof "
              f"ProfileData {b:.2f} s ({b / a:.1f}x); the whole reading (read_capture) {whole:.2f} s")


if __name__ == "__main__":
    main()
