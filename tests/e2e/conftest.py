from playwright.sync_api import expect

# A browser check waits for what it expects to appear; it never times the machine. Playwright's default of 5 s is a
# speed assumption (a page that settles in 6 s on a loaded 2-core machine is not wrong), so every `expect` without its
# own timeout waits up to a minute. Checks whose point is a bound (a row on the chart within the refresh) keep theirs.
expect.set_options(timeout=60_000)
