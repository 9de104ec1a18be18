from rlcore.cli.main import main

raise SystemExit(main(process=True))
