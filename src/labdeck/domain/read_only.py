"""What a read-only session may send: reads only (GET, HEAD, OPTIONS), and one exception, a POST to GitLab's
GraphQL endpoint of exactly this shape (labdeck reads registry tag details that way): no query string, a JSON
body and nothing beside it, the body an object of `query`, `variables` and `operationName` only, whose
document holds query operations only. Anything else is refused: a mutation, a subscription, a document that
does not parse, and the three ways a mutation once left a read-only session beside a checked query:

- a `_json` key: GitLab's `GraphqlController` runs `params[:_json]`, when it is an array, as a multiplex of
  every document in it (`multiplex?`, app/controllers/graphql_controller.rb), whatever `query` says;
- a query string: the controller reads `params`, in which Rails merges the URL's query parameters over the
  body's (`ActionDispatch::Request#parameters`: `request_parameters.merge(query_parameters)`), so
  `?query=mutation...` replaces the checked document;
- a body beside the JSON (`data=`, `files=`, raw `content=`, or a header saying the body is a form): httpx
  sends those instead of `json=`, and Rails reads form and multipart bodies as parameters too.

The client (`ApiClient.request`, and each redirect hop) asks `refusal` before anything is sent, whatever a
screen or `labdeck api` asks for; the journal asks it too to tell a change from a read.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

READS = frozenset({"GET", "HEAD", "OPTIONS"})
GRAPHQL_PATH = "/api/graphql"
# What `permitted_standalone_query_params` reads of a single request (`remove_deprecated` changes the schema
# only; labdeck never sends it, so it is refused with anything else).
GRAPHQL_KEYS = frozenset({"query", "variables", "operationName"})


@lru_cache(maxsize=64)
def only_queries(document: str) -> bool:
    """True when the GraphQL `document` parses and every operation in it is a query (fragments allowed)."""
    from graphql import GraphQLError
    from graphql.language import FragmentDefinitionNode, OperationDefinitionNode, OperationType, parse

    try:
        parsed = parse(document, no_location=True)
    except (GraphQLError, RecursionError):
        return False
    operations = [d for d in parsed.definitions if isinstance(d, OperationDefinitionNode)]
    others = [d for d in parsed.definitions
              if not isinstance(d, (OperationDefinitionNode, FragmentDefinitionNode))]
    return bool(operations) and not others and all(o.operation is OperationType.QUERY for o in operations)


def graphql_query(body: Any) -> bool:
    """A GraphQL request body of exactly the allowed shape: an object of `query` (a document of queries
    only), `variables` (an object or null) and `operationName` (a string or null), and nothing else."""
    if not isinstance(body, dict) or not set(body) <= GRAPHQL_KEYS or not isinstance(body.get("query"), str):
        return False
    if not isinstance(body.get("variables"), dict | None):
        return False
    if not isinstance(body.get("operationName"), str | None):
        return False
    return only_queries(body["query"])


def refusal(method: str, path: str, body: Any, graphql_path: str = GRAPHQL_PATH, *, query: str = "",
            other_body: bool = False) -> str | None:
    """Why a read-only session must not send `method` to `path` (the URL path) with the query string `query`
    and the JSON `body` (`other_body`: something else would be sent beside or instead of that JSON); None
    when it may."""
    method = method.upper()
    if method in READS:
        return None
    if method == "POST" and path.rstrip("/") == graphql_path.rstrip("/"):
        if query:
            return "a GraphQL request with a query string: GitLab reads the URL's parameters over the body's"
        if other_body:
            return "a GraphQL request whose body is not JSON alone"
        if graphql_query(body):
            return None
        return ("a GraphQL mutation, or a body that is not only `query`, `variables` and `operationName` of "
                "a document of queries")
    return f"{method} changes the instance"
