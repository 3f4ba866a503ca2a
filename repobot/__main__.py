from repobot.cli.main import run

raise SystemExit(run())
