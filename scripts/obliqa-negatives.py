#!/usr/bin/env python3
"""Questions whose answer is not in scope, for measuring refusal on ObliQA (the "neighbour
document" negatives of the README).

  python3 scripts/obliqa-negatives.py OUT/fit/q.jsonl OUT/fit/gold.json r.jsonl OBLIQA/corpus OUT/fit-negatives

`r.jsonl` is a `policypal eval` result of the same questions. For each answered question that
cited a document other than its gold one, the item asks the same question scoped to that
document alone (kind `refuse`), unless that document holds more than a fifth of the gold
passages' six-word sequences (then it may well answer the question too). The proxy is weak:
many ObliQA questions are general enough that a neighbouring rulebook answers them in other
words. Needs poppler's `pdftotext`. Pure Python otherwise, deterministic.
"""
import json
import os
import re
import subprocess
import sys


def words(text):
    return re.sub(r"[^a-z0-9]+", " ", text.lower()).split()


def grams(text, n=6):
    w = words(text)
    return {tuple(w[i:i + n]) for i in range(len(w) - n + 1)}


def main():
    qfile, gfile, rfile, corpus, out = sys.argv[1:6]
    questions = [json.loads(l) for l in open(qfile)]
    gold = json.load(open(gfile))
    results = {json.loads(l)["id"]: json.loads(l) for l in open(rfile)}
    texts = {}

    def doc_grams(doc):
        if doc not in texts:
            t = subprocess.run(["pdftotext", os.path.join(corpus, doc), "-"],
                               capture_output=True, text=True, check=True).stdout
            texts[doc] = grams(t)
        return texts[doc]

    items, skipped = [], 0
    for q in questions:
        g = gold[q["id"]]
        gold_docs = {p["doc"] for p in g["passages"]}
        r = results.get(q["id"], {})
        other = [c["doc"] for c in r.get("citations", []) if c["doc"] not in gold_docs]
        if not other:
            continue
        wanted = set().union(*(grams(p["text"]) for p in g["passages"]))
        if not wanted:
            continue
        if len(wanted & doc_grams(other[0])) / len(wanted) > 0.2:
            skipped += 1
            continue
        item = dict(q, id=q["id"] + "-neg", docs=[other[0]], kind="refuse")
        items.append(item)
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "neg.jsonl"), "w") as f:
        for i in items:
            f.write(json.dumps(i) + "\n")
    print(f"{len(items)} negatives; {skipped} skipped as answerable from the other document")


if __name__ == "__main__":
    main()
