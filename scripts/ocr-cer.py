#!/usr/bin/env python3
"""Character error rate of OCR against the original text layer.

Usage: scripts/ocr-cer.py TEXT_DATA_DIR SCAN_DATA_DIR [--profile NAME]

TEXT_DATA_DIR holds the original PDFs ingested (text layer); SCAN_DATA_DIR the same files
rasterised to image-only PDFs (e.g. `gs -sDEVICE=pdfimage8 -r300`) and ingested with OCR.
Documents are matched by file name, pages by number. Both texts are the stored, cleaned page
texts with whitespace runs collapsed to one space; CER = edit distance / reference length,
summed over pages. Also reports the OCR'd pages' mean confidence. Prints JSON.

Uses the `Levenshtein` module (PyPI `levenshtein`) when installed, a plain dynamic program
otherwise (correct, slow).
"""
import json
import sqlite3
import sys

try:
    from Levenshtein import distance
except ImportError:  # pragma: no cover - the slow path
    def distance(a, b):
        prev = list(range(len(b) + 1))
        for i, ca in enumerate(a, 1):
            cur = [i]
            for j, cb in enumerate(b, 1):
                cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
            prev = cur
        return prev[-1]


def pages(data_dir, profile):
    db = sqlite3.connect(f"file:{data_dir}/policypal.sqlite3?mode=ro", uri=True)
    # A library from before OCR has no confidence column.
    columns = {r[1] for r in db.execute("PRAGMA table_info(pages)")}
    confidence = "p.ocr_confidence" if "ocr_confidence" in columns else "NULL"
    rows = db.execute(
        f"SELECT d.file_name, p.page, p.text, p.extractor, {confidence} "
        "FROM pages p JOIN documents d ON d.id = p.document_id "
        "JOIN profiles r ON r.id = p.profile_id WHERE r.name = ?",
        (profile,),
    ).fetchall()
    return {(f, n): (t, e, c) for f, n, t, e, c in rows}


def norm(s):
    return " ".join(s.split())


def main():
    args = sys.argv[1:]
    profile = "eval"
    if "--profile" in args:
        i = args.index("--profile")
        profile = args[i + 1]
        del args[i : i + 2]
    if len(args) != 2:
        sys.exit(__doc__)
    text, scan = pages(args[0], profile), pages(args[1], profile)
    per_doc = {}
    for key, (ocr_text, extractor, conf) in scan.items():
        if extractor != "ocr" or key not in text:
            continue
        ref = norm(text[key][0])
        if not ref:
            continue
        d = per_doc.setdefault(key[0], {"pages": 0, "errors": 0, "chars": 0, "confidence": 0.0})
        d["pages"] += 1
        d["errors"] += distance(ref, norm(ocr_text))
        d["chars"] += len(ref)
        d["confidence"] += conf or 0.0
    total = {k: sum(d[k] for d in per_doc.values()) for k in ("pages", "errors", "chars", "confidence")}
    out = {
        "pages": total["pages"],
        "cer": round(total["errors"] / max(total["chars"], 1), 4),
        "mean_confidence": round(total["confidence"] / max(total["pages"], 1), 1),
        "documents": {
            f: {"pages": d["pages"], "cer": round(d["errors"] / max(d["chars"], 1), 4)}
            for f, d in sorted(per_doc.items())
        },
        "scanned_pages_not_ocrd": sum(1 for (t, e, _) in scan.values() if e != "ocr"),
    }
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
