"""Word lists the seed draws realistic names from."""

from __future__ import annotations

FIRST_NAMES = (
    "Aaron", "Abigail", "Adrian", "Aisha", "Alan", "Amara", "Andrea", "Arjun", "Beatriz", "Ben", "Bianca",
    "Boris", "Camille", "Carlos", "Chen", "Chloe", "Dalia", "Daniel", "Dmitri", "Elena", "Emeka", "Emma",
    "Farah", "Felix", "Fatima", "Gabriel", "Grace", "Hana", "Hugo", "Ingrid", "Ivan", "Jamal", "Jana",
    "Jonas", "Julia", "Kai", "Kenji", "Lara", "Leon", "Lucia", "Mai", "Marco", "Maya", "Mehmet", "Nadia",
    "Nils", "Noor", "Olga", "Omar", "Paula", "Pedro", "Priya", "Quentin", "Rafael", "Rosa", "Sami", "Sara",
    "Sofia", "Tariq", "Tess", "Tomas", "Uma", "Victor", "Wen", "Xavier", "Yara", "Yusuf", "Zoe",
)
LAST_NAMES = (
    "Abe", "Adeyemi", "Alvarez", "Andersen", "Bauer", "Becker", "Bianchi", "Brown", "Chen", "Costa", "Dubois",
    "Eriksson", "Fischer", "Garcia", "Gupta", "Haddad", "Hansen", "Ibrahim", "Ito", "Jensen", "Kim",
    "Kowalski", "Kumar", "Larsen", "Lee", "Lopez", "Martin", "Meyer", "Moreau", "Nakamura", "Novak",
    "Okafor", "Olsen", "Park", "Petrov", "Rossi", "Santos", "Schmidt", "Silva", "Singh", "Smith", "Tanaka",
    "Torres", "Varga", "Wagner", "Wang", "Weber", "Yilmaz", "Zhang",
)
GROUP_WORDS = (
    "platform", "payments", "identity", "search", "mobile", "data", "infra", "security", "observability",
    "billing", "growth", "developer-experience", "ml", "edge", "storage", "networking", "compliance",
    "design-system", "analytics", "support", "marketplace", "logistics", "messaging", "media", "docs",
)
ORG_WORDS = (
    "acme-corp", "northwind", "globex", "initech", "umbrella-labs", "stark-industries", "wayne-tech",
    "hooli", "vandelay", "soylent", "tyrell", "cyberdyne", "aperture", "black-mesa", "oscorp", "wonka",
)
PROJECT_HEADS = (
    "api", "web", "gateway", "worker", "scheduler", "auth", "ledger", "catalog", "checkout", "ingest",
    "pipeline", "router", "notifier", "indexer", "exporter", "agent", "cli", "sdk", "portal", "console",
    "operator", "proxy", "cache", "queue", "dashboard", "reports", "mailer", "uploader", "renderer", "sync",
)
PROJECT_TAILS = (
    "service", "frontend", "backend", "core", "client", "server", "infra", "charts", "terraform", "docs",
    "e2e", "mobile", "lib", "plugins", "migrations", "tools", "config", "bot",
)
TOPICS = ("go", "python", "ruby", "rust", "typescript", "kubernetes", "terraform", "helm", "grpc", "graphql",
          "postgres", "redis", "kafka", "react", "vue")
