"""Writes the licence texts of probe 52 from the npm package spdx-license-list.

usage: licences52.py SPDX_FULL_JSON OUT

OUT gets, for the typesetters corpus.sh runs:
PolyForm-Small-Business-1.0.0.md and Hippocratic-2.1.md (the texts are Markdown already;
pandoc to LaTeX, and pandoc to ms for groff),
OGL-UK-3.0.html (one paragraph per line, its short title lines as headings; LibreOffice's web
export),
NASA-1.3.html (one paragraph per blank-line-separated block; WeasyPrint in two columns) and
RPL-1.5.pdf (drawn here with fpdf2, one cell per block, a page number in each footer).
"""

import html
import json
import sys

from fpdf import FPDF

from licences49 import blocks, paragraphs_page


def ogl(text: str) -> str:
    """OGL's lines as HTML: a line of at most six words without a full stop is a heading."""
    out = []
    for line in text.split("\n"):
        line = line.strip()
        if not line:
            continue
        short = len(line.split()) <= 6 and not line.endswith((".", ";", ":"))
        tag = "h2" if short else "p"
        out.append(f"<{tag}>{html.escape(line)}</{tag}>")
    return (
        '<html><head><meta charset="utf-8"><title>Open Government Licence v3.0</title></head><body>'
        + "\n".join(out)
        + "</body></html>"
    )


class Footed(FPDF):
    def footer(self) -> None:
        self.set_y(-15)
        self.set_font("Helvetica", size=8)
        self.cell(0, 10, f"RPL 1.5 - page {self.page_no()}", align="C")


def rpl(text: str, path: str) -> None:
    pdf = Footed(format="A4")
    pdf.set_margins(22, 20, 22)
    pdf.set_auto_page_break(True, 20)
    pdf.add_page()
    for block in blocks(text):
        latin = block.encode("latin-1", "replace").decode("latin-1")
        pdf.set_font("Helvetica", style="B" if len(latin) < 60 else "", size=10)
        pdf.multi_cell(0, 5, latin)
        pdf.ln(2)
    pdf.output(path)


def main() -> None:
    full, out = sys.argv[1], sys.argv[2]
    with open(full, encoding="utf-8") as f:
        texts = {k: v["licenseText"] for k, v in json.load(f).items()}
    for name in ("PolyForm-Small-Business-1.0.0", "Hippocratic-2.1"):
        with open(f"{out}/{name}.md", "w", encoding="utf-8") as f:
            f.write(texts[name])
    with open(f"{out}/OGL-UK-3.0.html", "w", encoding="utf-8") as f:
        f.write(ogl(texts["OGL-UK-3.0"]))
    with open(f"{out}/NASA-1.3.html", "w", encoding="utf-8") as f:
        f.write(paragraphs_page("NASA Open Source Agreement 1.3", texts["NASA-1.3"]))
    rpl(texts["RPL-1.5"], f"{out}/RPL-1.5.pdf")


if __name__ == "__main__":
    main()
