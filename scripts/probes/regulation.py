#!/usr/bin/env python3
"""Writes probe 12's documents (README, "Unseen documents"): a data protection act in HTML
(articles, numbered paragraphs, lettered points) that LibreOffice turns into a PDF as it would a
saved web page, and a company's subject access procedure as a Word file.
  python3 scripts/probes/regulation.py OUT   # writes OUT/data-protection-act.html, OUT/*.docx
"""
import sys
from pathlib import Path

import docx

ACT = [
    ("Article 1", "Scope", [
        "This Act applies to the processing of personal data by any controller established in Sorland, and to controllers established elsewhere that offer goods or services to persons in Sorland.",
        "This Act does not apply to processing by an individual in the course of a purely personal or household activity.",
    ]),
    ("Article 2", "Definitions", [
        "For the purposes of this Act: (a) \u201cpersonal data\u201d means any information relating to an identified or identifiable natural person; (b) \u201ccontroller\u201d means the person who decides the purposes and means of processing; (c) \u201cchild\u201d means a person under the age of 16.",
    ]),
    ("Article 5", "Consent of children", [
        "Where processing is based on consent and concerns a child, the consent shall be given by a person holding parental responsibility for the child.",
        "The controller shall make reasonable efforts to verify that consent is given by a person holding parental responsibility.",
    ]),
    ("Article 9", "Right of access", [
        "A data subject has the right to obtain from the controller confirmation of whether personal data concerning him or her are processed, and a copy of those data.",
        "The controller shall reply to a request under paragraph 1 without undue delay and in any event within one month of receipt. That period may be extended by two further months where requests are complex or numerous, provided that the data subject is informed of the extension within the first month.",
        "The first copy shall be provided free of charge. For further copies the controller may charge a reasonable fee based on administrative costs.",
    ]),
    ("Article 12", "Erasure", [
        "The data subject has the right to obtain erasure of personal data without undue delay where the data are no longer necessary for the purposes for which they were collected.",
    ]),
    ("Article 21", "Notification of breaches", [
        "In the case of a personal data breach, the controller shall notify the Sorland Data Commissioner within 72 hours after having become aware of it, unless the breach is unlikely to result in a risk to persons.",
        "Where the breach is likely to result in a high risk, the controller shall also inform the data subjects concerned without undue delay.",
    ]),
    ("Article 30", "Data protection officer", [
        "A controller that processes personal data of more than 50,000 persons in a calendar year shall designate a data protection officer.",
        "The data protection officer shall report directly to the highest management level of the controller.",
    ]),
    ("Article 41", "Administrative fines", [
        "Infringements of Articles 5 and 9 are subject to fines of up to 2,000,000 Sorland crowns or 2% of the total worldwide annual turnover, whichever is higher.",
        "Infringements of Article 21 are subject to fines of up to 1,000,000 Sorland crowns.",
    ]),
]

PROCEDURE = [
    ("1. Purpose", [
        "This procedure explains how Corvid Insurance handles requests from customers who ask for a copy of their personal data.",
    ]),
    ("2. Receiving a request", [
        "2.1 Requests may be made by email, by letter or by telephone. Every request is logged in the privacy case system on the day it is received.",
        "2.2 The Privacy Team checks the identity of the person making the request before any data is released.",
    ]),
    ("3. Responding", [
        "3.1 The Privacy Team replies to every request within 30 days of receipt.",
        "3.2 Where a request is complex, the deadline may be extended by up to two further months; the customer is told about the extension within the first 30 days.",
        "3.3 The first copy of the data is provided free of charge. Further copies cost 10 crowns each.",
    ]),
    ("4. Records", [
        "4.1 Closed cases are kept in the privacy case system for three years and then deleted.",
    ]),
]


def html(path):
    rows = ["<html><head><meta charset='utf-8'><title>Data Protection Act of Sorland</title></head><body>",
            "<h1>Data Protection Act of Sorland</h1>",
            "<p><i>Consolidated text as in force on 1 March 2026.</i></p>"]
    for art, title, paras in ACT:
        rows.append(f"<h2>{art} &ndash; {title}</h2>")
        rows.append("<ol>" + "".join(f"<li>{p}</li>" for p in paras) + "</ol>")
    rows.append("</body></html>")
    path.write_text("\n".join(rows), encoding="utf-8")


def word(path):
    d = docx.Document()
    d.add_heading("Subject Access Request Procedure", 0)
    for heading, body in PROCEDURE:
        d.add_heading(heading, 1)
        for item in body:
            d.add_paragraph(item)
    d.save(path)


def main():
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    html(out / "data-protection-act.html")
    word(out / "subject-access-procedure.docx")


if __name__ == "__main__":
    main()
