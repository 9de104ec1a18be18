"""The worker process's entry (``python -m rlcore.runs --run ID`` or ``--drain``): the queue runner starts it; people
use ``python -m rlcore``."""

from rlcore.runs.local import main

raise SystemExit(main())
