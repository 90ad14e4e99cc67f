"""The Textual application: app shell, screens, widgets, jobs, themes and keymap."""
