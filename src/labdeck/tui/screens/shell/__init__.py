"""The shell's own screens: home, jump, help, jobs, request log, first run."""
