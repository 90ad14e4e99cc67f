"""The entry point and the headless commands: `labdeck`, `labdeck api`, `labdeck registry plan`."""
