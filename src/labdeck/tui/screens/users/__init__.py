"""The Users area (administrators): moderation by condition."""
