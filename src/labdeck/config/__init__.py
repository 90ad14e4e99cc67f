"""The user's TOML config (instances, keymap, saved views), token sources, and labdeck's own state."""
