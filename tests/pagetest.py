"""What the page tests share: the app's path, a fixed device card, and opening a page through the router."""

import json
import re
from pathlib import Path

from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parents[1] / "app.py")
CARD = {"cpu": "Test CPU", "cores": 2, "gpus": [], "tensorflow": "2.21.0"}


def fixed_device_card(monkeypatch) -> None:
    """Pages show CARD in the sidebar instead of asking TensorFlow (the real card is tested through the CLI)."""
    from ui import sidebar

    monkeypatch.setattr(sidebar, "device_card", lambda wait=True: CARD)


def go(at: AppTest, name: str) -> AppTest:
    """Switch to the page at the app's path ``name`` (run it next): a page file (app_pages/<name>.py) or a workload's
    page, which the router makes from the registry with no file of its own. AppTest's ``switch_page`` takes only
    files, so a workload's page is chosen as a browser's address does: by its path, which Streamlit hashes into
    the page's identity (streamlit.navigation.page.Page._script_hash)."""
    if (Path(APP).parent / "pages" / f"{name}.py").is_file():
        return at.switch_page(f"app_pages/{name}.py")
    from streamlit.util import calc_hash

    at._page_hash = calc_hash(name)
    return at


def open_page(name: str, query: dict[str, str] | None = None) -> AppTest:
    """The app through its router, then the page at path ``name``, with the given link values."""
    at = AppTest.from_file(APP, default_timeout=60)
    for key, value in (query or {}).items():
        at.query_params[key] = value
    at.run()
    return go(at, name).run()


def shown(element) -> str:
    """What a markdown element shows: its text without the escapes that keep user text from becoming markup."""
    return re.sub(r"\\(.)", r"\1", element.value).replace("\u200b", "")


def drawn_charts(at: AppTest) -> dict[str, dict]:
    """The page's in-place Plotly charts (ui/plotly_live.py) by title: each one's figure as it was sent."""
    found = {}
    for chart in at.get("bidi_component"):
        data = json.loads(chart.proto.json)
        if "figure" in data:
            found[data["title"]] = json.loads(data["figure"])  # sent as Plotly's JSON text
    return found


def values(trace: dict, axis: str) -> list:
    """A trace's values as a list, whether sent as a list or as Plotly's base64 typed array."""
    import base64

    import numpy as np

    data = trace[axis]
    if isinstance(data, dict) and "bdata" in data:
        return np.frombuffer(base64.b64decode(data["bdata"]), dtype=np.dtype(data["dtype"])).tolist()
    return list(data)


def link_tables(at: AppTest) -> list[dict]:
    """The tables of runs and sweeps the page drew (ui.link_table's component), each as the data it was given:
    ``columns``, and ``rows`` with ``href``, ``text`` and ``cells`` (as the page shows them)."""
    import json

    found = []

    def walk(node) -> None:
        proto = getattr(node, "proto", None)
        if getattr(proto, "component_name", "") == "rlcore.link_table":
            found.append(json.loads(proto.json))
        for child in getattr(node, "children", {}).values():
            walk(child)
    walk(at.main)
    return found


def column(table: dict, name: str) -> list[str]:
    """One column of a link table as shown (the first column: the links' texts)."""
    i = table["columns"].index(name)
    return [row["text"] if i == 0 else row["cells"][i - 1] for row in table["rows"]]
