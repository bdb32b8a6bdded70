#!/usr/bin/env python3
"""Fits a sentence scorer for extractive answers on ObliQA and measures it against the hand-set
score the app uses (`extractive::score` in src/agent/rules/extractive.rs).

  policypal --data-dir D eval Q.jsonl --corpus C --out R.jsonl --signals S.jsonl
  python3 scripts/fit-scorer.py S.jsonl GOLD.json [--write WEIGHTS.json]

The app keeps its hand-set score until fitted weights beat it on the held-out half; the first
fit (400 questions, 2026-11-25) did not (hit@1 0.64-0.66 against 0.675), see the README.

S.jsonl has, per inquire item, every candidate sentence the extractive answer chooses from with
the signals the scorer sees (`extractive::Signals`, in `FEATURES` order). A candidate is a
positive example when it lies on a gold page and most of its words are in a gold passage.

Questions are split by a hash of their id: half fit the weights, the
other half only measure them, next to the hand-set formula the weights replace. The script
prints both on the held-out half: the share of questions whose best-scored sentence (hit@1), or
one of the best three on distinct pages (hit@3), lies on a gold page. Pure Python, no packages.
"""
import hashlib
import json
import math
import re
import sys

FEATURES = ["overlap", "heading", "rank", "vector", "similarity", "short", "long"]


def words(t):
    return set(re.findall(r"[a-z0-9]+", t.lower()))


def held_out(qid):
    return hashlib.sha1(qid.encode()).digest()[0] % 2 == 1


def load(signals_path, gold_path):
    gold = json.load(open(gold_path))
    items = []
    for line in open(signals_path):
        if not line.strip():
            continue
        o = json.loads(line)
        g = gold.get(o["id"])
        if not g:
            continue
        pages = {(p["doc"], pg) for p in g["passages"] for pg in p["pages"]}
        passages = [words(p["text"]) for p in g["passages"]]
        rows = []
        for c in o["candidates"]:
            w = words(c["text"])
            on_page = (c["doc"], c["page"]) in pages
            inside = bool(w) and max(len(w & p) / len(w) for p in passages) >= 0.8
            rows.append(([c["signals"][f] for f in FEATURES], on_page and inside, (c["doc"], c["page"])))
        items.append((o["id"], rows, pages))
    return items


def sigmoid(z):
    return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))


def fit(items, epochs=1500, rate=3.0, l2=1e-4):
    """Listwise logistic fit: per question, a softmax over its candidates' scores should put its
    mass on the positives (the question's own ranking is what matters, not calibration across
    questions). Questions without a positive candidate carry no signal and are skipped."""
    n = len(FEATURES)
    w = [0.0] * n
    lists = [[(x, y) for x, y, _ in rows] for _, rows, _ in items if any(y for _, y, _ in rows)]
    for _ in range(epochs):
        gw = [0.0] * n
        for rows in lists:
            z = [sum(wi * xi for wi, xi in zip(w, x)) for x, _ in rows]
            m = max(z)
            e = [math.exp(v - m) for v in z]
            s = sum(e)
            pos = sum(1 for _, y in rows if y)
            for (x, y), ei in zip(rows, e):
                d = ei / s - (1.0 / pos if y else 0.0)
                for i in range(n):
                    gw[i] += d * x[i]
        for i in range(n):
            w[i] -= rate * (gw[i] / len(lists) + l2 * w[i])
    return w


def calibrate(rows, w, epochs=300, rate=0.5):
    """The bias that turns the ranking scores into probabilities (one-dimensional logistic fit
    on the fitted scores), so that scores of different questions are comparable."""
    b = 0.0
    for _ in range(epochs):
        g = 0.0
        for x, y in rows:
            p = sigmoid(b + sum(wi * xi for wi, xi in zip(w, x)))
            g += p - (1.0 if y else 0.0)
        b -= rate * g / len(rows)
    return b


def hand_set(x):
    f = dict(zip(FEATURES, x))
    length = 0.7 if f["short"] else 0.8 if f["long"] else 1.0
    return (0.8 * f["overlap"] + 0.2 * f["rank"]) * length


def measure(items, score):
    hit1 = hit3 = n = 0
    for _, rows, pages in items:
        if not rows:
            n += 1
            continue
        ranked = sorted(rows, key=lambda r: -score(r[0]))
        seen = []
        for _, _, page in ranked:
            if page not in seen:
                seen.append(page)
        hit1 += seen[0] in pages
        hit3 += any(p in pages for p in seen[:3])
        n += 1
    return round(hit1 / n, 3), round(hit3 / n, 3), n


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        sys.exit(2)
    items = load(sys.argv[1], sys.argv[2])
    fit_items = [i for i in items if not held_out(i[0])]
    test_items = [i for i in items if held_out(i[0])]
    rows = [(x, y) for _, r, _ in fit_items for x, y, _ in r]
    w = fit(fit_items)
    b = calibrate(rows, w)
    learned = lambda x: b + sum(wi * xi for wi, xi in zip(w, x))
    report = {
        "fit_questions": len(fit_items),
        "held_out_questions": len(test_items),
        "fit_sentences": len(rows),
        "held_out_hand_set_hit@1,3": measure(test_items, hand_set)[:2],
        "held_out_learned_hit@1,3": measure(test_items, learned)[:2],
        "fit_learned_hit@1,3": measure(fit_items, learned)[:2],
    }
    print(json.dumps(report))
    weights = {"bias": round(b, 4), **{f: round(wi, 4) for f, wi in zip(FEATURES, w)}}
    print(json.dumps(weights))
    if "--write" in sys.argv:
        path = sys.argv[sys.argv.index("--write") + 1]
        with open(path, "w") as f:
            json.dump(
                {
                    "about": "Weights of a sentence scorer fitted by scripts/fit-scorer.py on the ObliQA "
                    "dev split (half of the questions, by id hash); see the script.",
                    "weights": weights,
                },
                f,
                indent=2,
            )
            f.write("\n")


if __name__ == "__main__":
    main()
