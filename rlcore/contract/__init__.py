"""The contract every part of the lab agrees on, with no TensorFlow and no storage: what a workload declares
(``workload``), its settings' machinery (``params``), how numbers are written (``text``), how training reports
(``reporting``), the one ``Registry`` workloads and executors are found through, and every ``RLCORE_*`` setting
(``settings``). Everything else stands on it: the workloads' packages, the harness, the store, the executors, the
CLI and the dashboard; it imports none of them.
"""
