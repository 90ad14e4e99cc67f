"""`POST /api/graphql` (and `GET`): the slice of GitLab's GraphQL API that labdeck reads, executed by a real
GraphQL library (graphql-core) over a schema written in GitLab's own names and types:

    containerRepository(id: ContainerRepositoryID!): ContainerRepositoryDetails
      tags(first, after, last, before, name, sort): ContainerRepositoryTagConnection  (max page size 20)
      tagDetails(name: String!): ContainerRepositoryTagDetails
      manifest(reference: String!): String   (the image manifest's JSON text: by tag name or digest)
      size: Float                            (deduplicated: the repository's unique blobs)

As GitLab (`app/controllers/graphql_controller.rb`, `app/graphql/types/container_registry/*`) behaves:
- auth as REST (`PRIVATE-TOKEN`, `Authorization: Bearer`); an unknown token is 401
  `{"errors":[{"message":"Invalid token"}]}`, a blocked user's 403 `API not accessible for user`; job tokens
  are not GraphQL credentials (the request is anonymous), and there is no sudo;
- a repository that is missing or that the caller cannot read resolves to `null` without an error (GitLab
  returns what the user may not see as null); an ID of the wrong kind is a coercion error;
- `Time` is ISO 8601 to the second (`value.iso8601`), `BigInt` a string; `tags` clamps `first` to 20
  (`max_page_size: 20` on the field) without an error, ordered by name, opaque cursors;
- a query above 10,000 characters is 422 `Query too large`; above the complexity limit (200 anonymous, 250
  a user, 300 an administrator; one point per field here) the query is refused with graphql-ruby's message;
  Apollo batching (a JSON array) is accepted;
- the caller is known (from the headers) before the body is read, and the body is read as `bodies.py`
  says: up to 100 MiB for a known caller, 64 KiB for an anonymous one; past it 413, in the controller's
  `{"errors":[{"message": ...}]}` shape, the rest unread.

The schema and its scalars are in `graphql_schema.py`. The route lives outside `/api/v4` (`ROOT_ROUTES`,
mounted beside the API's routes); `SandboxOptions.graphql=False`
(`--no-graphql`) removes it, so the endpoint answers 404 as an instance without GraphQL would.
"""

from __future__ import annotations

import base64
import bisect
import inspect
import json
from collections import OrderedDict
from collections.abc import Awaitable
from typing import Any, TypeGuard

from graphql import (
    DocumentNode,
    FieldNode,
    GraphQLError,
    Visitor,
    execute,
    parse,
    validate,
    visit,
)
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from labdeck.domain.digits import parse_digits
from labdeck.sandbox.bodies import ANONYMOUS_BODY, BodyTooLarge, read_body, replayed
from labdeck.sandbox.http import encode
from labdeck.sandbox.routes.graphql_schema import SCHEMA, parse_gid
from labdeck.sandbox.routes.registry import manifest_text, repository_path, sorted_tags, tag_by_reference
from labdeck.sandbox.seed.registry import Repository, Tag, registry_data, repository_size
from labdeck.sandbox.store import Store, User

MAX_QUERY_SIZE = 10_000
# GitlabSchema: DEFAULT_MAX_COMPLEXITY (anonymous), AUTHENTICATED_MAX_COMPLEXITY, ADMIN_MAX_COMPLEXITY.
MAX_COMPLEXITY = {"anonymous": 200, "user": 250, "admin": 300}
TAGS_MAX_PAGE_SIZE = 20
_LOCKED_OUT = {"blocked", "ldap_blocked", "banned", "blocked_pending_approval", "deactivated"}



# --- resolvers --------------------------------------------------------------------------------------------

class Context:
    """What resolvers see: the store, the caller and the instance's base URL."""

    def __init__(self, store: Store, user: User | None, base: str) -> None:
        self.store = store
        self.user = user
        self.base = base


def _tag_node(ctx: Context, repo: Repository, tag: Tag) -> dict[str, Any]:
    path = repository_path(ctx, repo)  # type: ignore[arg-type]
    host = "registry." + ctx.base.split("://", 1)[-1]
    return {"name": tag.name, "path": f"{path}:{tag.name}", "location": f"{host}/{path}:{tag.name}",
            "digest": tag.digest, "revision": tag.revision, "shortRevision": tag.revision[:9],
            "mediaType": "application/vnd.docker.distribution.manifest.v2+json",
            "createdAt": tag.created_at, "publishedAt": tag.created_at, "totalSize": tag.total_size}


def _cursor(name: str) -> str:
    return base64.urlsafe_b64encode(name.encode()).decode().rstrip("=")


def _uncursor(cursor: str) -> str:
    try:
        return base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
    except (ValueError, UnicodeDecodeError):
        raise GraphQLError("Invalid cursor provided") from None


def _sorted(repo: Repository, sort: str | None) -> list[Tag]:
    tags = sorted_tags(repo)
    if sort == "NAME_DESC":
        tags = tags[::-1]
    elif sort in ("PUBLISHED_AT_ASC", "PUBLISHED_AT_DESC"):
        tags = sorted(tags, key=lambda t: t.created_at.timestamp() if t.created_at else float("-inf"),
                      reverse=sort.endswith("DESC"))
    return tags


def resolve_tags(repo: Repository, info: Any, after: str | None = None, before: str | None = None,
                 first: int | None = None, last: int | None = None, name: str | None = None,
                 sort: str | None = None) -> dict[str, Any]:
    ctx: Context = info.context
    for value, arg in ((first, "first"), (last, "last")):
        if value is not None and value < 0:
            raise GraphQLError(f"Argument '{arg}' on Field 'tags' has an invalid value ({value}). "
                               "Expected type 'Int'.")
    tags = _sorted(repo, sort)
    if name:
        tags = [t for t in tags if name in t.name]
    keys = [t.name for t in tags]
    start, end = 0, len(tags)
    if after is not None and sort in (None, "NAME_ASC"):
        start = bisect.bisect_right(keys, _uncursor(after))
    elif after is not None:
        start = keys.index(_uncursor(after)) + 1 if _uncursor(after) in keys else len(keys)
    if before is not None:
        target = _uncursor(before)
        end = keys.index(target) if target in keys else end
    window = tags[start:end]
    if last is not None and first is None:  # the end of the window, backwards
        page = window[len(window) - min(last, TAGS_MAX_PAGE_SIZE):] if last else []
        has_next, has_previous = end < len(tags), len(page) < len(window)
    else:  # graphql-ruby clamps `first` to the field's max_page_size, silently
        page = window[:min(first if first is not None else TAGS_MAX_PAGE_SIZE, TAGS_MAX_PAGE_SIZE)]
        has_next, has_previous = len(page) < len(window), start > 0
    nodes = [_tag_node(ctx, repo, t) for t in page]
    cursors = [_cursor(t.name) for t in page]
    return {
        "nodes": nodes,
        "edges": [{"cursor": c, "node": n} for c, n in zip(cursors, nodes, strict=True)],
        "pageInfo": {"hasNextPage": has_next, "hasPreviousPage": has_previous,
                     "startCursor": cursors[0] if cursors else None,
                     "endCursor": cursors[-1] if cursors else None},
    }


def resolve_tag_details(repo: Repository, info: Any, name: str) -> dict[str, Any] | None:
    tag = repo.tags.get(name)
    return None if tag is None else _tag_node(info.context, repo, tag)


def resolve_container_repository(_root: Any, info: Any, id: int) -> dict[str, Any] | None:
    ctx: Context = info.context
    repo = registry_data(ctx.store).repositories.get(id if isinstance(id, int) else parse_gid(id))
    if repo is None:
        return None
    project = ctx.store.projects.get(repo.project_id)
    if project is None or not ctx.store.can_read_project(ctx.user, project):
        return None  # GitLab shows what the user may not see as null, without an error
    path = repository_path(ctx, repo)  # type: ignore[arg-type]
    return {"id": repo.id, "name": repo.name, "path": path,
            "location": "registry." + ctx.base.split("://", 1)[-1] + "/" + path,
            "createdAt": repo.created_at, "status": repo.status, "tagsCount": len(repo.tags),
            **_cleanup_fields(repo),
            "tags": lambda info, **args: resolve_tags(repo, info, **args),
            "tagDetails": lambda info, **args: resolve_tag_details(repo, info, **args),
            "manifest": lambda _info, reference: _manifest(repo, reference),
            "size": lambda _info: float(repository_size(repo))}


def _manifest(repo: Repository, reference: str) -> str | None:
    """GitLab's `manifest(reference:)`: the registry's manifest text, null when there is none."""
    tag = tag_by_reference(repo, reference)
    return None if tag is None else manifest_text(tag)


def _cleanup_fields(repo: Repository) -> dict[str, Any]:
    """The cleanup policy's fields of a repository (its last start, its status as GitLab's enum)."""
    return {"expirationPolicyStartedAt": repo.cleanup_policy_started_at,
            "expirationPolicyCleanupStatus": repo.cleanup_status.removeprefix("cleanup_").upper()}


def resolve_project(_root: Any, info: Any, fullPath: str) -> dict[str, Any] | None:
    ctx: Context = info.context
    project = ctx.store.project_by_path(fullPath)
    if project is None or not ctx.store.can_read_project(ctx.user, project):
        return None

    def repositories(_info: Any, after: str | None = None, first: int | None = None) -> dict[str, Any]:
        repos = registry_data(ctx.store).of_projects({project.id})
        start = (parse_digits(_uncursor(after)) if after else None) or 0
        page = repos[start:start + min(first or 100, 100)]
        nodes = [{"id": r.id, "name": r.name, "path": repository_path(ctx, r),  # type: ignore[arg-type]
                  "status": r.status, "tagsCount": len(r.tags), **_cleanup_fields(r)} for r in page]
        more = start + len(page) < len(repos)
        end = _cursor(str(start + len(page))) if page else None
        return {"nodes": nodes, "pageInfo": {"hasNextPage": more, "hasPreviousPage": start > 0,
                                             "startCursor": None, "endCursor": end}}

    return {"id": f"gid://gitlab/Project/{project.id}", "fullPath": project.path_with_namespace,
            "containerRepositories": repositories}


ROOT_VALUE = {"containerRepository": lambda info, **args: resolve_container_repository(None, info, **args),
              "project": lambda info, **args: resolve_project(None, info, **args)}


# --- HTTP -------------------------------------------------------------------------------------------------

def _errors(message: str, status: int) -> Response:
    return Response(encode({"errors": [{"message": message}]}), status_code=status,
                    media_type="application/json")


def _caller(store: Store, request: Request) -> User | Response | None:
    """The user of a `PRIVATE-TOKEN` or `Bearer` token; None when anonymous (job tokens do not count);
    a 401/403 response as GitLab's `authorize_access_api!` gives it."""
    token_value = request.headers.get("private-token")
    auth = request.headers.get("authorization", "")
    if not token_value and auth.lower().startswith("bearer "):
        token_value = auth[7:].strip()
    if not token_value:
        return None
    token = store.tokens.get(token_value)
    user = store.users.get(token.user_id) if token is not None and token.kind != "job" else None
    if user is None:
        return _errors("Invalid token", 401)
    if user.state in _LOCKED_OUT:
        return _errors("API not accessible for user", 403)
    return user


async def _body(request: Request, limit: int) -> Any:
    """The request's GraphQL body (or query string), read up to `limit` bytes (`bodies.read_body`)."""
    if request.method == "GET":
        params = request.query_params
        variables = params.get("variables")
        return {"query": params.get("query", ""), "operationName": params.get("operationName"),
                "variables": json.loads(variables) if variables else None}
    raw = await read_body(request, limit)
    if request.headers.get("content-type", "").startswith("application/json"):
        return json.loads(raw) if raw.strip() else {}
    form = await replayed(request, raw).form()
    return {"query": form.get("query", ""), "operationName": form.get("operationName")}


def _never_awaitable(_value: Any) -> TypeGuard[Awaitable[Any]]:
    """Every resolver here is synchronous: spare graphql-core its check of every value."""
    return False


class _FieldCount(Visitor):
    def __init__(self) -> None:
        super().__init__()
        self.count = 0

    def enter_field(self, node: FieldNode, *_args: Any) -> None:
        if node.name.value != "__typename":
            self.count += 1


def complexity(document: DocumentNode) -> int:
    """One point per field selected, aliases each counted (graphql-ruby's default field complexity; the
    multipliers GitLab puts on connections are not modelled)."""
    counter = _FieldCount()
    visit(document, counter)
    return counter.count


Prepared = tuple[DocumentNode | None, list[GraphQLError], int]
_DOCUMENTS: OrderedDict[str, Prepared] = OrderedDict()
_DOCUMENTS_KEPT = 64


def _document(query: str) -> Prepared:
    """The parsed and validated query and its complexity, remembered by its text: a client sends the same
    query again and again with other variables (each page, each batch), and parsing, validating and
    counting cost far more than running it (the complexity depends on the document only)."""
    found = _DOCUMENTS.get(query)
    if found is not None:
        _DOCUMENTS.move_to_end(query)
        return found
    try:
        document: DocumentNode | None = parse(query)
    except GraphQLError as error:
        found = (None, [error], 0)
    else:
        assert document is not None
        found = (document, list(validate(SCHEMA, document)), complexity(document))
    _DOCUMENTS[query] = found
    if len(_DOCUMENTS) > _DOCUMENTS_KEPT:
        _DOCUMENTS.popitem(last=False)
    return found


def _limit(ctx: Context) -> int:
    return MAX_COMPLEXITY["anonymous" if ctx.user is None else "admin" if ctx.user.is_admin else "user"]


async def _execute(ctx: Context, item: Any) -> dict[str, Any]:
    if not isinstance(item, dict):
        return {"errors": [{"message": "Unexpected end of document"}]}
    query = str(item.get("query") or "")
    if not query.strip():
        return {"errors": [{"message": "No query string was present"}]}
    variables = item.get("variables")
    if isinstance(variables, str):
        variables = json.loads(variables) if variables.strip() else None
    document, problems, cost = _document(query)
    if document is None or problems:
        return {"errors": [error.formatted for error in problems]}
    limit = _limit(ctx)
    if cost > limit:
        return {"errors": [{"message": f"Query has complexity of {cost}, which exceeds max complexity of "
                                       f"{limit}"}]}
    result = execute(SCHEMA, document, root_value=ROOT_VALUE, context_value=ctx,
                     variable_values=variables if isinstance(variables, dict) else None,
                     operation_name=item.get("operationName"), is_awaitable=_never_awaitable)
    if inspect.isawaitable(result):
        result = await result
    out: dict[str, Any] = {}
    if result.errors:
        out["errors"] = [error.formatted for error in result.errors]
    if result.data is not None or not result.errors:
        out["data"] = result.data
    return out


def _multiplex_over(ctx: Context, items: list[Any]) -> dict[str, Any] | None:
    """The error every query of a batch gets when their complexities together exceed the caller's limit:
    GitLab gives the multiplex the same `max_complexity` as one query (graphql-ruby's
    `MaxQueryComplexity` sums a multiplex), so a batch is no way around the limit."""
    limit = _limit(ctx)
    total = 0
    for item in items:
        if isinstance(item, dict):
            document, problems, cost = _document(str(item.get("query") or ""))
            total += cost if document is not None and not problems else 0
    if total <= limit:
        return None
    return {"errors": [{"message": f"Query has complexity of {total}, which exceeds max complexity of "
                                   f"{limit}"}]}


async def graphql_endpoint(request: Request) -> Response:
    store: Store = request.app.state.store
    caller = _caller(store, request)  # from the headers: known before the body is read
    if isinstance(caller, Response):
        return caller
    limit = ANONYMOUS_BODY if caller is None else request.app.state.options.max_body
    try:
        body = await _body(request, limit)
    except BodyTooLarge:  # GitLab's `file_too_large!` status, in the controller's error shape
        return _errors("413 Request Entity Too Large", 413)
    except ValueError:
        return _errors("Unexpected end of document", 422)
    items = body if isinstance(body, list) else [body]
    if sum(len(str(i.get("query") or "")) for i in items if isinstance(i, dict)) > MAX_QUERY_SIZE:
        return _errors("Query too large", 422)
    options = request.app.state.options
    base = (options.base_url or str(request.base_url)).rstrip("/")
    store.scheduler.run_due()
    ctx = Context(store, caller, base)
    over = _multiplex_over(ctx, items) if isinstance(body, list) else None
    results = [over or await _execute(ctx, item) for item in items]
    return Response(encode(results if isinstance(body, list) else results[0]),
                    media_type="application/json")


routes: list[BaseRoute] = []  # nothing under /api/v4
ROOT_ROUTES: list[BaseRoute] = [Route("/api/graphql", graphql_endpoint, methods=["GET", "POST"])]
