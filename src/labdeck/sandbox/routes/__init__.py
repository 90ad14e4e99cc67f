"""Route modules of the sandbox, one per area; an area with several modules has a folder of its own.

To add an area: write `routes/<area>.py` (or `routes/<folder>/<area>.py`) with `routes: list[Route]` (paths
relative to `/api/v4`, each endpoint wrapped with `labdeck.sandbox.http.endpoint`) and, if it has data,
`seed(store, ctx)` (see `labdeck.sandbox.seed.SeedContext`), then add its name and module to `AREA_MODULES`
in `labdeck.sandbox.areas`. Resolve `:id` with `routes.projects.projects.find_project` /
`routes.groups.groups.find_group`; page lists with `http.paginate`; raise `errors.SandboxError` (or
`http.error` / `http.missing`); call `store.touch()` after changing any record; finish asynchronous
operations with `store.scheduler.schedule(key, action)`.
"""
