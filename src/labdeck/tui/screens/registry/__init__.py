"""The Registry area: repositories, tags and the cleanup panel."""
