"""Does a change to recall leave every answer as it was? (A check for speed work.)

    python -m bench.eval.recall_same build DIR          # the eval's stores, built once
    python -m bench.eval.recall_same answer DIR OUT     # every answer of this checkout
    python -m bench.eval.recall_same compare A B        # ids, withheld counts, scores

`build` makes the recall eval's stores (bench/eval/sections/recall.py: its labelled facts
plus 0 / 1,000 / 10,000 distractors per source; MEM_REVIEW_HELDOUT_DIR and
MEM_REVIEW_RECALL_QUESTIONS add a held-out corpus and its questions, as for `make eval`).
`answer` asks every question of every source in every store at limits 1, 5, 10 and 50
with the code on sys.path (run it from another checkout, or with PYTHONPATH naming one,
to get that code's answers over the same stores), lexical only. `compare` exits 1 when any
answer differs. For equivalence only: it reads no relevance labels and scores nothing.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

LIMITS = (1, 5, 10, 50)
PROJECT = "/bench/recall-project"


def build(out: Path) -> None:
    from bench.eval.sections import recall as section

    labelled = section.facts()
    questions = [q["question"] for qs in section.questions_by_half(set(labelled)).values()
                 for q in qs]
    sources = sorted({section.source_of(q["session"]) for q in section.all_questions()})
    avoid = [t for t, _, _ in labelled.values()]
    avoid += [q.get("answer_quote", "") for q in section.all_questions()]
    stores = []
    for source in sources:
        pool, _ = section.distractors(avoid, max(section.SIZES), source)
        for size in section.SIZES:
            home = out / f"{source}-{size}" / "home"
            home.mkdir(parents=True, exist_ok=True)
            conn, _ = section._store(home, labelled, pool[:size])
            conn.close()
            stores.append({"name": f"{source}-{size}", "home": str(home)})
    (out / "stores.json").write_text(json.dumps({"stores": stores, "questions": questions}))


def answer(where: Path, out: Path) -> None:
    from reviewer.claude_code.recall import recall
    from reviewer.store import db, vectors

    plan = json.loads((where / "stores.json").read_text())
    got: dict[str, list[object]] = {}
    restore = vectors.use(None)
    try:
        for store in plan["stores"]:
            os.environ["MEM_REVIEW_HOME"] = store["home"]
            conn = db.connect()
            try:
                for i, question in enumerate(plan["questions"]):
                    for limit in LIMITS:
                        a = recall(conn, PROJECT, question, limit=limit)
                        got[f"{store['name']}|{i}|{limit}"] = [
                            [h.id for h in a.results], [h.score for h in a.results],
                            a.withheld_stale, a.withheld_pending]
            finally:
                conn.close()
    finally:
        restore()
    out.write_text(json.dumps(got))


def compare(a: Path, b: Path) -> int:
    old, new = json.loads(a.read_text()), json.loads(b.read_text())
    if old.keys() != new.keys():
        print("the two runs asked different questions or stores")
        return 1
    ids = [k for k in old if old[k][0] != new[k][0]]
    withheld = [k for k in old if old[k][2:] != new[k][2:]]
    scores = [k for k in old if old[k][1] != new[k][1]]
    print(f"{len(old)} answers (store | question | limit): ranked ids differ in {len(ids)}, "
          f"withheld counts in {len(withheld)}, scores in {len(scores)}")
    for k in (ids + withheld)[:10]:
        print(f"  {k}: {old[k]} != {new[k]}")
    return 1 if ids or withheld or scores else 0


def main(argv: list[str]) -> int:
    if len(argv) == 2 and argv[0] == "build":
        build(Path(argv[1]))
    elif len(argv) == 3 and argv[0] == "answer":
        answer(Path(argv[1]), Path(argv[2]))
    elif len(argv) == 3 and argv[0] == "compare":
        return compare(Path(argv[1]), Path(argv[2]))
    else:
        print(__doc__.split("\n\n")[1])
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
