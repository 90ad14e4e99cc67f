"""Root of the test folders. Its presence puts `tests/` on `sys.path` (pytest's default `prepend` import
mode), so every folder can import the helper modules kept here (`faulty_sandbox`)."""
