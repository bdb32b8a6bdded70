#!/usr/bin/env python3
"""Splits the ObliQA questions that `../shared/eval/obliqa/build.py` wrote into the part the
team may tune on and the part it only reports, and derives follow-up items from each.

  python3 build.py . OBLIQA --split dev --n 3000   # corpus/, questions.jsonl (2,788), gold.json
  python3 scripts/obliqa-splits.py OBLIQA OUT

Questions are ordered by the SHA-1 of their id (independent of the file's order):
  OUT/heldout/  the first 400: reported; no threshold or rule is chosen on it
  OUT/fit/      the next 400: what thresholds and variants are chosen on
Each has q.jsonl (the inquire items) and gold.json for `obliqa/score.py`.

OUT/heldout-followups/ and OUT/fit-followups/ hold 120 two-turn items each whose second turn
refers back to the first, the way a compliance officer continues a conversation:
  - "Give me an overview of <file name>."  then  "According to it, <question>"
  - "<another question on the same document>"  then  "In that document, <question>"
Only questions whose gold passages lie in one document are used; the gold of the item is the
second question's. Scored with the same `obliqa/score.py` (the result of the last turn).

OUT/heldout-compare/ and OUT/fit-compare/ hold 80 compare items each: "Compare A and B on this:
<question>" over the question's gold document and another one, in random order; the gold is
the question's, so the score says whether the comparison cites the right page on its side.
Pure Python, deterministic.
"""
import collections
import hashlib
import json
import os
import random
import sys

SPLIT = 400
FOLLOWUPS = 120
COMPARES = 80


def write(out, items, gold):
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "q.jsonl"), "w") as f:
        for it in items:
            f.write(json.dumps(it) + "\n")
    with open(os.path.join(out, "gold.json"), "w") as f:
        json.dump({it["id"]: gold[it["id"]] for it in items}, f)


def followups(questions, gold):
    by_doc = collections.defaultdict(list)
    for q in questions:
        docs = {p["doc"] for p in gold[q["id"]]["passages"]}
        if len(docs) == 1:
            by_doc[docs.pop()].append(q)
    items, fu_gold = [], {}
    for doc, qs in sorted(by_doc.items()):
        for i, q in enumerate(qs):
            text = q["question"]
            if not text[:2].isupper():
                text = text[0].lower() + text[1:]
            if i % 2 == 0 and len(qs) > 1:
                first = qs[(i + 1) % len(qs)]["question"]
                turns = [
                    {"action": "inquire", "text": first},
                    {"action": "inquire", "text": "In that document, " + text},
                ]
            else:
                title = doc.rsplit(".", 1)[0]
                turns = [
                    {"action": "summarize", "text": f"Give me an overview of {title}."},
                    {"action": "inquire", "text": "According to it, " + text},
                ]
            iid = "fu-" + q["id"]
            items.append({"id": iid, "kind": "followup", "turns": turns, "docs": [], "gold": q["gold"]})
            fu_gold[iid] = gold[q["id"]]
    random.Random(7).shuffle(items)
    return items[:FOLLOWUPS], fu_gold


def compares(questions, gold):
    rnd = random.Random(3)
    docs = sorted({p["doc"] for g in gold.values() for p in g["passages"]})
    items, cmp_gold = [], {}
    for q in questions:
        own = {p["doc"] for p in gold[q["id"]]["passages"]}
        if len(own) != 1:
            continue
        a = own.pop()
        b = rnd.choice([x for x in docs if x != a])
        pair = [a, b] if rnd.random() < 0.5 else [b, a]
        iid = "cmp-" + q["id"]
        items.append({
            "id": iid, "kind": "compare", "docs": pair, "gold": q["gold"],
            "question": f"Compare {pair[0][:-4]} and {pair[1][:-4]} on this: {q['question']}",
        })
        cmp_gold[iid] = gold[q["id"]]
        if len(items) >= COMPARES:
            break
    return items, cmp_gold


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    src, out = sys.argv[1:3]
    questions = [json.loads(l) for l in open(os.path.join(src, "questions.jsonl"))]
    gold = json.load(open(os.path.join(src, "gold.json")))
    if len(questions) < 2 * SPLIT:
        sys.exit(f"need at least {2 * SPLIT} questions, {src} has {len(questions)}")
    questions.sort(key=lambda q: hashlib.sha1(q["id"].encode()).hexdigest())
    for name, part in [("heldout", questions[:SPLIT]), ("fit", questions[SPLIT : 2 * SPLIT])]:
        write(os.path.join(out, name), part, gold)
        items, fu_gold = followups(part, gold)
        write(os.path.join(out, name + "-followups"), items, fu_gold)
        pairs, cmp_gold = compares(part, gold)
        write(os.path.join(out, name + "-compare"), pairs, cmp_gold)
        print(f"{name}: {len(part)} questions, {len(items)} follow-ups, {len(pairs)} compares")


if __name__ == "__main__":
    main()
