"""A workload's generated page: its form, or with ?run=ID a run's view (the router gives every workload this file at
its kind's path)."""

from ui import launch, router

launch.workload_page(router.current_kind())
