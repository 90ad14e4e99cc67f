"""`:access`, the access review (issue 36): members, CI/CD variables and access tokens across a group or the
instance, built on the pane kit (`tui/kit/`). The screen is `access.py`; its tabs are `members.py`,
`variables.py` and `tokens.py`, over the shared `review.py`."""
