"""The operator's passphrase, kept only as a salted scrypt hash (the standard library's), compared in constant time.

A hash line looks like ``scrypt$16384$8$1$<salt>$<key>`` (base64); ``python -m rlcore operator-hash`` prints one
to paste into ``.streamlit/secrets.toml`` (``operator_hash = "..."``) or the ``RLCORE_OPERATOR_HASH`` variable.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os

N, R, P = 2**14, 8, 1  # scrypt's cost: about 16 MiB and a few hundredths of a second per try
MIN_LENGTH = 8


def hash_passphrase(passphrase: str, *, salt: bytes | None = None) -> str:
    if len(passphrase) < MIN_LENGTH:
        raise ValueError(f"the passphrase must have at least {MIN_LENGTH} characters.")
    salt = salt or os.urandom(16)
    key = hashlib.scrypt(passphrase.encode(), salt=salt, n=N, r=R, p=P, dklen=32)
    return "$".join(["scrypt", str(N), str(R), str(P), base64.b64encode(salt).decode(), base64.b64encode(key).decode()])


def verify(passphrase: str, stored: str) -> bool:
    """Whether ``passphrase`` matches a stored hash line (False for a malformed line, never an exception)."""
    try:
        scheme, n, r, p, salt, key = stored.strip().split("$")
        if scheme != "scrypt":
            return False
        expected = base64.b64decode(key)
        actual = hashlib.scrypt(passphrase.encode(), salt=base64.b64decode(salt), n=int(n), r=int(r), p=int(p),
                                dklen=len(expected))
    except (ValueError, TypeError):
        return False
    return hmac.compare_digest(actual, expected)
