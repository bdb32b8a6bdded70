#!/usr/bin/env python3
"""Writes probe 13's documents (README, "Unseen documents") as HTML with CSS and prints them
with WeasyPrint, the HTML-to-PDF engine of many web tools: section numbers drawn by CSS
counters, running headers and page numbers in @page margin boxes, a two-column page, a table.
A payment firm's anti-money-laundering policy, two versions of its access control standard and
its complaints handling procedure.
  python3 scripts/probes/weasy.py OUT   # writes OUT/*.pdf (needs the weasyprint package)
"""
import sys
from html import escape
from pathlib import Path

import weasyprint

FIRM = "Corvane Payments Ltd"

AML = [
    ("Purpose and scope", [
        "This policy sets out how Corvane Payments Ltd prevents its services from being used to launder money or to finance terrorism. It applies to every employee, contractor and agent of the firm, in every country where the firm offers payment accounts or money remittance.",
        "Breaches of this policy are disciplinary matters and may also be criminal offences for the individual concerned.",
    ]),
    ("Roles", [
        "The Board is responsible for approving this policy every year and for making sure the firm has enough resources to apply it.",
        "The Money Laundering Reporting Officer (MLRO) is the Head of Financial Crime. The MLRO receives internal reports of suspicion, decides whether to file a report with the Financial Intelligence Unit, and reports to the Board on the working of this policy at least twice a year.",
        "Line managers make sure their teams complete the financial crime training and know how to raise a suspicion.",
    ]),
    ("Customer due diligence", [
        "Before opening an account or carrying out an occasional transaction of 1,000 euros or more, staff must identify the customer and verify the identity using a reliable, independent source.",
        "For a company, staff must also identify every beneficial owner holding more than 25% of the shares or voting rights, and understand the ownership and control structure.",
        "Staff must obtain information on the purpose and intended nature of the business relationship, including the expected monthly volume of payments.",
        "Where verification cannot be completed, the account must not be opened and any funds received must be returned to the account they came from.",
    ]),
    ("Enhanced due diligence", [
        "Enhanced due diligence applies to politically exposed persons, their family members and close associates, to customers established in a high-risk third country, and to any transaction that is complex, unusually large or without an apparent economic purpose.",
        "A business relationship with a politically exposed person may only be established or continued with the written approval of a member of senior management, after the source of wealth and the source of funds have been established.",
        "Relationships subject to enhanced due diligence are monitored more often, as set out in the review table below.",
    ]),
    ("Ongoing monitoring and periodic review", [
        "Transactions are monitored automatically against scenarios approved by the MLRO. Alerts must be reviewed by an analyst within five working days of being raised.",
        "Every customer file is reviewed periodically according to the customer's risk rating:",
        "TABLE",
        "A file is also reviewed whenever a trigger event occurs, such as a change of beneficial owner or an alert that is escalated to the MLRO.",
    ]),
    ("Sanctions", [
        "All customers, beneficial owners and payment counterparties are screened against the consolidated sanctions lists of the United Nations, the European Union and the United Kingdom before the relationship starts and before each outgoing payment is released.",
        "A potential match must be escalated to the Sanctions Officer and the payment held until the match is discounted or reported.",
    ]),
    ("Cash", [
        "Corvane Payments does not accept cash for any single payment, or for a series of payments that appear to be linked, of 10,000 euros or more.",
    ]),
    ("Reporting suspicion", [
        "An employee who knows or suspects that a customer is engaged in money laundering or terrorist financing must report it to the MLRO through an internal suspicious activity report before the end of the working day on which the suspicion arose.",
        "Staff must not tell the customer, or anyone else, that a report has been made or is being considered. Tipping off is a criminal offence.",
        "The MLRO acknowledges each internal report within one working day and records the reasons for every decision to report or not to report to the Financial Intelligence Unit.",
    ]),
    ("Record keeping", [
        "Customer due diligence records and the supporting evidence are kept for five years after the end of the business relationship.",
        "Records of transactions are kept for five years from the date of the transaction. Internal suspicious activity reports and the MLRO's decisions are kept for five years from the date of the decision.",
    ]),
    ("Training", [
        "Every new employee completes the financial crime training within 30 days of joining. All employees repeat the training every year, and staff in customer-facing and payment operations roles also complete a scenario workshop every year.",
    ]),
]

REVIEW_TABLE = [("Risk rating", "Periodic review", "Who signs off"),
                ("High", "Every 12 months", "MLRO"),
                ("Medium", "Every 24 months", "Compliance analyst"),
                ("Low", "Every 36 months", "Compliance analyst")]

ACCESS = {
    "2024": [
        ("Scope", [
            "This standard applies to every information system that stores or processes customer or payment data, and to every person who has an account on such a system.",
        ]),
        ("Accounts", [
            "Every user has a personal account. Shared accounts may be used for operational tasks with the written approval of the Information Security Manager.",
            "Accounts are created only on a request approved by the user's line manager.",
        ]),
        ("Passwords", [
            "Passwords must be at least 12 characters long and must not appear on a list of known breached passwords.",
            "Passwords are changed every 90 days.",
            "Multi-factor authentication is required for remote access to the corporate network.",
        ]),
        ("Privileged access", [
            "Administrator rights are granted only to named staff for the systems they administer.",
            "Administrators use a separate account for administrative work.",
        ]),
        ("Access reviews", [
            "Line managers review the access rights of their team every six months and remove rights that are no longer needed.",
        ]),
        ("Leavers and movers", [
            "When a person leaves the firm, their line manager must have all their accounts disabled within two working days of the last working day.",
            "When a person changes role, rights that the new role does not need are removed within ten working days.",
        ]),
        ("Exceptions", [
            "Exceptions to this standard must be approved by the Information Security Manager and are reviewed every year.",
        ]),
    ],
    "2026": [
        ("Scope", [
            "This standard applies to every information system that stores or processes customer or payment data, and to every person who has an account on such a system, including contractors and third-party support staff.",
        ]),
        ("Accounts", [
            "Every user has a personal account. Shared accounts are not permitted.",
            "Accounts are created only on a request approved by the user's line manager.",
        ]),
        ("Passwords", [
            "Passwords must be at least 14 characters long and must not appear on a list of known breached passwords.",
            "Passwords are changed only when there is reason to believe they have been compromised.",
            "Multi-factor authentication is required for every sign-in to systems within the scope of this standard.",
        ]),
        ("Privileged access", [
            "Administrator rights are granted only to named staff for the systems they administer, for no longer than twelve months at a time.",
            "Administrators use a separate account for administrative work, and every privileged session is recorded.",
        ]),
        ("Access reviews", [
            "Line managers review the access rights of their team every quarter and remove rights that are no longer needed. Reviews of privileged access are countersigned by the Information Security Manager.",
        ]),
        ("Leavers and movers", [
            "When a person leaves the firm, all their accounts must be disabled by the end of their last working day.",
            "When a person changes role, rights that the new role does not need are removed within five working days.",
        ]),
        ("Exceptions", [
            "Exceptions to this standard must be approved by the Information Security Manager and are reviewed every six months.",
        ]),
    ],
}

COMPLAINTS = [
    ("What counts as a complaint", [
        "A complaint is any expression of dissatisfaction, whether oral or written and whether justified or not, from or on behalf of a customer about the firm's services.",
        "Complaints may be made by any reasonable means, including by telephone, by email, through the app's chat or in a letter. Staff must not insist that a customer puts a complaint in writing.",
    ]),
    ("Acknowledging a complaint", [
        "Every complaint is logged in the complaints register on the day it is received.",
        "The Customer Care team sends a written acknowledgement within three working days, giving the name of the person handling the complaint.",
        "A complaint that is resolved to the customer's satisfaction by the close of the third working day after receipt may be closed with a summary resolution communication.",
    ]),
    ("Investigating", [
        "The complaint handler must be someone who was not involved in the matter complained about.",
        "The handler gathers the records, listens to call recordings where they exist and contacts the customer if anything is unclear.",
    ]),
    ("Final response", [
        "For complaints about payment services, the firm sends a final response within 15 business days of receiving the complaint.",
        "In exceptional situations beyond the firm's control, the firm sends a holding reply within 15 business days explaining the delay, and the final response within 35 business days.",
        "For all other complaints, the firm sends a final response within eight weeks.",
        "The final response explains the decision, any redress offered, and the customer's right to refer the complaint to the Financial Ombudsman Service within six months of the date of the final response.",
    ]),
    ("Redress", [
        "Where a complaint is upheld, the firm puts the customer back in the position they would have been in had the error not happened, including any interest or charges lost.",
    ]),
    ("Root cause analysis", [
        "The Head of Customer Care analyses complaints data every quarter to find recurring causes, and reports the results to the Risk Committee.",
    ]),
    ("Records", [
        "Complaint records, including the final response, are kept for three years from the date the complaint was received.",
    ]),
]

CSS = """
@page { size: A4; margin: 25mm 22mm 25mm 22mm;
  @top-right { content: "%(header)s"; font-size: 8pt; color: #555; }
  @bottom-center { content: "Page " counter(page) " of " counter(pages); font-size: 8pt; } }
body { font-family: "DejaVu Serif", serif; font-size: 10.5pt; line-height: 1.4; counter-reset: sec; }
h1 { font-family: "DejaVu Sans", sans-serif; font-size: 17pt; margin-bottom: 2mm; }
p.meta { color: #444; font-size: 9pt; }
h2 { font-family: "DejaVu Sans", sans-serif; font-size: 12pt; counter-increment: sec; counter-reset: para; margin-top: 6mm; }
h2::before { content: counter(sec) ". "; }
p.clause { counter-increment: para; margin: 1.5mm 0; }
p.clause::before { content: counter(sec) "." counter(para) "  "; font-weight: bold; }
table { border-collapse: collapse; margin: 3mm 0; }
td, th { border: 0.5pt solid #333; padding: 1.5mm 3mm; font-size: 9.5pt; }
div.cols { column-count: 2; column-gap: 8mm; }
"""


def page(title, header, meta, sections, table=None, two_column_from=None):
    body = [f"<h1>{escape(title)}</h1>", f"<p class='meta'>{escape(meta)}</p>"]
    for i, (heading, clauses) in enumerate(sections):
        if two_column_from is not None and i == two_column_from:
            body.append("<div class='cols'>")
        body.append(f"<h2>{escape(heading)}</h2>")
        for c in clauses:
            if c == "TABLE":
                rows = "".join(
                    "<tr>" + "".join(f"<{'th' if r == 0 else 'td'}>{escape(x)}</{'th' if r == 0 else 'td'}>" for x in row) + "</tr>"
                    for r, row in enumerate(table))
                body.append(f"<table>{rows}</table>")
            else:
                body.append(f"<p class='clause'>{escape(c)}</p>")
    if two_column_from is not None:
        body.append("</div>")
    css = CSS % {"header": header}
    return f"<html><head><meta charset='utf-8'><title>{escape(title)}</title><style>{css}</style></head><body>{''.join(body)}</body></html>"


def main():
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    docs = {
        "aml-policy.pdf": page("Anti-Money Laundering and Counter-Terrorist Financing Policy",
                               f"{FIRM} | AML/CTF Policy | Version 3.1",
                               "Owner: Head of Financial Crime. Approved by the Board on 12 March 2026.",
                               AML, table=REVIEW_TABLE),
        "access-control-standard-2024.pdf": page("Access Control Standard",
                                                 f"{FIRM} | Information Security | 2024 edition",
                                                 "Version 2024. Owner: Information Security Manager.",
                                                 ACCESS["2024"], two_column_from=2),
        "access-control-standard-2026.pdf": page("Access Control Standard",
                                                 f"{FIRM} | Information Security | 2026 edition",
                                                 "Version 2026. Owner: Information Security Manager. Replaces the 2024 edition.",
                                                 ACCESS["2026"], two_column_from=2),
        "complaints-procedure.pdf": page("Complaints Handling Procedure",
                                         f"{FIRM} | Customer Care",
                                         "Owner: Head of Customer Care. Effective 1 January 2026.",
                                         COMPLAINTS),
    }
    for name, html in docs.items():
        weasyprint.HTML(string=html).write_pdf(out / name)


if __name__ == "__main__":
    main()
