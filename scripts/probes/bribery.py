#!/usr/bin/env python3
"""Writes probe 15's documents (README, "Unseen documents"): an anti-bribery and corruption
policy written in the present tense with lettered lists, and a delegation of authority matrix
kept as a Word table with wrapped cells (Word files; LibreOffice turns them into PDF).
  python3 scripts/probes/bribery.py OUT   # writes OUT/*.docx
"""
import sys
from pathlib import Path

import docx
from docx.enum.section import WD_ORIENT
from docx.shared import Cm

ABC = [
    ("1. Our position", [
        "Brightwater Energy plc does not offer, give, request or accept bribes in any form, whether directly or through anyone acting for us. This applies to dealings with public officials and with private companies alike.",
        "A breach of this policy is gross misconduct and may lead to dismissal. Contractors who breach it have their contracts ended.",
    ]),
    ("2. Facilitation payments", [
        "Facilitation payments are small unofficial payments made to speed up a routine government action, such as issuing a permit or clearing goods through customs. They are prohibited, even where they are customary in the country concerned.",
        "The only exception is a payment demanded under threat to a person's safety or liberty. Such a payment is reported to the Legal Director within 24 hours and recorded in the payments log.",
    ]),
    ("3. Gifts and hospitality", [
        "Employees may give or accept gifts and hospitality that are modest, infrequent and given openly. Anything worth more than 100 pounds is approved in advance by the employee's director and entered in the gifts register.",
        "Gifts or hospitality for public officials always need the prior approval of the Compliance Manager, whatever their value.",
        "Cash and cash equivalents, such as vouchers or prepaid cards, are never given or accepted.",
    ]),
    ("4. Third parties", [
        "Before an agent, distributor or joint-venture partner is appointed, the Compliance team carries out risk-based due diligence, which covers: (a) the ownership of the third party and any links to public officials; (b) its reputation, checked in adverse media; (c) the reason for using it and whether its fee is in line with the market.",
        "Every agreement with such a third party contains anti-bribery clauses and a right to end the agreement if the third party breaches them.",
        "Agents' commissions are paid only into a bank account in the agent's own name, in the country where the agent works.",
    ]),
    ("5. Political and charitable donations", [
        "Brightwater Energy does not make political donations.",
        "Charitable donations are approved by the Corporate Affairs Director and published on our website every year.",
    ]),
    ("6. Records", [
        "All payments to third parties are recorded accurately in the accounts, with supporting invoices. The gifts register and the due diligence files are kept for seven years.",
    ]),
    ("7. Speaking up", [
        "Anyone who suspects bribery reports it to their manager, to the Legal Director or through the confidential Speak Up line. Reports can be made anonymously. We do not tolerate retaliation against anyone who raises a concern in good faith.",
    ]),
    ("8. Training and review", [
        "All employees complete anti-bribery training when they join and every two years after that. Employees in sales, procurement and government relations complete it every year.",
        "The Compliance Manager reviews this policy every year and reports to the Audit Committee.",
    ]),
]

MATRIX = [
    ("Decision", "Up to 50,000 pounds", "50,000 to 500,000 pounds", "Above 500,000 pounds", "Notes"),
    ("Capital expenditure", "Site manager", "Regional director", "Chief Financial Officer", "Above 5,000,000 pounds also needs Board approval."),
    ("Supplier contracts", "Procurement manager", "Head of Procurement", "Chief Operating Officer", "Contracts longer than three years need Legal review."),
    ("Agent or distributor appointment", "Not delegated", "Not delegated", "Chief Executive Officer", "Always after Compliance due diligence."),
    ("Charitable donations", "Corporate Affairs Director", "Corporate Affairs Director", "Chief Executive Officer", "Never to political parties."),
    ("Write-off of customer debt", "Credit controller", "Finance director", "Chief Financial Officer", "Reported to the Audit Committee each quarter."),
]


def main():
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    d = docx.Document()
    d.add_heading("Anti-Bribery and Corruption Policy", level=1)
    d.add_paragraph("Brightwater Energy plc. Owner: Legal Director. Approved by the Board, March 2026.")
    for heading, paragraphs in ABC:
        d.add_heading(heading, level=2)
        for p in paragraphs:
            d.add_paragraph(p)
    d.save(out / "anti-bribery-policy.docx")

    m = docx.Document()
    section = m.sections[0]
    section.orientation = WD_ORIENT.LANDSCAPE
    section.page_width, section.page_height = section.page_height, section.page_width
    m.add_heading("Delegation of Authority Matrix", level=1)
    m.add_paragraph("Brightwater Energy plc, 2026. Who may approve each decision, by the value involved.")
    table = m.add_table(rows=0, cols=len(MATRIX[0]))
    table.style = "Table Grid"
    for row in MATRIX:
        cells = table.add_row().cells
        for cell, text in zip(cells, row):
            cell.text = text
    for row in table.rows:
        for cell, width in zip(row.cells, (5, 4, 4, 4, 7)):
            cell.width = Cm(width)
    m.add_paragraph("A decision is approved by the holder of the role shown, or by anyone above that role. Approvals are recorded in the finance system before the commitment is made.")
    m.save(out / "delegation-of-authority.docx")


if __name__ == "__main__":
    main()
