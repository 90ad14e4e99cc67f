"""The schema of the sandbox's GraphQL endpoint: the SDL, in GitLab's own names and
types, of the slice labdeck reads, and its scalars as GitLab coerces them (`Time` ISO 8601 to the second,
`BigInt` a string, `ContainerRepositoryID` a Global ID of that kind, else a coercion error).
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from graphql import GraphQLError, GraphQLSchema, build_schema

from labdeck.domain.digits import parse_digits

GID_PREFIX = "gid://gitlab/ContainerRepository/"

SDL = """
scalar Time
scalar BigInt
scalar ContainerRepositoryID

enum ContainerRepositoryTagSort { NAME_ASC NAME_DESC PUBLISHED_AT_ASC PUBLISHED_AT_DESC }

type PageInfo {
  hasNextPage: Boolean!
  hasPreviousPage: Boolean!
  startCursor: String
  endCursor: String
}

type ContainerRepositoryTag {
  name: String!
  path: String!
  location: String!
  digest: String
  revision: String
  shortRevision: String
  mediaType: String
  createdAt: Time
  publishedAt: Time
  totalSize: BigInt
}

type ContainerRepositoryTagDetails {
  name: String!
  path: String!
  location: String!
  digest: String
  mediaType: String
  createdAt: Time
  publishedAt: Time
  totalSize: BigInt
}

type ContainerRepositoryTagEdge { cursor: String! node: ContainerRepositoryTag }

type ContainerRepositoryTagConnection {
  nodes: [ContainerRepositoryTag]
  edges: [ContainerRepositoryTagEdge]
  pageInfo: PageInfo!
}

enum ContainerExpirationPolicyCleanupStatusEnum { UNSCHEDULED SCHEDULED UNFINISHED ONGOING }

type ContainerRepository {
  id: ContainerRepositoryID!
  name: String!
  path: String!
  status: String
  tagsCount: Int!
  expirationPolicyStartedAt: Time
  expirationPolicyCleanupStatus: ContainerExpirationPolicyCleanupStatusEnum
}

type ContainerRepositoryConnection { nodes: [ContainerRepository] pageInfo: PageInfo! }

type Project {
  id: ID!
  fullPath: ID!
  containerRepositories(after: String, first: Int): ContainerRepositoryConnection
}

type ContainerRepositoryDetails {
  id: ContainerRepositoryID!
  name: String!
  path: String!
  location: String!
  createdAt: Time
  status: String
  tagsCount: Int!
  expirationPolicyStartedAt: Time
  expirationPolicyCleanupStatus: ContainerExpirationPolicyCleanupStatusEnum
  tags(after: String, before: String, first: Int, last: Int, name: String,
       sort: ContainerRepositoryTagSort): ContainerRepositoryTagConnection
  tagDetails(name: String!): ContainerRepositoryTagDetails
  manifest(reference: String!): String
  size: Float
}

type Query {
  containerRepository(id: ContainerRepositoryID!): ContainerRepositoryDetails
  project(fullPath: ID!): Project
}
"""


# --- scalars ----------------------------------------------------------------------------------------------

def _time(value: datetime) -> str:
    """GitLab's `Time`: `value.iso8601`, whole seconds, `Z` for UTC."""
    return value.strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_gid(value: Any) -> int:
    if not isinstance(value, str) or not value.startswith("gid://gitlab/"):
        raise GraphQLError(f"{json.dumps(value)} is not a valid Global ID")
    number = parse_digits(value[len(GID_PREFIX):]) if value.startswith(GID_PREFIX) else None
    if number is None:
        raise GraphQLError(f"{json.dumps(value)} does not represent an instance of ContainerRepository")
    return number


def parse_gid_literal(node: Any, _variables: Any = None) -> int:
    return parse_gid(getattr(node, "value", None))


def _set_scalar(schema: GraphQLSchema, name: str, output: Any, parse: Any = None) -> None:
    """Give a scalar of the SDL its coercion (graphql-core 3.3 names; the 3.2 ones too)."""
    scalar = schema.type_map[name]
    scalar.serialize = scalar.coerce_output_value = output  # type: ignore[attr-defined]
    if parse is not None:
        scalar.parse_value = scalar.coerce_input_value = parse  # type: ignore[attr-defined]
        scalar.parse_literal = parse_gid_literal  # type: ignore[attr-defined]


def build() -> GraphQLSchema:
    schema = build_schema(SDL)
    _set_scalar(schema, "Time", _time)
    _set_scalar(schema, "BigInt", lambda value: str(int(value)))
    _set_scalar(schema, "ContainerRepositoryID", lambda value: f"{GID_PREFIX}{value}", parse_gid)
    return schema


SCHEMA = build()
