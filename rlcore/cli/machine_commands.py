"""The machine's side: what TensorFlow sees (devices), the Ray cluster, the operator's passphrase hash."""

from __future__ import annotations

import argparse
import json
import sys

from rlcore.cli.common import (
    fail,
)
from rlcore.contract.params import ConfigError


def run_operator_hash(args: argparse.Namespace) -> int:
    import getpass

    from rlcore.passphrase import hash_passphrase

    if sys.stdin.isatty():
        first = getpass.getpass("operator passphrase: ")
        if getpass.getpass("the same again: ") != first:
            return fail("the two passphrases differ; nothing printed.")
    else:
        first = sys.stdin.readline().rstrip("\n")
    try:
        line = hash_passphrase(first)
    except ValueError as e:
        return fail(str(e))
    print(f"RLCORE_OPERATOR_HASH='{line}'")
    print(f'# or, in .streamlit/secrets.toml:  operator_hash = "{line}"')
    return 0


def run_cluster(args: argparse.Namespace) -> int:
    from rlcore.runs import ray_executor

    try:
        card = ray_executor.cluster_card(args.address)
    except ConfigError as e:
        return fail(str(e))
    print(json.dumps(card, indent=2) if args.json else "\n".join(ray_executor.card_lines(card)))
    return 0


def run_devices(args: argparse.Namespace) -> int:
    from rlcore.tracking.machine import pin_device

    pin_device("gpu")  # look at everything TensorFlow can see
    from rlcore.tracking.machine import environment_card

    card = environment_card()
    if args.json:
        print(json.dumps(card, indent=2))
    else:
        print(f"CPU: {card['cpu']} ({card['cores']} cores)")
        print(f"GPU: {', '.join(card['gpus']) or 'no GPU visible to TensorFlow'}")
        print(f"TensorFlow {card['tensorflow']}, Keras {card['keras']}, Python {card['python']}")
    return 0


