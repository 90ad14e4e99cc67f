"""The Groups area: the group tree, its tabs, actions and forms."""
