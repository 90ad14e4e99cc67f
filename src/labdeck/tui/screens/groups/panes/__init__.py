"""The panes of `:groups`' tabs that only a group has (projects, subgroups, labels, badges, iterations,
export and import: each reads a group's endpoint); the panes every owner has are in `screens/panes/`."""
