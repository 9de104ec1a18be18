"""The README's per-file table of the suite's cost, from a run's JUnit XML:

    PYTEST_ADDOPTS="--junitxml=/tmp/suite.xml" make test
    .venv/bin/python -m devtools.suite_table /tmp/suite.xml

A file's seconds are its tests' own (set-up included), summed: two test processes share the wall time."""

from __future__ import annotations

import argparse
import collections
import xml.etree.ElementTree as ET


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("junit_xml")
    parser.add_argument("--rows", type=int, default=15, help="the costliest files; the rest are summed in a row")
    args = parser.parse_args()
    seconds: collections.Counter[str] = collections.Counter()
    tests: collections.Counter[str] = collections.Counter()
    for case in ET.parse(args.junit_xml).iter("testcase"):
        path = case.get("classname", "").replace(".", "/") + ".py"
        seconds[path] += float(case.get("time") or 0.0)
        tests[path] += 1
    print("| file | tests | seconds |\n|---|---:|---:|")
    ranked = seconds.most_common()
    for path, spent in ranked[: args.rows]:
        print(f"| {path} | {tests[path]} | {spent:,.0f} |")
    rest = ranked[args.rows:]
    if rest:
        print(f"| {len(rest)} other files | {sum(tests[p] for p, _ in rest)} | {sum(s for _, s in rest):,.0f} |")
    print(f"| **all** | **{sum(tests.values())}** | **{sum(seconds.values()):,.0f}** |")


if __name__ == "__main__":
    main()
