#!/usr/bin/env python3
"""Refusal on ObliQA with the question's answer out of scope (the "random-other-rulebook
negatives" of the README) and the same questions scoped to their own rulebook.

  python3 scripts/obliqa-random-negatives.py OUT/fit OBLIQA/corpus
      # writes OUT/fit-rand/q.jsonl and OUT/fit-own/q.jsonl

For the first 120 questions of a half (`OUT/fit/q.jsonl` and `gold.json` from
`obliqa-splits.py`), `-rand` scopes each to one rulebook drawn at random (seeded) among those
that hold none of its gold passages (kind `refuse`: the answer should be a refusal), `-own`
scopes it to its gold rulebooks (kind `inquire`: it should be answered). Count the refusals of a
`policypal eval` result with:

  python3 -c "import json,sys; r=[json.loads(l) for l in open(sys.argv[1])]; print(sum(x['status']=='refused' for x in r), 'of', len(r))" r.jsonl

Deterministic; pure Python.
"""
import json
import os
import random
import sys

N = 120
SEED = 11


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    half, corpus = sys.argv[1].rstrip("/"), sys.argv[2]
    docs = sorted(d for d in os.listdir(corpus) if d.endswith(".pdf"))
    questions = [json.loads(l) for l in open(os.path.join(half, "q.jsonl"))][:N]
    gold = json.load(open(os.path.join(half, "gold.json")))
    rnd = random.Random(SEED)
    os.makedirs(half + "-rand", exist_ok=True)
    os.makedirs(half + "-own", exist_ok=True)
    with open(os.path.join(half + "-rand", "q.jsonl"), "w") as rand, \
            open(os.path.join(half + "-own", "q.jsonl"), "w") as own:
        for q in questions:
            theirs = sorted({p["doc"] for p in gold[q["id"]]["passages"]})
            other = rnd.choice([d for d in docs if d not in theirs])
            rand.write(json.dumps({"id": q["id"], "kind": "refuse", "question": q["question"],
                                   "docs": [other], "gold": {"absent_terms": []}}) + "\n")
            own.write(json.dumps({"id": q["id"], "kind": "inquire", "question": q["question"],
                                  "docs": theirs, "gold": q["gold"]}) + "\n")


if __name__ == "__main__":
    main()
