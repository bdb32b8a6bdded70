#!/usr/bin/env python3
"""Writes probe 18's documents (README, "Unseen documents"): a procurement policy with a table
of purchase thresholds, a personal data breach procedure, and two versions of a clean desk and
device standard, as HTML that wkhtmltopdf (Qt WebKit) prints to PDF.
  python3 scripts/probes/procurement.py OUT   # writes OUT/*.html
"""
import html
import sys
from pathlib import Path

STYLE = """
body { font-family: 'DejaVu Serif', serif; font-size: 11pt; margin: 2cm; }
h1 { font-size: 18pt; } h2 { font-size: 13pt; margin-top: 1.4em; }
table { border-collapse: collapse; margin: 0.8em 0; }
td, th { border: 1px solid #444; padding: 4px 8px; vertical-align: top; }
p.meta { color: #555; }
"""

THRESHOLDS = (
    ["Value of the purchase (excluding VAT)", "What is needed before ordering"],
    [
        ["Under 5,000 euros", "One written quote and the budget holder's approval"],
        ["5,000 to 49,999 euros", "Three written quotes and the budget holder's approval"],
        ["50,000 euros or more", "A formal tender run by the Procurement team and approval by the Chief Financial Officer"],
    ],
)

DOCS = {
    "procurement-policy": ("Procurement Policy", "Owner: Finance. Version 4, approved by the Audit Committee.", [
        ("1. Purpose", [
            "This policy sets how the company buys goods and services so that every purchase gives value for money and can be explained to an auditor.",
        ]),
        ("2. Competition", [
            "The steps required before an order depend on the value of the purchase:",
            THRESHOLDS,
            "A purchase may not be split into smaller orders to stay under a threshold.",
        ]),
        ("3. Emergency purchases", [
            "Where a delay would put people or operations at risk, an order may be placed without quotes.",
            "Emergency purchases are approved by a member of the Executive Committee and reported to the Procurement team within five working days.",
        ]),
        ("4. Suppliers", [
            "Every new supplier passes the due diligence checks of the Procurement team before the first order is placed.",
            "Suppliers are paid by bank transfer within 30 days of receipt of a valid invoice.",
            "Members of an evaluation panel accept no gifts or hospitality from bidders while a tender is open.",
        ]),
        ("5. Records", [
            "Quotes, tender documents and the reasons for each award are kept for six years.",
        ]),
    ]),
    "data-breach-procedure": ("Personal Data Breach Procedure", "Owner: Data Protection Officer. Issued March 2025.", [
        ("1. Reporting a breach", [
            "Anyone who discovers or suspects a personal data breach reports it to the service desk at once, by telephone, and does not try to investigate it alone.",
            "The service desk opens an incident and informs the Data Protection Officer within one hour.",
        ]),
        ("2. Assessment", [
            "The Data Protection Officer leads the response and decides, with the Head of Information Security, how serious the breach is.",
            "The assessment records what data was affected, how many people it concerns and whether the data was encrypted.",
        ]),
        ("3. Notification", [
            "A breach that is likely to result in a risk to people's rights is notified to the supervisory authority within 72 hours of the company becoming aware of it.",
            "Where the breach is likely to result in a high risk, the people affected are told without undue delay, in plain language, what happened and what they can do to protect themselves.",
            "Only the Data Protection Officer contacts the supervisory authority.",
        ]),
        ("4. After the breach", [
            "Every breach, including those not notified, is recorded in the breach register with the facts, its effects and the action taken.",
            "A review of lessons learned is held within 30 days of closing the incident.",
        ]),
    ]),
    "clean-desk-standard-v1": ("Clean Desk and Device Standard, version 1", "Owner: Information Security. Version 1, 2023.", [
        ("1. Desks", [
            "Papers that hold confidential information are locked away at the end of each working day.",
            "Printouts are collected from the printer straight away.",
        ]),
        ("2. Screens", [
            "Screens lock automatically after 15 minutes without use.",
            "Staff lock their screen whenever they leave their desk.",
        ]),
        ("3. Devices away from the office", [
            "Laptops are carried as hand luggage when travelling.",
        ]),
    ]),
    "clean-desk-standard-v2": ("Clean Desk and Device Standard, version 2", "Owner: Information Security. Version 2, 2025.", [
        ("1. Desks", [
            "Papers that hold confidential information are locked away at the end of each working day.",
            "Printouts are collected from the printer straight away, and confidential waste goes in the locked shredding bins.",
        ]),
        ("2. Screens", [
            "Screens lock automatically after five minutes without use.",
            "Staff lock their screen whenever they leave their desk.",
        ]),
        ("3. Devices away from the office", [
            "Laptops are carried as hand luggage when travelling.",
            "Laptops and phones are never left unattended in a vehicle, not even in the boot.",
            "A lost or stolen device is reported to the service desk within 24 hours.",
        ]),
    ]),
}


def render(title, meta, sections):
    out = [f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>",
           f"<style>{STYLE}</style></head><body>",
           f"<h1>{html.escape(title)}</h1>", f"<p class='meta'>{html.escape(meta)}</p>"]
    for heading, paras in sections:
        out.append(f"<h2>{html.escape(heading)}</h2>")
        for p in paras:
            if isinstance(p, tuple):
                head, rows = p
                out.append("<table><tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in head) + "</tr>")
                for r in rows:
                    out.append("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in r) + "</tr>")
                out.append("</table>")
            else:
                out.append(f"<p>{html.escape(p)}</p>")
    out.append("</body></html>")
    return "\n".join(out)


def main():
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    for name, (title, meta, sections) in DOCS.items():
        (out / f"{name}.html").write_text(render(title, meta, sections), encoding="utf-8")


if __name__ == "__main__":
    main()
