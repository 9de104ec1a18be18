"""The dashboard's per-workload views, one module per workload (named by its kind): each registers its
``ui.extras.WorkloadViews``; the generic pages find them through ``ui.extras.of(kind)``."""
