"""The panes of `:groups`' tabs that only a group has (projects, subgroups, labels, badges, iterations,
export and import: each reads a group's endpoint), kit panes over the group as their owner."""
