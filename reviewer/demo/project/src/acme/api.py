"""HTTP handlers for orders."""

from __future__ import annotations

from datetime import UTC, datetime

from fastapi import APIRouter

router = APIRouter()


@router.post("/orders", status_code=201)
def create_order(payload: dict) -> dict:
    items = payload.get("items", [])
    total = sum(item["price"] * item["qty"] for item in items)
    return {
        "items": items,
        "total": total,
        "created_at": datetime.now(UTC).isoformat().replace("+00:00", "Z"),
    }
