"""Writes the licence texts of probe 49 from the npm package spdx-license-list.

usage: licences49.py SPDX_FULL_JSON OUT

OUT gets, for the typesetters corpus.sh runs:
CAL-1.0.md (the text is Markdown already; pandoc to HTML, wkhtmltopdf),
LPPL-1.3c.typ (Typst: its underlined lines become headings, its paragraphs paragraphs),
SSPL-1.0.html (WeasyPrint: one paragraph per blank-line-separated block),
CC-BY-SA-4.0.docx (python-docx, one paragraph per line; LibreOffice),
CECILL-2.1.docx (python-docx, "Article N - ..." lines as headings; LibreOffice) and
Artistic-2.0.txt (folded plain text for enscript).
"""

import html
import json
import re
import sys
import textwrap

import docx


def blocks(text: str) -> list[str]:
    """The text's blank-line-separated blocks, each joined into one line."""
    out = []
    for block in re.split(r"\n\s*\n", text):
        line = " ".join(part.strip() for part in block.split("\n") if part.strip())
        if line:
            out.append(line)
    return out


def paragraphs_page(title: str, text: str) -> str:
    """An HTML page of the text's blocks ([`blocks`]), one paragraph each."""
    body = "".join(f"<p>{html.escape(b)}</p>\n" for b in blocks(text))
    return (
        f'<html><head><meta charset="utf-8"><title>{title}</title></head>'
        f"<body>{body}</body></html>"
    )


def typst_escape(line: str) -> str:
    return re.sub(r"([\\#*_`$<>@\[\]=~/-])", r"\\\1", line)


def lppl(text: str) -> str:
    lines = text.split("\n")
    out = ['#set page(paper: "a4", margin: 2.2cm, numbering: "1")', "#set text(size: 10.5pt)", ""]
    para: list[str] = []

    def flush() -> None:
        if para:
            out.append(typst_escape(" ".join(para)))
            out.append("")
            para.clear()

    i = 0
    while i < len(lines):
        line = lines[i].strip()
        under = lines[i + 1].strip() if i + 1 < len(lines) else ""
        if line and under and set(under) <= set("=-") and len(under) >= 3:
            flush()
            level = "=" if under[0] == "=" else "=="
            out.append(f"{level} {typst_escape(line)}")
            out.append("")
            i += 2
            continue
        if not line:
            flush()
        else:
            para.append(line)
        i += 1
    flush()
    return "\n".join(out)


def main() -> None:
    full, out = sys.argv[1], sys.argv[2]
    with open(full, encoding="utf-8") as f:
        texts = {k: v["licenseText"] for k, v in json.load(f).items()}
    with open(f"{out}/CAL-1.0.md", "w", encoding="utf-8") as f:
        f.write(texts["CAL-1.0"])
    with open(f"{out}/LPPL-1.3c.typ", "w", encoding="utf-8") as f:
        f.write(lppl(texts["LPPL-1.3c"]))
    with open(f"{out}/SSPL-1.0.html", "w", encoding="utf-8") as f:
        f.write(paragraphs_page("Server Side Public License", texts["SSPL-1.0"]))
    d = docx.Document()
    for line in texts["CC-BY-SA-4.0"].split("\n"):
        if line.strip():
            d.add_paragraph(line.strip())
    d.save(f"{out}/CC-BY-SA-4.0.docx")
    d = docx.Document()
    for b in blocks(texts["CECILL-2.1"]):
        if re.match(r"Article \d+ - ", b):
            d.add_heading(b, level=1)
        else:
            d.add_paragraph(b)
    d.save(f"{out}/CECILL-2.1.docx")
    folded = "\n".join(
        "\n".join(textwrap.wrap(line, 90)) if line.strip() else ""
        for line in texts["Artistic-2.0"].split("\n")
    )
    with open(f"{out}/Artistic-2.0.txt", "w", encoding="latin-1", errors="replace") as f:
        f.write(folded + "\n")


if __name__ == "__main__":
    main()
