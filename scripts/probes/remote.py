#!/usr/bin/env python3
"""Writes probe 17's documents (README, "Unseen documents"): two versions of a remote working
policy and a travel and expenses policy over two pages, as HTML that LibreOffice Writer prints
to PDF (its HTML import puts an empty first page before the policies' text).
  python3 scripts/probes/remote.py OUT   # writes OUT/*.html
"""
import html
import sys
from pathlib import Path

ELIGIBILITY = "Roles that handle cash or open post are not eligible for remote working."
LAPTOPS = "Company laptops are not used by family members or friends."
SECURITY = ("3. Security", [
    "Staff connect through the company VPN whenever they work remotely.",
    "Printed documents that hold customer data are not taken home.",
])
OWNER = "Owner: People team. Applies to all permanent staff."

DOCS = {
    "remote-working-policy-2024": ("Remote Working Policy 2024", OWNER, [
        ("1. Eligibility", [
            "Staff who have completed their probation may work remotely for up to two days a week, with their line manager's agreement.",
            ELIGIBILITY,
        ]),
        ("2. Equipment", [
            "The company provides a laptop and a headset. Staff use their own desk and chair.",
            LAPTOPS,
        ]),
        SECURITY,
        ("4. Working abroad", ["Working from another country is not allowed."]),
    ]),
    "remote-working-policy-2026": ("Remote Working Policy 2026", OWNER, [
        ("1. Eligibility", [
            "Staff who have completed their probation may work remotely for up to three days a week, with their line manager's agreement.",
            ELIGIBILITY,
        ]),
        ("2. Equipment", [
            "The company provides a laptop, a headset and a second monitor. Staff may claim up to 150 pounds once for a desk chair.",
            LAPTOPS,
        ]),
        SECURITY,
        ("4. Working abroad", [
            "Staff may work from another country for up to 20 working days a year, after approval by the People team and the Tax Manager.",
            "Working abroad for longer needs a new employment contract.",
        ]),
    ]),
    "travel-expenses-policy": ("Travel and Expenses Policy", "Owner: Finance. Version 3.", [
        ("1. Booking travel", [
            "All business travel is booked through the travel desk at least 14 days before departure, unless the travel is urgent.",
            "Rail is used for journeys under four hours; flights are booked in economy class.",
            "Business class is allowed only for flights longer than eight hours, with the approval of a director.",
        ]),
        ("2. Hotels", [
            "Hotel stays are limited to 180 pounds a night in London and 120 pounds a night elsewhere in the United Kingdom.",
            "Staff share no hotel rooms with colleagues unless they choose to.",
        ]),
        ("3. Meals and subsistence", [
            "Staff may claim up to 35 pounds a day for meals when travelling overnight.",
            "Alcohol is never reimbursed.",
        ]),
        ("4. Claims", [
            "Expense claims are submitted within 30 days of the expense, with an itemised receipt for every item over 10 pounds.",
            "Claims are approved by the claimant's line manager; a claim by a director is approved by the Chief Financial Officer.",
            "Claims submitted after 90 days are not paid.",
        ]),
        ("5. Corporate cards", [
            "Corporate cards are issued to staff who travel more than six times a year.",
            "Personal purchases on a corporate card are repaid within 10 days and may lead to the card being withdrawn.",
        ]),
    ]),
}


def main():
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    for name, (title, sub, sections) in DOCS.items():
        body = f"<h1>{html.escape(title)}</h1><p><i>{html.escape(sub)}</i></p>"
        for head, paras in sections:
            # The travel policy's claims start a new page.
            style = ' style="page-break-before: always"' if head == "4. Claims" else ""
            body += f"<h2{style}>{html.escape(head)}</h2>"
            body += "".join(f"<p>{html.escape(p)}</p>" for p in paras)
        (out / f"{name}.html").write_text(
            f"<html><head><meta charset='utf-8'><title>{html.escape(title)}</title></head>"
            f"<body>{body}</body></html>")


if __name__ == "__main__":
    main()
