"""``make run``: Streamlit's server for ``app.py``, exactly as ``streamlit run app.py`` serves it.

The pages live in ``app_pages/``, not in a folder named ``pages/``: Streamlit treats a ``pages/`` folder beside the
entry point the old way (multipage v1) until some run calls ``st.navigation``, so a fresh server's first visit to a
workload's link (``/dqn?...``, what a shared link is) said "Page not found" over an inert form. With no such folder
every path is the router's from the first visit, whichever command started the server.

    python -m ui.serve [streamlit's options]     # the same as: streamlit run app.py [options]
"""

from __future__ import annotations

import sys
from pathlib import Path

APP = str(Path(__file__).resolve().parents[1] / "app.py")


def main() -> None:
    from streamlit.web import cli

    sys.argv = ["streamlit", "run", APP, *sys.argv[1:]]
    cli.main()


if __name__ == "__main__":
    main()
