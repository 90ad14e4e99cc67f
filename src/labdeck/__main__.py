"""Allow `python -m labdeck`."""

from labdeck.cli import main

raise SystemExit(main())
