"""The router: every page of the app and the sidebar, whichever path a visitor opens first.

Every registered workload gets a page of its own at its kind's path (``/dqn``): its form generated from its config,
or the page its dashboard views supply (``ui.extras.WorkloadViews.page``); one file (``app_pages/workload.py``) serves
every generated form. The pages live in ``app_pages/``: a folder named ``pages/`` would be routed the old way
(multipage v1) on a fresh server's first visit, before any run called ``st.navigation`` ("Page not found" over an
inert form at a shared link). Every path is the router's, from the first visit, under ``make run`` and ``streamlit
run app.py`` alike.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
from pathlib import Path

import streamlit as st

from rlcore.contract import workloads
from rlcore.contract.params import ConfigError
from rlcore.runs.store import StoreError
from ui import access, extras, fmt, forms, sidebar

# A local file: a Material or emoji tab icon is fetched from a CDN, which offline machines cannot reach.
ICON = Path(__file__).resolve().parents[1] / "assets" / "icon.png"
# Streamlit's progress bar eases every change of its value in a CSS transition, and while a live view ticks the
# browser then paints frames most of the time: 0.08 against 0.03 of a core at a 1 s tick in a scratch app
# (docs/measurements/live_view_cost.md). A bar that jumps reads as well; off on every page (run and sweep views).
STILL_PROGRESS = "<style>[data-testid='stProgress'] * { transition: none !important; }</style>"


# One file is every workload's generated page: the router gives each its kind's path (Streamlit tells pages apart by
# their paths) and says which kind was opened (``current_kind``).
FORM_PAGE = "app_pages/workload.py"
PAGES = Path(__file__).resolve().parents[1] / "app_pages"  # the site's page files, each declaring its PAGE
_OPENED = "_router_opened"  # session state: the path of the page this run of the script shows


def current_kind() -> str:
    """The kind of the workload whose page is being shown."""
    return st.session_state[_OPENED]


def workload_pages() -> dict[str, st.Page]:
    """A page per registered workload, titled and iconed by the registry, at its kind's path: its own page if its
    views supply one, else its generated form (a workload run only from the user's own code has no form)."""
    pages = {}
    for w in workloads.all_workloads():
        own = extras.of(w.kind).page
        if own is not None or not w.from_code:
            pages[w.kind] = st.Page(own or FORM_PAGE, title=w.title, icon=w.icon, url_path=w.kind)
    return pages


def pages() -> list[st.Page]:
    """The site's pages in their order: each file of ``app_pages/`` that declares ``PAGE`` (Home, Sweeps, Runs), a
    page per workload after Home. Material icons ship with Streamlit's frontend; emoji need a system font that
    headless browsers lack."""
    declared = site_pages()
    first = [p for p in declared if p.order == 0]
    return [*(_page(p) for p in first), *workload_pages().values(), *(_page(p) for p in declared if p.order)]


@dataclasses.dataclass(frozen=True)
class SitePage:
    """A page as its own file declares it: ``PAGE = {"title", "icon", "url_path", "order"}`` (order 0: the
    default page, first; the workloads' pages follow it)."""

    file: str
    title: str
    icon: str
    url_path: str
    order: int


@functools.cache
def site_pages() -> tuple[SitePage, ...]:
    """Every page file's declaration, read without running the page (its literal ``PAGE``), in order."""
    found = []
    for path in sorted(PAGES.glob("*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "PAGE" for t in node.targets):
                declared = ast.literal_eval(node.value)
                found.append(SitePage(f"{PAGES.name}/{path.name}", **declared))
    return tuple(sorted(found, key=lambda p: p.order))


def _page(p: SitePage) -> st.Page:
    if p.order == 0:
        return st.Page(p.file, title=p.title, icon=p.icon, default=True)
    return st.Page(p.file, title=p.title, icon=p.icon, url_path=p.url_path)


def view_path(kind: str) -> str:
    """The address (relative to the app) of the page that shows a run of this kind: its workload's page, or Runs,
    which shows any run."""
    return kind if page_of(kind) is not None else "runs"


def page_of(kind: str) -> st.Page | None:
    """The page of a workload, when the app has one (to link or switch to)."""
    return workload_pages().get(kind) if workloads.WORKLOADS.has(kind) else None



def run() -> None:
    """Navigation, the sidebar, then the chosen page; a storage fault is one sentence instead of the page."""
    st.set_page_config(page_title="TF Training Lab", page_icon=str(ICON), layout="wide")
    refused = access.refused_host()  # before anything of the app: a name the operator did not list
    if refused:
        st.navigation(pages(), position="hidden")  # no menu, and no folder listing in its place
        st.error(refused)
        st.stop()
    st.html(STILL_PROGRESS)  # style only: Streamlit gives it no room on the page
    page = st.navigation(pages())
    forms.forget_other_pages(page.url_path)
    st.session_state[_OPENED] = page.url_path
    sidebar.render()
    try:
        page.run()
    except (StoreError, ConfigError) as e:  # read-only, full, damaged; an unknown executor: one sentence
        st.error(fmt.md(str(e), 400))
