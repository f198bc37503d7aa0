"""The SQL schema is the one definition; the sqlmodel models must map onto it exactly."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from sqlmodel import SQLModel

from reviewer.store import db, models, schema


def _columns(conn: sqlite3.Connection, table: str) -> dict[str, tuple[str, bool, bool]]:
    rows = conn.execute(f"PRAGMA table_info({table})").fetchall()
    return {r["name"]: (r["type"].upper(), bool(r["notnull"]), bool(r["pk"])) for r in rows}


SQL_TYPES = {"INTEGER": "INTEGER", "VARCHAR": "TEXT", "FLOAT": "REAL", "TEXT": "TEXT"}


@pytest.mark.parametrize(
    "model",
    [models.Job, models.Fact, models.FactHistory, models.Injection, models.HashCache,
     models.FactRev, models.VerdictMemo],
)
def test_model_matches_sql(tmp_path: Path, model: type[SQLModel]) -> None:
    conn = db.connect(tmp_path / "s.db")
    table = model.__table__  # type: ignore[attr-defined]
    sql = _columns(conn, table.name)
    mapped = {c.name: c for c in table.columns}
    assert set(mapped) == set(sql), f"{table.name}: columns differ"
    for name, column in mapped.items():
        sql_type, _notnull, pk = sql[name]
        compiled = str(column.type.compile()).split("(")[0].upper()
        assert SQL_TYPES.get(compiled, compiled) == sql_type, f"{table.name}.{name} type"
        assert column.primary_key == pk, f"{table.name}.{name} primary key"


def test_every_table_has_a_model(tmp_path: Path) -> None:
    conn = db.connect(tmp_path / "s.db")
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert tables == {
        m.__table__.name
        for m in (  # type: ignore[attr-defined]
            models.Job,
            models.Fact,
            models.FactHistory,
            models.Injection,
            models.HashCache,
            models.FactRev,
            models.VerdictMemo,
        )
    }


def test_version_and_modes(tmp_path: Path) -> None:
    path = tmp_path / "home" / "s.db"
    conn = db.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == schema.VERSION
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert path.stat().st_mode & 0o777 == 0o600
    assert path.parent.stat().st_mode & 0o777 == 0o700


def test_newer_store_is_refused_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    db.connect(path).execute(f"PRAGMA user_version={schema.VERSION + 1}")
    with pytest.raises(db.StoreError, match="newer than this mem-review"):
        db.connect(path)


def test_broken_file_is_a_store_error(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    path.write_bytes(b"this is not a database" * 100)
    with pytest.raises(db.StoreError, match=r"is damaged .*file is not a database.*recover"):
        db.connect(path)


def test_concurrent_first_open_migrates_once(tmp_path: Path) -> None:
    import threading

    path = tmp_path / "s.db"
    errors: list[BaseException] = []

    def open_it() -> None:
        try:
            db.connect(path).close()
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=open_it) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    conn = db.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == schema.VERSION
