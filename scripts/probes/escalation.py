#!/usr/bin/env python3
"""Writes probe 19's documents (README, "Unseen documents"): an incident severity and escalation
standard whose table reportlab's canvas draws column by column (each cell placed by position, the
first column top to bottom, then the next), a training and certification policy with a Word table
(LibreOffice prints it), and a visitor procedure in prose printed by WeasyPrint.
  python3 scripts/probes/escalation.py OUT   # writes OUT/*.pdf and OUT/*.docx
"""
import sys
from pathlib import Path

import docx
from reportlab.lib.pagesizes import A4
from reportlab.pdfgen import canvas
from weasyprint import HTML

SEVERITY = [
    ["Severity", "What it looks like", "Who is told", "First response"],
    ["1 - Critical", "Customer data leaves the company or a core service is down for everyone",
     "Chief Information Security Officer and the executive on call", "Within 15 minutes, day or night"],
    ["2 - High", "One business unit cannot work or malware spreads between machines",
     "Head of IT Operations", "Within one hour during business hours"],
    ["3 - Medium", "A single team is affected and a workaround exists", "The service owner",
     "Within one working day"],
    ["4 - Low", "A question or a cosmetic fault", "Nobody beyond the service desk",
     "Within five working days"],
]

SEVERITY_TEXT = {
    "before": [
        ("Incident Severity and Escalation Standard", 16),
        ("Owner: Information Security. Version 2.3, effective 1 February 2025.", 9),
        ("1. Scope", 12),
        ("This standard applies to every information security incident raised with the service desk,", 10),
        ("whoever raises it and whichever system it concerns.", 10),
        ("2. Severity levels", 12),
        ("The service desk assigns a severity when the incident is logged, using the table below.", 10),
    ],
    "after": [
        ("3. Raising the severity", 12),
        ("Any member of the incident team may raise the severity of an open incident. Only the", 10),
        ("Chief Information Security Officer may lower the severity of a Severity 1 incident.", 10),
        ("4. Closing an incident", 12),
        ("A Severity 1 or 2 incident is closed only after a written post-incident review, which is", 10),
        ("completed within ten working days of recovery and shared with the Risk Committee.", 10),
    ],
}


def severity_pdf(path: Path) -> None:
    c = canvas.Canvas(str(path), pagesize=A4)
    width, height = A4
    y = height - 60
    for text, size in SEVERITY_TEXT["before"]:
        c.setFont("Helvetica-Bold" if size >= 12 else "Helvetica", size)
        y -= size + 8 if size >= 12 else size + 4
        c.drawString(56, y, text)
    # The table: four columns, drawn one column at a time, each cell wrapped to its width.
    cols = [56, 136, 296, 436]
    widths = [78, 155, 135, 105]
    top = y - 24
    rows_h = [22, 44, 44, 32, 32]
    c.setFont("Helvetica", 9)

    def wrap(text: str, w: float) -> list[str]:
        lines, line = [], ""
        for word in text.split():
            cand = f"{line} {word}".strip()
            if c.stringWidth(cand, "Helvetica", 9) > w - 6:
                lines.append(line)
                line = word
            else:
                line = cand
        return lines + [line]

    for ci, x in enumerate(cols):
        ry = top
        for ri, row in enumerate(SEVERITY):
            c.setFont("Helvetica-Bold" if ri == 0 else "Helvetica", 9)
            for li, line in enumerate(wrap(row[ci], widths[ci])):
                c.drawString(x + 3, ry - 11 - 11 * li, line)
            ry -= rows_h[ri]
    # Grid lines: one under each row and the top edge, then the column edges.
    bottom = top - sum(rows_h)
    right = cols[-1] + widths[-1]
    ry = top
    c.line(cols[0], top, right, top)
    for h in rows_h:
        ry -= h
        c.line(cols[0], ry, right, ry)
    for x in cols + [right]:
        c.line(x, top, x, bottom)
    y = bottom - 10
    for text, size in SEVERITY_TEXT["after"]:
        c.setFont("Helvetica-Bold" if size >= 12 else "Helvetica", size)
        y -= size + 8 if size >= 12 else size + 4
        c.drawString(56, y, text)
    c.showPage()
    c.save()


TRAINING = [
    ["Who", "Course", "How often"],
    ["Every employee and contractor", "Security awareness, including phishing", "Every year"],
    ["Staff who handle payments or supplier bank details", "Fraud prevention", "Every two years"],
    ["Software developers", "Secure coding, before their first change reaches production", "Once, then every three years"],
    ["Managers of a team", "Handling a whistleblowing report", "Once, within three months of appointment"],
]


def training_docx(path: Path) -> None:
    d = docx.Document()
    d.add_heading("Training and Certification Policy", 0)
    d.add_paragraph("Owner: People and Culture. Approved by the Executive Committee in May 2025.")
    d.add_heading("1. Mandatory courses", 1)
    d.add_paragraph("The courses below are mandatory. They are taken on the learning platform and a pass mark of 80 per cent is needed.")
    table = d.add_table(rows=0, cols=3)
    table.style = "Table Grid"
    for row in TRAINING:
        cells = table.add_row().cells
        for cell, text in zip(cells, row):
            cell.text = text
    d.add_heading("2. Missing a deadline", 1)
    d.add_paragraph("A person whose mandatory course is more than 30 days overdue loses access to the systems the course covers until it is completed.")
    d.add_paragraph("Line managers receive a monthly report of overdue courses in their team.")
    d.add_heading("3. External certifications", 1)
    d.add_paragraph("The company pays for one professional certification a year per employee when the manager agrees it is relevant to the role.")
    d.add_paragraph("An employee who leaves within twelve months of a paid certification repays half of its cost.")
    d.save(path)


VISITORS = """<html><head><style>
body { font-family: 'DejaVu Sans', sans-serif; font-size: 10.5pt; margin: 1.5cm; }
h1 { font-size: 17pt; } h2 { font-size: 12pt; margin-top: 1.2em; }
</style></head><body>
<h1>Visitor Management Procedure</h1>
<p>Owner: Facilities. Issued September 2024.</p>
<h2>1. Before the visit</h2>
<p>1.1 The host registers every visitor in the visitor system at least one working day before the visit.</p>
<p>1.2 Visitors who will enter the data centre are also approved by the data centre manager.</p>
<h2>2. Arrival</h2>
<p>2.1 Visitors sign in at the main reception and show photographic identification.</p>
<p>2.2 Reception issues a red visitor badge, which is valid for the day of issue only and is returned when the visitor leaves.</p>
<h2>3. During the visit</h2>
<p>3.1 A visitor is accompanied by the host at all times outside the reception area and the meeting rooms on the ground floor.</p>
<p>3.2 Visitors may use their own laptops on the guest wireless network but may not connect any device to the office network.</p>
<p>3.3 Photographs and video recordings inside the building require the written permission of Facilities.</p>
<h2>4. Records</h2>
<p>4.1 The visitor log is kept for twelve months and then deleted.</p>
</body></html>"""


def main() -> None:
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    severity_pdf(out / "incident-severity-standard.pdf")
    training_docx(out / "training-policy.docx")
    HTML(string=VISITORS).write_pdf(out / "visitor-procedure.pdf")


if __name__ == "__main__":
    main()
