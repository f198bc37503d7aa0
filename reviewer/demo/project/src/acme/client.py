"""Client for the payment provider (async, httpx)."""

from __future__ import annotations

import asyncio

import httpx

MAX_BACKOFF_SECONDS = 60


async def charge(client: httpx.AsyncClient, order_id: str, amount: int) -> dict:
    delay = 1.0
    while True:
        response = await client.post("/charges", json={"order": order_id, "amount": amount})
        if response.status_code != 503:
            response.raise_for_status()
            return response.json()
        await asyncio.sleep(delay)
        delay = min(delay * 2, MAX_BACKOFF_SECONDS)
