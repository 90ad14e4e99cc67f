"""The Deployments area: deployments, environments and protected environments."""
