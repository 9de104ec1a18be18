"""Benchmark lab: time TensorFlow patterns per batch size, width and device; see why; find the crossover."""

from ui import bench_view, launch, router

router.ensure()  # first: a page opened without the router hands the request to it
launch.workload_page("bench", intro=bench_view.patterns_why)
