"""``rlcore why PATH``: a capture made anywhere, read and said (``tracking.foreign``); nothing stored."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from rlcore.cli.common import fail


def run_why(args: argparse.Namespace) -> int:
    from rlcore.tracking import foreign

    try:
        path = foreign.find(args.path, args.run)
        reading = foreign.read(path)
    except foreign.CaptureError as e:
        return fail(str(e))
    print(f"{path}:")
    for line in foreign.sentences(reading):
        print(line)
    if args.json:
        Path(args.json).write_text(json.dumps(reading.to_json(), indent=1))
    return 0
