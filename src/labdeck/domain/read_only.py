"""What a read-only session may send: reads only (GET, HEAD, OPTIONS), and one exception, a POST to GitLab's
GraphQL endpoint whose document holds queries only (labdeck reads registry tag details that way). A mutation,
a subscription, a document that does not parse or a body that is not a GraphQL request is refused.

The client (`ApiClient.request`) asks `refusal` before anything is sent, whatever a screen asks for.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

READS = frozenset({"GET", "HEAD", "OPTIONS"})
GRAPHQL_PATH = "/api/graphql"


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
    """A GraphQL request body (`{"query": ..., "variables": ...}`) whose document reads only."""
    if not isinstance(body, dict) or not isinstance(body.get("query"), str):
        return False
    return only_queries(body["query"])


def refusal(method: str, path: str, body: Any, graphql_path: str = GRAPHQL_PATH) -> str | None:
    """Why a read-only session must not send `method` to `path` (the URL path, without the query) with
    the JSON `body`; None when it may."""
    method = method.upper()
    if method in READS:
        return None
    if method == "POST" and path.rstrip("/") == graphql_path.rstrip("/"):
        if graphql_query(body):
            return None
        return "a GraphQL mutation (or a document that is not only queries) is a change"
    return f"{method} changes the instance"
