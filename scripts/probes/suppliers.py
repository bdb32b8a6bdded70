#!/usr/bin/env python3
"""Writes probe 14's documents (README, "Unseen documents") with fpdf2, a PDF library that
places every line itself (no word processor, no typesetter): a third-party risk management
policy with a running header and page numbers, and an information classification guideline
whose handling rules sit in a table.
  python3 scripts/probes/suppliers.py OUT   # writes OUT/*.pdf (needs the fpdf2 package)
"""
import sys
from pathlib import Path

from fpdf import FPDF

FIRM = "Halvard Mutual Insurance"

THIRD_PARTY = [
    ("1 Purpose", [
        "This policy sets the minimum requirements for selecting, contracting and overseeing suppliers and other third parties that provide services to Halvard Mutual Insurance. It supports the Board's risk appetite for operational resilience and data protection.",
    ]),
    ("2 Tiering", [
        "2.1 Every third party is assigned a tier before a contract is signed. Tier 1 covers suppliers of critical or important functions, Tier 2 covers suppliers with access to customer data, and Tier 3 covers all other suppliers.",
        "2.2 The business owner of the relationship proposes the tier and the Third-Party Risk team confirms it.",
    ]),
    ("3 Due diligence", [
        "3.1 Due diligence is completed before any contract is signed and before any data is shared with the third party.",
        "3.2 For Tier 1 suppliers due diligence includes a review of the supplier's financial statements for the last three years, its business continuity plan and an on-site or remote assessment of its security controls.",
        "3.3 A supplier that will process personal data completes the data protection questionnaire, and the Data Protection Officer reviews the answers.",
    ]),
    ("4 Contracts", [
        "4.1 Contracts with Tier 1 suppliers give the firm and its regulator a right of access and audit, set service levels, and require at least 12 months' notice before the supplier may terminate.",
        "4.2 Subcontracting of a critical or important function requires the firm's prior written approval.",
        "4.3 Contracts are approved by the Head of Procurement. Contracts with an annual value above 500,000 pounds are also approved by the Chief Operating Officer.",
    ]),
    ("5 Ongoing oversight", [
        "5.1 The business owner meets each Tier 1 supplier at least once a quarter to review performance against the service levels.",
        "5.2 Tier 1 suppliers are reassessed every year, Tier 2 suppliers every two years and Tier 3 suppliers every three years.",
        "5.3 A supplier must report any security incident affecting the firm's data to the firm within 24 hours of becoming aware of it.",
    ]),
    ("6 Exit", [
        "6.1 Every Tier 1 arrangement has a documented exit plan, tested at least every two years, so that the service can be moved to another supplier or back in-house without disruption.",
        "6.2 On exit, the supplier returns or destroys the firm's data and confirms the destruction in writing.",
    ]),
    ("7 Register", [
        "7.1 The Third-Party Risk team keeps a register of all third-party arrangements. The register records the tier, the business owner, the contract dates and the date of the last assessment.",
    ]),
]

CLASSIFICATION_INTRO = [
    "This guideline tells staff how to label and handle the information they create or receive. Every document, email and data set is given one of four classification levels by its author.",
    "When information of different levels is combined, the combined information takes the highest level.",
]

CLASS_TABLE = [
    ("Level", "Examples", "Email outside the firm", "Storage", "Disposal"),
    ("Public", "Published reports, press releases", "Allowed", "Any firm system", "No special measures"),
    ("Internal", "Staff handbook, intranet pages", "Allowed to known business contacts", "Firm systems only", "Recycling bins"),
    ("Confidential", "Customer policies, claims files", "Encrypted only", "Firm systems with access control", "Confidential waste or secure erase"),
    ("Restricted", "Board papers, merger plans, fraud cases", "Not allowed", "Named-user folders only", "Cross-cut shredding or secure erase, logged"),
]

CLASSIFICATION_AFTER = [
    ("Labelling", [
        "Confidential and Restricted documents carry their level in the header or footer of every page. Emails carry the level at the start of the subject line.",
    ]),
    ("Printing and removable media", [
        "Restricted information may not be printed on shared printers unless secure print release is used. Removable media holding Confidential or Restricted information must be encrypted.",
    ]),
    ("Reporting mistakes", [
        "Anyone who sends Confidential or Restricted information to the wrong person must tell the Information Security team immediately and in any case within two hours.",
    ]),
    ("Review", [
        "The Information Security team reviews this guideline every two years, or sooner after a serious incident.",
    ]),
]


class Doc(FPDF):
    def __init__(self, header_text):
        super().__init__(format="A4")
        self.header_text = header_text
        self.set_auto_page_break(auto=True, margin=20)
        self.set_margins(22, 20, 22)

    def header(self):
        self.set_font("Helvetica", "I", 8)
        self.cell(0, 6, self.header_text, align="R", new_x="LMARGIN", new_y="NEXT")
        self.ln(4)

    def footer(self):
        self.set_y(-15)
        self.set_font("Helvetica", "", 8)
        self.cell(0, 6, f"{self.page_no()}", align="C")

    def title_block(self, title, meta):
        self.set_font("Helvetica", "B", 16)
        self.multi_cell(0, 8, title, new_x="LMARGIN", new_y="NEXT")
        self.set_font("Helvetica", "", 9)
        self.multi_cell(0, 5, meta, new_x="LMARGIN", new_y="NEXT")
        self.ln(3)

    def section(self, heading, paragraphs):
        self.set_font("Helvetica", "B", 11)
        self.multi_cell(0, 6, heading, new_x="LMARGIN", new_y="NEXT")
        self.set_font("Times", "", 11)
        for p in paragraphs:
            self.multi_cell(0, 5.5, p, new_x="LMARGIN", new_y="NEXT")
            self.ln(1.5)
        self.ln(2)


def third_party(path):
    d = Doc(f"{FIRM} - Third-Party Risk Management Policy - v4.0")
    d.add_page()
    d.title_block("Third-Party Risk Management Policy", "Owner: Chief Operating Officer. Approved by the Board Risk Committee, February 2026.")
    for h, ps in THIRD_PARTY:
        d.section(h, ps)
    d.output(str(path))


def classification(path):
    d = Doc(f"{FIRM} - Information Classification Guideline")
    d.add_page()
    d.title_block("Information Classification and Handling Guideline", "Owner: Information Security team. Version 2.2, January 2026.")
    d.section("1 Classification levels", CLASSIFICATION_INTRO)
    d.set_font("Helvetica", "", 8.5)
    widths = (24, 40, 34, 34, 34)
    with d.table(col_widths=widths, text_align="LEFT") as table:
        for row in CLASS_TABLE:
            r = table.row()
            for cell in row:
                r.cell(cell)
    d.ln(4)
    for i, (h, ps) in enumerate(CLASSIFICATION_AFTER, start=2):
        d.section(f"{i} {h}", ps)
    d.output(str(path))


def main():
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    third_party(out / "third-party-risk-policy.pdf")
    classification(out / "information-classification-guideline.pdf")


if __name__ == "__main__":
    main()
