#!/usr/bin/env python3
"""Synthetic audit items over the ObliQA rulebooks, for audit recall and false alarms on
regulations nobody wrote the audit rules for.

  python3 scripts/obliqa-audits.py make OBLIQA/corpus OUT        # OUT/{fit,heldout}/q.jsonl
  policypal --data-dir D eval OUT/fit/q.jsonl --corpus OBLIQA/corpus --out r.jsonl
  python3 scripts/obliqa-audits.py score OUT/fit/q.jsonl r.jsonl

Each item audits a four-sentence text against one rulebook. The sentences are the rulebook's
own rules (a sentence opening "A/An/The/Each/Every/Where/If …" with "must"/"shall") turned into
statements of a policy: three restate their rule ("must" -> "will", "must not" -> "will not":
compliant), one says the opposite ("must" -> "will not", "must not" -> "will"). Recall is the
share of items whose opposite statement gets a finding; a false alarm is a finding on a
compliant statement. Rulebooks with an even number are the fit part, odd ones held out.
Needs pdftotext (poppler-utils). Deterministic.
"""
import collections
import glob
import json
import os
import random
import re
import subprocess
import sys

MODAL = re.compile(r"\b(must|shall)(\s+not)?\b")
OPENING = re.compile(r"^(An?|The|Each|Every|Where|If)\b")
PER_DOCUMENT = 4


def will(m, flip):
    negated = bool(m.group(2))
    return "will" if negated == flip else "will not"


def pages(pdf):
    out = subprocess.run(["pdftotext", "-layout", pdf, "-"], capture_output=True, text=True, check=True)
    return out.stdout.split("\f")


def rules(pdf):
    found = []
    for page, text in enumerate(pages(pdf), 1):
        flat = re.sub(r"\s+", " ", text)
        for s in re.split(r"(?<=[.;])\s+(?=[A-Z(])", flat):
            s = s.strip()
            m = MODAL.search(s)
            if (m and 60 < len(s) < 260 and s.endswith(".") and "?" not in s
                    and s.count("(") <= 3 and OPENING.match(s)):
                found.append((page, s, m))
    return found


def make(corpus, out):
    rnd = random.Random(5)
    parts = collections.defaultdict(list)
    for pdf in sorted(glob.glob(os.path.join(corpus, "*.pdf"))):
        doc = os.path.basename(pdf)
        number = int(re.findall(r"\d+", doc)[0])
        found = rules(pdf)
        if len(found) < 2 * PER_DOCUMENT:
            continue
        rnd.shuffle(found)
        for k in range(min(PER_DOCUMENT, len(found) // 4)):
            group = found[4 * k: 4 * k + 4]
            page, s, m = group[0]
            bad = s[: m.start()] + will(m, True) + s[m.end():]
            good = [MODAL.sub(lambda mm: will(mm, False), x, count=1) for _, x, _ in group[1:]]
            statements = [bad] + good
            rnd.shuffle(statements)
            parts["fit" if number % 2 == 0 else "heldout"].append({
                "id": f"aud-{doc[:-4]}-{k}", "kind": "audit",
                "question": f"Audit this policy against {doc[:-4]}.", "docs": [doc],
                "text": " ".join(statements),
                "gold": {"bad": bad, "bad_page": page, "good": good},
            })
    for part, items in parts.items():
        os.makedirs(os.path.join(out, part), exist_ok=True)
        with open(os.path.join(out, part, "q.jsonl"), "w") as f:
            for it in items:
                f.write(json.dumps(it) + "\n")
        print(part, len(items), "items")


def norm(s):
    return re.sub(r"\s+", " ", s).strip()


def score(questions, results):
    gold = {json.loads(l)["id"]: json.loads(l)["gold"] for l in open(questions)}
    found = items = alarms = compliant = 0
    for line in open(results):
        r = json.loads(line)
        g = gold[r["id"]]
        sources = [norm(s) for s in re.findall(r"- Source: “(.*?)”\n", r["answer"], re.S)]
        hit = lambda x: any(norm(x) in s or (s and s in norm(x)) for s in sources)
        items += 1
        found += hit(g["bad"])
        for x in g["good"]:
            compliant += 1
            alarms += hit(x)
    print(json.dumps({"items": items, "recall": round(found / max(items, 1), 3),
                      "false_alarms": round(alarms / max(compliant, 1), 3),
                      "found": found, "alarms": alarms, "compliant": compliant}))


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "make":
        make(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 4 and sys.argv[1] == "score":
        score(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)
