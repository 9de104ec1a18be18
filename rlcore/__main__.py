from rlcore.cli import main

raise SystemExit(main(process=True))
