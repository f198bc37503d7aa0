def test_create_order(client):
    response = client.post("/orders", json={"items": [{"price": 3, "qty": 2}]})
    assert response.status_code == 201
    assert response.json()["total"] == 6


def test_empty_cart_returns_empty_items(client):
    response = client.post("/orders", json={})
    assert response.status_code == 201
    assert response.json()["items"] == []
