from repobot.cli.main import main

raise SystemExit(main())
