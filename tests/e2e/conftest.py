import pytest
from playwright.sync_api import expect

from devtools.browser import chromium, served_app

# A browser check waits for what it expects to appear; it never times the machine. Playwright's default of 5 s is a
# speed assumption (a page that settles in 6 s on a loaded 2-core machine is not wrong), so every `expect` without its
# own timeout waits up to a minute. Checks whose point is a bound (a row on the chart within the refresh) keep theirs.
expect.set_options(timeout=60_000)


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    return tmp_path_factory.mktemp("rlcore_home")


@pytest.fixture(scope="module")
def server(home):
    with served_app(home) as base:
        yield base


@pytest.fixture(scope="module")
def browser():
    with chromium() as browser:
        yield browser
