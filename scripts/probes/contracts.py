#!/usr/bin/env python3
"""Writes probe 11's contracts (README, "Unseen documents"): a master services agreement and a
data processing addendum as Word files (python-docx; LibreOffice turns them into PDF), with
numbered clauses, defined terms and cross-references.
  python3 scripts/probes/contracts.py OUT   # writes OUT/*.docx
"""
import sys
from pathlib import Path

import docx

MSA = [
    ("1. Definitions", [
        "1.1 \u201cServices\u201d means the cloud payroll services described in Schedule 1.",
        "1.2 \u201cBusiness Day\u201d means a day other than a Saturday, Sunday or public holiday in England.",
        "1.3 \u201cConfidential Information\u201d means all information disclosed by one party to the other that is marked as confidential or would reasonably be regarded as confidential.",
    ]),
    ("2. Term", [
        "2.1 This Agreement starts on the Effective Date and continues for an initial term of three years.",
        "2.2 After the initial term, this Agreement renews automatically for successive periods of twelve months unless either party gives at least 90 days' written notice of non-renewal before the end of the current term.",
    ]),
    ("3. Service levels", [
        "3.1 The Supplier shall make the Services available 99.5% of the time in each calendar month, excluding planned maintenance.",
        "3.2 Planned maintenance shall take place outside the hours of 07:00 to 19:00 on Business Days and shall be announced at least five Business Days in advance.",
        "3.3 If availability falls below the level in clause 3.1, the Customer is entitled to the service credits set out in Schedule 2, which are its sole remedy for that failure.",
    ]),
    ("4. Fees and payment", [
        "4.1 The Customer shall pay the fees set out in Schedule 3.",
        "4.2 The Supplier shall invoice the fees monthly in arrears. The Customer shall pay each undisputed invoice within 30 days of receipt.",
        "4.3 The Supplier may increase the fees once in each contract year by no more than the annual change in the Consumer Prices Index, on at least 60 days' written notice.",
        "4.4 Late payments bear interest at 4% per year above the Bank of England base rate.",
    ]),
    ("5. Subcontracting", [
        "5.1 The Supplier shall not subcontract any of its obligations without the Customer's prior written consent, which shall not be unreasonably withheld.",
        "5.2 The Supplier remains responsible for the acts and omissions of its subcontractors as if they were its own.",
    ]),
    ("6. Confidentiality", [
        "6.1 Each party shall keep the other party's Confidential Information confidential and shall use it only to perform this Agreement.",
        "6.2 The obligations in this clause 6 continue for five years after this Agreement ends.",
    ]),
    ("7. Liability", [
        "7.1 Nothing in this Agreement limits liability for death or personal injury caused by negligence, or for fraud.",
        "7.2 Subject to clause 7.1, each party's total liability under this Agreement in each contract year is limited to 125% of the fees paid in that contract year.",
        "7.3 Neither party is liable for loss of profits or for indirect or consequential loss.",
    ]),
    ("8. Termination", [
        "8.1 Either party may terminate this Agreement immediately by written notice if the other party commits a material breach that is not remedied within 30 days of being notified of it.",
        "8.2 On termination, the Supplier shall return all Customer data in CSV format within 20 Business Days and then delete it.",
    ]),
    ("9. Governing law", [
        "9.1 This Agreement is governed by the law of England and Wales, and the courts of England have exclusive jurisdiction.",
    ]),
]

DPA = [
    ("1. Scope", [
        "1.1 This Addendum applies where the Supplier processes personal data on behalf of the Customer in providing the Services under the Master Services Agreement.",
    ]),
    ("2. Processing", [
        "2.1 The Supplier shall process personal data only on the documented instructions of the Customer.",
        "2.2 The Supplier shall ensure that every person authorised to process personal data is bound by a duty of confidentiality.",
        "2.3 The Supplier shall not transfer personal data outside the United Kingdom or the European Economic Area without the Customer's prior written authorisation.",
    ]),
    ("3. Sub-processors", [
        "3.1 The Supplier may engage the sub-processors listed in Annex A. The Supplier shall notify the Customer of any intended new sub-processor at least 30 days in advance, and the Customer may object on reasonable grounds within that period.",
    ]),
    ("4. Security and breaches", [
        "4.1 The Supplier shall implement the technical and organisational measures described in Annex B, including encryption of personal data at rest and in transit.",
        "4.2 The Supplier shall notify the Customer of a personal data breach without undue delay and in any event within 24 hours of becoming aware of it.",
    ]),
    ("5. Audits", [
        "5.1 The Customer may audit the Supplier's compliance with this Addendum once in each contract year, on at least 30 days' notice.",
        "5.2 The Supplier shall provide its most recent ISO 27001 certificate on request.",
    ]),
    ("6. Return and deletion", [
        "6.1 When the Services end, the Supplier shall delete all personal data within 60 days, unless the law requires it to be kept.",
    ]),
]


def word(path, title, sections):
    d = docx.Document()
    d.add_heading(title, 0)
    d.add_paragraph("Between Northgate Retail plc (the \u201cCustomer\u201d) and Payfield Systems Ltd (the \u201cSupplier\u201d).")
    for heading, body in sections:
        d.add_heading(heading, 1)
        for item in body:
            d.add_paragraph(item)
    d.save(path)


def main():
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    word(out / "master-services-agreement.docx", "Master Services Agreement", MSA)
    word(out / "data-processing-addendum.docx", "Data Processing Addendum", DPA)


if __name__ == "__main__":
    main()
