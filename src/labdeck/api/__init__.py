"""The async service layer: HTTP client, pagination, cache, models and one service module per area."""
