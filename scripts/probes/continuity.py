#!/usr/bin/env python3
"""Writes probe 16's documents (README, "Unseen documents"): a building society's conflicts of
interest policy with a table of who approves what, and two versions of its business continuity
standard, typeset with reportlab's Platypus (numbered clauses, running header, "Page N" footer).
  python3 scripts/probes/continuity.py OUT   # writes OUT/*.pdf
"""
import sys
from pathlib import Path

from reportlab.lib import colors
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import getSampleStyleSheet
from reportlab.lib.units import cm
from reportlab.platypus import Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle

COI = [
    ("1 Purpose and scope", [
        "1.1 This policy sets out how Harbourline Building Society identifies, records and manages conflicts of interest.",
        "1.2 It applies to all employees, to non-executive directors and to contractors engaged for more than three months.",
    ]),
    ("2 What a conflict is", [
        "2.1 A conflict of interest arises when a person's private interests could influence, or could appear to influence, the way they carry out their duties for the Society.",
        "2.2 Private interests include those of family members, close personal friends and any business in which the person holds shares or a role.",
    ]),
    ("3 Declaring interests", [
        "3.1 Every employee completes the annual declaration of interests by 31 January.",
        "3.2 A new conflict is declared to the line manager and to Compliance within five working days of the employee becoming aware of it.",
        "3.3 A declaration that nothing has changed is still made; a blank declaration is not accepted.",
    ]),
    ("4 Outside roles", [
        "4.1 Employees need the written consent of the Head of People before taking up any paid outside employment or any directorship.",
        "4.2 Unpaid roles with registered charities do not need consent, but they are declared.",
        "4.3 Non-executive directors declare new appointments to the Company Secretary before accepting them.",
    ]),
    ("5 Personal relationships", [
        "5.1 An employee does not approve, review or otherwise influence a decision on a loan, a payment or a hire that involves a family member or a close personal friend.",
        "5.2 Where a family member becomes a direct report of a manager, the reporting line is changed within one month.",
    ]),
    ("6 Managing a declared conflict", [
        "6.1 Each declared conflict is given a level, and the mitigation is approved as the table below shows.",
    ]),
]

COI_TABLE = [
    ["Level", "Example", "Mitigation approved by"],
    ["Low", "A supplier offers a gift worth under 50 pounds", "Line manager"],
    ["Medium", "An employee holds an outside directorship", "Head of People"],
    ["High", "A family member applies for a mortgage that the employee's team handles", "Chief Risk Officer"],
]

COI_AFTER = [
    ("7 The conflicts register", [
        "7.1 Compliance keeps the conflicts register, which records every declared conflict, its level and the mitigation agreed.",
        "7.2 Entries are kept for seven years after the conflict ends.",
        "7.3 The Board Risk Committee reviews the register every six months.",
    ]),
    ("8 Breaches", [
        "8.1 Failing to declare a conflict is a disciplinary matter and may lead to dismissal.",
        "8.2 Compliance reports every breach of this policy to the Board Risk Committee at its next meeting.",
    ]),
]

BCS = {
    "2023": [
        ("1 Scope", [
            "1.1 This standard applies to every critical business service of Harbourline Building Society: savings withdrawals, mortgage payments, branch counters and the contact centre.",
        ]),
        ("2 Recovery", [
            "2.1 Critical business services are restored within 4 hours of an invocation of the continuity plan.",
            "2.2 Member data is restored to a point no more than 24 hours before the disruption.",
        ]),
        ("3 Invocation and people", [
            "3.1 Any member of the Crisis Management Team may invoke the continuity plan.",
            "3.2 The call tree is kept on paper at each branch.",
            "3.3 Branch staff who cannot reach their branch work from the nearest open branch.",
        ]),
        ("4 Testing and review", [
            "4.1 The continuity plan is tested once a year.",
            "4.2 The Business Continuity Manager reviews the plan every 12 months and after every invocation.",
        ]),
    ],
    "2025": [
        ("1 Scope", [
            "1.1 This standard applies to every critical business service of Harbourline Building Society: savings withdrawals, mortgage payments, branch counters and the contact centre.",
        ]),
        ("2 Recovery", [
            "2.1 Critical business services are restored within 2 hours of an invocation of the continuity plan.",
            "2.2 Member data is restored to a point no more than 24 hours before the disruption.",
        ]),
        ("3 Invocation and people", [
            "3.1 Any member of the Crisis Management Team may invoke the continuity plan.",
            "3.2 The call tree is kept in the Alert app and on paper at each branch.",
            "3.3 Branch staff who cannot reach their branch work from home where their role allows, or else from the nearest open branch.",
        ]),
        ("4 Testing and review", [
            "4.1 The continuity plan is tested twice a year; one of the two tests is a full failover to the second data centre.",
            "4.2 The Business Continuity Manager reviews the plan every 12 months and after every invocation.",
        ]),
        ("5 Critical suppliers", [
            "5.1 Every supplier that supports a critical business service provides evidence of its own continuity testing each year.",
        ]),
    ],
}


def build(path, title, subtitle, sections, table=None, after=()):
    styles = getSampleStyleSheet()
    body = styles["BodyText"]
    story = [Paragraph(title, styles["Title"]), Paragraph(subtitle, body), Spacer(1, 0.4 * cm)]

    def add(secs):
        for head, paras in secs:
            story.append(Paragraph(head, styles["Heading2"]))
            for p in paras:
                story.append(Paragraph(p, body))

    add(sections)
    if table:
        cells = [[Paragraph(c, body) for c in row] for row in table]
        t = Table(cells, colWidths=[2.5 * cm, 8.5 * cm, 4.5 * cm])
        t.setStyle(TableStyle([
            ("GRID", (0, 0), (-1, -1), 0.5, colors.grey),
            ("VALIGN", (0, 0), (-1, -1), "TOP"),
            ("FONTNAME", (0, 0), (-1, 0), "Helvetica-Bold"),
        ]))
        story += [Spacer(1, 0.3 * cm), t, Spacer(1, 0.3 * cm)]
    add(after)

    def furniture(canvas, doc):
        canvas.saveState()
        canvas.setFont("Helvetica", 8)
        canvas.drawString(2 * cm, A4[1] - 1.2 * cm, f"Harbourline Building Society - {title}")
        canvas.drawRightString(A4[0] - 2 * cm, 1.2 * cm, f"Page {doc.page}")
        canvas.restoreState()

    SimpleDocTemplate(str(path), pagesize=A4, title=title).build(
        story, onFirstPage=furniture, onLaterPages=furniture)


def main():
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    build(out / "conflicts-of-interest-policy.pdf", "Conflicts of Interest Policy",
          "Owner: Compliance. Approved by the Board, February 2026.", COI, COI_TABLE, COI_AFTER)
    for year, secs in BCS.items():
        build(out / f"business-continuity-standard-{year}.pdf",
              f"Business Continuity Standard {year}",
              f"Owner: Business Continuity Manager. Version {year}.", secs)


if __name__ == "__main__":
    main()
