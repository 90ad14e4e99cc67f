"""Panes that show one kind of resource whatever its owner (`screens/owner.Owner`): members, CI/CD
variables."""
