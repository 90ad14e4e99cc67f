"""The kit every area builds its views from: the pane policy (`pane_policy.py`), the panes over one owner's
resources and their loading (`panes.py`: `OwnerPane`, `LoadedPane`, `ListPane`; `edited.py`: rows added,
edited and deleted through an editor), what a list shows (`tabs.TabSpec`), the form (`forms.py`), the owner
of a pane (`owner.py`: a project, a group or the instance) and the resources every owner has (members and
CI/CD variables: their specs, forms and panes). It may use the widgets, the context and the shared screen
pieces (`screens/confirm.py`, `screens/form_keys.py`); no area, and no module of an area, is imported here.
"""
