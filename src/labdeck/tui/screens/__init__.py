"""One screen per module, each with its .tcss beside it."""
