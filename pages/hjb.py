"""A workload's page: its form (every field bound to the URL), Launch, and a run's view (?run=ID)."""

from ui import launch, router

router.ensure()  # first: a page opened without the router hands the request to it
launch.workload_page("hjb")
