"""Recall's eval in seconds, for tuning: the stores built once, scored as often as needed.

    python -m bench.eval.recall_tune build DIR NAME=SESSIONS_DIR:QUESTIONS [...]
    python -m bench.eval.recall_tune score DIR [--half tune] [--sizes 0,1000,10000]
    python -m bench.eval.recall_tune misses DIR SIZE          # the tune half's, to read

`build` makes, for each named question set (its held-out sessions and questions, as
MEM_REVIEW_HELDOUT_DIR and MEM_REVIEW_RECALL_QUESTIONS name them for `make eval`), the
stores of the recall section (bench/eval/sections/recall.py: the labelled facts plus 0 /
1,000 / 10,000 distractors per source, same functions, same seed) under DIR, with the
questions and their halves (`half_of`: MEM_REVIEW_RECALL_SPLIT=parity applies). `score`
asks one half's questions with the code on sys.path, lexical only, and prints recall@1,
recall@5, MRR and the p95 CPU time of one call per set and size (the section's minutes
become seconds; its table remains the figure to report). `misses` prints the tune half's
questions not ranked first, with the fact that answers each and what ranked above it.
The held-out half is scored only with `--half heldout`, and its misses are never printed.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

PROJECT = "/bench/recall-project"


def build(out: Path, sets: list[str]) -> None:
    for spec in sets:
        name, _, paths = spec.partition("=")
        sessions, _, questions = paths.partition(":")
        os.environ["MEM_REVIEW_HELDOUT_DIR"] = sessions
        os.environ["MEM_REVIEW_RECALL_QUESTIONS"] = questions
        from bench.eval.sections import recall as section

        section = importlib.reload(section)  # its paths are read at import
        labelled = section.facts()
        halves = section.questions_by_half(set(labelled))
        avoid = [t for t, _, _ in labelled.values()]
        avoid += [q.get("answer_quote", "") for q in section.all_questions()]
        asked = [{"half": h, "id": q["id"], "question": q["question"],
                  "source": section.source_of(q["session"]), "relevant": q["relevant"]}
                 for h, qs in halves.items() for q in qs]
        stores = []
        for source in sorted({q["source"] for q in asked}):
            pool, _ = section.distractors(avoid, max(section.SIZES), source)
            for size in section.SIZES:
                home = out / name / f"{source}-{size}" / "home"
                home.mkdir(parents=True, exist_ok=True)
                conn, ids = section._store(home, labelled, pool[:size])
                conn.close()
                stores.append({"source": source, "size": size, "home": str(home),
                               "ids": {str(k): v for k, v in ids.items()}})
        (out / name / "plan.json").write_text(json.dumps({"stores": stores, "questions": asked}))


def _ranks(out: Path, half: str, sizes: set[int]) -> list[dict[str, Any]]:
    """Every question of `half` in every store of `sizes`: its answer's rank, its time."""
    from reviewer.claude_code.recall import recall
    from reviewer.store import db, vectors

    got: list[dict[str, Any]] = []
    restore = vectors.use(None)
    try:
        for plan_path in sorted(out.glob("*/plan.json")):
            plan = json.loads(plan_path.read_text())
            for store in plan["stores"]:
                qs = [q for q in plan["questions"]
                      if q["half"] == half and q["source"] == store["source"]]
                if store["size"] not in sizes or not qs:
                    continue
                os.environ["MEM_REVIEW_HOME"] = store["home"]
                conn = db.connect()
                try:
                    ids = {int(k): v for k, v in store["ids"].items()}
                    recall(conn, PROJECT, "warm up the store", limit=10)
                    for q in qs:
                        t0 = time.thread_time()
                        answer = recall(conn, PROJECT, q["question"], limit=10)
                        took = time.thread_time() - t0
                        found = [ids.get(h.id) for h in answer.results]
                        rank = next((i for i, f in enumerate(found, 1)
                                     if f in q["relevant"]), None)
                        got.append({"set": plan_path.parent.name, "size": store["size"],
                                    "q": q, "rank": rank, "s": took, "answer": answer,
                                    "ids": ids, "conn_home": store["home"]})
                finally:
                    conn.close()
    finally:
        restore()
    return got


def score(out: Path, half: str, sizes: set[int]) -> None:
    rows: dict[tuple[str, int], list[dict[str, Any]]] = {}
    for r in _ranks(out, half, sizes):
        rows.setdefault((r["set"], r["size"]), []).append(r)
        rows.setdefault(("all", r["size"]), []).append(r)
    for (name, size), rs in sorted(rows.items(), key=lambda kv: (kv[0][0] == "all", kv[0])):
        n = len(rs)
        r1 = sum(1 for r in rs if r["rank"] == 1)
        r5 = sum(1 for r in rs if r["rank"] and r["rank"] <= 5)
        mrr = sum(1 / r["rank"] for r in rs if r["rank"]) / n
        times = sorted(r["s"] for r in rs)
        p95 = times[min(n - 1, int(0.95 * n))] * 1000
        print(f"{name:12} {size:6}  r@1 {r1:3}/{n:<3}  r@5 {r5:3}/{n:<3}  MRR {mrr:.3f}"
              f"  p95 {p95:.1f} ms (CPU)")


def misses(out: Path, size: int) -> None:
    from reviewer.store import db

    for r in _ranks(out, "tune", {size}):
        if r["rank"] == 1:
            continue
        q = r["q"]
        print(f"== [{r['set']} {q['id']}] rank {r['rank']}: {q['question']}")
        os.environ["MEM_REVIEW_HOME"] = r["conn_home"]
        conn = db.connect()
        try:
            by_label = {v: k for k, v in r["ids"].items()}
            for label in q["relevant"][:2]:
                text = conn.execute("SELECT text FROM fact WHERE id = ?",
                                    (by_label[label],)).fetchone()[0]
                print(f"   answer: {text[:200]}")
        finally:
            conn.close()
        for h in r["answer"].results[:3]:
            mark = "*" if r["ids"].get(h.id) in q["relevant"] else " "
            print(f"   {mark} {h.score:.2f} {h.text[:160]}")


def main(argv: list[str]) -> int:
    if len(argv) < 2 or argv[0] not in ("build", "score", "misses"):
        print(__doc__)
        return 2
    out = Path(argv[1])
    if argv[0] == "build":
        build(out, argv[2:])
    elif argv[0] == "misses":
        misses(out, int(argv[2]))
    else:
        rest = argv[2:]
        half = rest[rest.index("--half") + 1] if "--half" in rest else "tune"
        sizes = ({int(s) for s in rest[rest.index("--sizes") + 1].split(",")}
                 if "--sizes" in rest else {0, 1_000, 10_000})
        score(out, half, sizes)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
