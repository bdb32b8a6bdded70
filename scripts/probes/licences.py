"""Writes the licence texts of probes 29 and 30 from the npm package spdx-license-list.

usage: licences.py SPDX_FULL_JSON OUT

OUT gets, for LibreOffice, WeasyPrint, pandoc and enscript to typeset (see corpus.sh):
EPL-1.0.txt, EPL-2.0.txt and APSL-2.0.txt (plain text), CDDL-1.0.html, EUPL-1.2.html,
CC-BY-4.0.html, Elastic-2.0.html, BUSL-1.1.html and OSL-3.0.html (one paragraph per
line of the text) and ODbL-1.0.md (the text is Markdown already).
"""

import html
import json
import sys

TITLES = {
    "CDDL-1.0": "CDDL 1.0",
    "EUPL-1.2": "EUPL 1.2",
    "CC-BY-4.0": "CC BY 4.0",
    "Elastic-2.0": "Elastic License 2.0",
    "BUSL-1.1": "Business Source License 1.1",
    "OSL-3.0": "OSL 3.0",
}


def main() -> None:
    full, out = sys.argv[1], sys.argv[2]
    with open(full, encoding="utf-8") as f:
        texts = {k: v["licenseText"] for k, v in json.load(f).items()}
    for key in ("EPL-1.0", "EPL-2.0", "APSL-2.0"):
        with open(f"{out}/{key}.txt", "w", encoding="utf-8") as f:
            f.write(texts[key])
    with open(f"{out}/ODbL-1.0.md", "w", encoding="utf-8") as f:
        f.write(texts["ODbL-1.0"])
    for key, title in TITLES.items():
        lines = [line.strip() for line in texts[key].split("\n") if line.strip()]
        body = "".join(f"<p>{html.escape(line)}</p>\n" for line in lines)
        with open(f"{out}/{key}.html", "w", encoding="utf-8") as f:
            f.write(
                f'<html><head><meta charset="utf-8"><title>{title}</title></head>'
                f"<body>{body}</body></html>"
            )


if __name__ == "__main__":
    main()
