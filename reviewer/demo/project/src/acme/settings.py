"""Settings, from ACME_* environment variables."""

from __future__ import annotations

import os

DATABASE_URL = os.environ.get("ACME_DATABASE_URL", "postgresql://localhost/acme")
POOL_SIZE = 5  # staging Postgres allows 20 connections across 4 workers
TIMEOUT_S = 30
