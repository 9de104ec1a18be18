"""What the page tests share: the app's path, a fixed device card, and opening a page through the router."""

import json
import re
from pathlib import Path

import pandas as pd
from streamlit.dataframe_util import convert_arrow_bytes_to_pandas_df
from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parents[1] / "app.py")
CARD = {"cpu": "Test CPU", "cores": 2, "gpus": [], "tensorflow": "2.21.0"}


def open_page(name: str, query: dict[str, str] | None = None) -> AppTest:
    """The app through its router, then the page pages/<name>.py, with the given link values."""
    at = AppTest.from_file(APP, default_timeout=60)
    for key, value in (query or {}).items():
        at.query_params[key] = value
    at.run()
    return at.switch_page(f"pages/{name}.py").run()


def shown(element) -> str:
    """What a markdown element shows: its text without the escapes that keep user text from becoming markup."""
    return re.sub(r"\\(.)", r"\1", element.value).replace("\u200b", "")


def vega_charts(at: AppTest) -> dict[str, tuple[dict, pd.DataFrame]]:
    """The page's Vega-Lite charts by title: each one's spec and the data it was sent."""
    found = {}
    for chart in at.get("vega_lite_chart"):
        spec = json.loads(chart.proto.spec)
        found[spec["title"]] = (spec, convert_arrow_bytes_to_pandas_df(chart.proto.data.data))
    return found
