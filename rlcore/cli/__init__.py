"""Command line: ``python -m rlcore <workload> | runs | sweep | sweeps | devices | cluster | operator-hash`` (one
command per registered workload). The worker process has its own entry (``python -m rlcore.runs``).

Split by what each part does: ``main`` (the entry), ``common`` (the parser class, flags from configs, output
paths, one-sentence errors), ``parser`` (the commands and their flags), ``train`` (a workload run here or queued,
its progress bar), ``stored`` (runs and sweeps in the store), ``machine`` (devices, the cluster, the operator's
passphrase hash). Arguments, labels and output paths are checked before TensorFlow is imported, so bad input costs
nothing and prints one sentence (exit 2); the device is pinned before the import too.
"""
