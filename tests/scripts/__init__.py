"""Scripts as people write them, for the tests of ``rlcore profile``, ``rlcore.init`` and the Keras callback; and
the seed question's own HJB script, taken from the question's text (a copy of ../shared/seeds/ kept here, so a clean
clone has it)."""

from __future__ import annotations

import re
from pathlib import Path

HERE = Path(__file__).resolve().parent
SEED_HJB_QUESTION = HERE / "seed_002_hjb_question.txt"
SHARED_SEED = HERE.parents[2].parent / "shared" / "seeds" / "002_91b677e4f8167212.txt"


def seed_hjb_script(epochs_from_argv: bool = True) -> str:
    """The seed question's code block as it stands (from ``## Import libraries`` to ``results = ...``), the unused
    matplotlib import aside; with ``epochs_from_argv`` its ``number_epochs`` read from the first argument (so a test
    can cut its 100,000 epochs short) and otherwise unchanged."""
    text = SEED_HJB_QUESTION.read_text(encoding="utf-8")
    start = text.index("## Import libraries")
    end = text.index("results = train_model(number_epochs)") + len("results = train_model(number_epochs)")
    code = text[start:end]
    code = "\n".join(line for line in code.splitlines() if "matplotlib" not in line) + "\n"
    if epochs_from_argv:
        code, n = re.subn(r"^number_epochs = 100000(.*)$",
                          r"import sys\nnumber_epochs = int(sys.argv[1]) if len(sys.argv) > 1 else 100000\1", code,
                          flags=re.M)
        assert n == 1, "the seed's number_epochs line moved"
    return code
