"""``make run``: Streamlit's server for ``app.py``, told before its first session that every path is the router's.

A fresh Streamlit server treats a ``pages/`` folder beside the entry point the old way (multipage v1) until some run
calls ``st.navigation``: its first visitor's page would be looked up among the folder's file names, so a first
visit to a workload's page (``/dqn``) says "Page not found", and one to ``/runs`` runs that file without the
router. Setting the flag ``st.navigation`` itself sets, before the server takes a session, makes the router run
first on every visit. (``streamlit run app.py`` works too: each page file hands a folder-routed run to the
router, ``ui.router.routed``; only a first visit to a workload's page shows that dialog there.)

    python -m ui.serve [streamlit's options]     # as: streamlit run app.py [options]
"""

from __future__ import annotations

import sys
from pathlib import Path

APP = str(Path(__file__).resolve().parents[1] / "app.py")


def main() -> None:
    from streamlit.runtime.pages_manager import PagesManager  # pinned Streamlit: the flag folder routing reads
    from streamlit.web import cli

    PagesManager.uses_pages_directory = False
    sys.argv = ["streamlit", "run", APP, *sys.argv[1:]]
    cli.main()


if __name__ == "__main__":
    main()
