"""The lab's built-in workloads, one package each (``dqn``, ``hjb``, ``bench``): every subpackage here registers
itself when the registry (``rlcore.contract.workloads.WORKLOADS``) imports it, so a new workload is one new package
and nothing else changes. Nothing here is imported by the contract, the store, the executors, the CLI or the
dashboard's generic code: they find the workloads through the registry.
"""
