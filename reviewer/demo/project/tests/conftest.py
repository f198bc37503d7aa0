"""Test fixtures."""

import pytest
from acme.api import router
from fastapi import FastAPI
from fastapi.testclient import TestClient


@pytest.fixture
def client() -> TestClient:
    app = FastAPI()
    app.include_router(router)
    return TestClient(app)


@pytest.fixture
def sqlite_db(tmp_path):
    """Deprecated: new tests use the postgres container."""
    return f"sqlite:///{tmp_path / 'test.db'}"
