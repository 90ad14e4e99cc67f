"""Pure rules of labdeck: no I/O, no Textual, no httpx. Imports nothing else of labdeck."""
