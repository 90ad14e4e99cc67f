"""Allow `python -m labdeck`."""

from labdeck.cli.main import main

raise SystemExit(main())
