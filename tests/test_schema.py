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
     models.FactRev, models.VerdictMemo, models.NativeFolder, models.NativeNote,
     models.ShareRemote, models.ShareTrust, models.FactVec],
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
    # The full-text index (V4) is SQL only: a virtual table and the shadow tables FTS5 owns.
    assert {t for t in tables if t.startswith("fact_fts")} == {
        "fact_fts", "fact_fts_data", "fact_fts_idx", "fact_fts_docsize", "fact_fts_config"
    }
    # Identifier parts (V13): a trigram index over the same text, SQL only as well.
    assert {t for t in tables if t.startswith("fact_tri")} == {
        "fact_tri", "fact_tri_data", "fact_tri_idx", "fact_tri_docsize", "fact_tri_config"
    }
    # The evidence's own word index (V16), SQL only too.
    assert {t for t in tables if t.startswith("fact_ev")} == {
        "fact_ev", "fact_ev_data", "fact_ev_idx", "fact_ev_docsize", "fact_ev_config"
    }
    tables = {t for t in tables if not t.startswith(("fact_fts", "fact_tri", "fact_ev"))}
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
            models.NativeFolder,
            models.NativeNote,
            models.ShareRemote,
            models.ShareTrust,
            models.FactVec,
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


def _fts_ids(conn: sqlite3.Connection, word: str) -> list[int]:
    return [r[0] for r in conn.execute(
        "SELECT rowid FROM fact_fts WHERE fact_fts MATCH ? ORDER BY rowid", (f'"{word}"',)
    )]


def test_the_search_index_follows_every_write(tmp_path: Path) -> None:
    conn = db.connect(tmp_path / "s.db")
    add = ("INSERT INTO fact (project, text, norm, category, files, created_at, updated_at) "
           "VALUES ('p', ?, '', 'decision', ?, 0, 0)")
    conn.execute(add, ("Packages install with uv", '["src/build.py"]'))
    conn.execute(add, ("Deploys go out on Tuesdays", "[]"))
    assert _fts_ids(conn, "installs") == [1]  # porter stemming
    assert _fts_ids(conn, "build") == [1]  # cited paths are searchable
    conn.execute("UPDATE fact SET text = 'Packages come from the mirror' WHERE id = 1")
    assert _fts_ids(conn, "install") == [] and _fts_ids(conn, "mirror") == [1]
    conn.execute("UPDATE fact SET status = 'approved' WHERE id = 2")  # no text change
    assert _fts_ids(conn, "tuesdays") == [2]
    conn.execute("DELETE FROM fact WHERE id = 2")
    assert _fts_ids(conn, "tuesdays") == []
    conn.execute("INSERT INTO fact_fts(fact_fts) VALUES ('integrity-check')")  # raises if not


def test_upgrading_a_v3_store_indexes_the_facts_it_has(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    conn = sqlite3.connect(path, isolation_level=None)
    for migration in schema.MIGRATIONS[:3]:
        for statement in db._statements(migration):
            conn.execute(statement)
    conn.execute("PRAGMA user_version=3")
    conn.execute("INSERT INTO fact (project, text, norm, category, created_at, updated_at) "
                 "VALUES ('p', 'The cache lives in Redis', '', 'decision', 0, 0)")
    conn.close()
    upgraded = db.connect(path)
    assert upgraded.execute("PRAGMA user_version").fetchone()[0] == schema.VERSION
    assert _fts_ids(upgraded, "redis") == [1]


def test_the_verifier_migration_keeps_facts_and_leaves_the_verdict_unknown(tmp_path: Path) -> None:
    """A store from before V5_VERIFIER: its facts stay, the new columns read NULL."""
    path = tmp_path / "old.db"
    raw = sqlite3.connect(path)
    at = schema.MIGRATIONS.index(schema.V5_VERIFIER)
    for script in schema.MIGRATIONS[:at]:
        raw.executescript(script)
    raw.execute(f"PRAGMA user_version={at}")
    raw.execute("INSERT INTO fact (project, text, norm, category, grounded, created_at, "
                "updated_at) VALUES ('/p', 'Old fact.', 'old fact', 'gotcha', 1, 1, 1)")
    raw.commit()
    raw.close()
    conn = db.connect(path)
    row = conn.execute("SELECT * FROM fact").fetchone()
    assert (row["text"], row["grounded"]) == ("Old fact.", 1)
    assert [row[c] for c in ("verify_check", "evidence_turn", "evidence_speaker",
                             "evidence_source", "supersedes")] == [None] * 5


def test_v3_store_gains_the_sharing_columns_and_keeps_its_facts(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    raw = sqlite3.connect(path)
    for migration in schema.MIGRATIONS[:3]:
        raw.executescript(migration)
    raw.execute("INSERT INTO fact (project, text, norm, category, status, created_at, "
                "updated_at) VALUES ('/p', 'Old fact', 'old fact', 'decision', 'approved', 1, 1)")
    raw.execute("PRAGMA user_version=3")
    raw.commit()
    raw.close()
    conn = db.connect(path)
    row = conn.execute("SELECT text, share_id, approver, personal FROM fact").fetchone()
    assert tuple(row) == ("Old fact", None, None, 0)
    conn.execute("UPDATE fact SET share_id = 'x'")
    conn.execute("INSERT INTO fact (project, text, norm, category, created_at, updated_at) "
                 "VALUES ('/p', 'New', 'new', 'decision', 1, 1)")
    with pytest.raises(sqlite3.IntegrityError):  # one file per fact: share ids are unique
        conn.execute("UPDATE fact SET share_id = 'x' WHERE text = 'New'")
