"""Pydantic models of API resources; every string is sanitised at this boundary."""
