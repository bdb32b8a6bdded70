#!/usr/bin/env python3
"""Writes probe 9's company policies (README, "Unseen documents"): two versions of a gifts and
hospitality policy and a whistleblowing policy as Word files (python-docx; LibreOffice turns them
into PDF with running headers and "Page N of M" footers), and an incident response procedure
drawn with reportlab (a second PDF producer).
  python3 scripts/probes/policies.py OUT   # writes OUT/*.docx and OUT/incident-response.pdf
"""
import sys
from pathlib import Path

import docx
from docx.enum.text import WD_ALIGN_PARAGRAPH
from docx.oxml import OxmlElement
from docx.oxml.ns import qn
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import getSampleStyleSheet
from reportlab.platypus import Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle
from reportlab.lib import colors


def field(run, code):
    for kind, text in (("begin", None), (None, code), ("end", None)):
        if kind:
            el = OxmlElement("w:fldChar")
            el.set(qn("w:fldCharType"), kind)
        else:
            el = OxmlElement("w:instrText")
            el.set(qn("xml:space"), "preserve")
            el.text = text
        run._r.append(el)


def word(path, title, header, sections):
    d = docx.Document()
    sec = d.sections[0]
    sec.header.paragraphs[0].text = header
    foot = sec.footer.paragraphs[0]
    foot.alignment = WD_ALIGN_PARAGRAPH.CENTER
    foot.add_run("Page ")
    field(foot.add_run(), "PAGE")
    foot.add_run(" of ")
    field(foot.add_run(), "NUMPAGES")
    d.add_heading(title, 0)
    for heading, body in sections:
        d.add_heading(heading, 1)
        for item in body:
            if isinstance(item, list):
                t = d.add_table(rows=0, cols=len(item[0]))
                t.style = "Table Grid"
                for row in item:
                    cells = t.add_row().cells
                    for c, v in zip(cells, row):
                        c.text = v
            elif item.startswith("- "):
                d.add_paragraph(item[2:], style="List Bullet")
            else:
                d.add_paragraph(item)
    d.save(path)


GIFTS_2023 = [
    ("1. Purpose", [
        "1.1 This policy sets out how employees of Harbour Bank may give and receive gifts and hospitality without creating a conflict of interest or a risk of bribery.",
        "1.2 It applies to all employees, directors and contractors of Harbour Bank and its subsidiaries.",
    ]),
    ("2. Definitions", [
        "2.1 A gift is anything of value given without charge, including goods, services, discounts and tickets to events the giver does not attend.",
        "2.2 Hospitality means meals, drinks, entertainment and travel where the giver attends together with the recipient.",
        "2.3 A cash equivalent is any item that can be exchanged for money, such as vouchers, gift cards, prepaid cards, cryptocurrency or securities.",
    ]),
    ("3. Receiving gifts and hospitality", [
        "3.1 Employees may accept gifts with a value of up to £100 per giver in a calendar year without prior approval.",
        "3.2 Gifts above £100 require the prior approval of the employee's line manager.",
        "3.3 Employees must never accept cash or cash equivalents, whatever the amount.",
        "3.4 Hospitality is acceptable when it is reasonable, infrequent and has a clear business purpose. Hospitality worth more than £200 per person requires line manager approval.",
    ]),
    ("4. Giving gifts and hospitality", [
        "4.1 Gifts to clients may be given only from the approved corporate gift catalogue.",
        "4.2 Gifts and hospitality must not be offered to public officials without the prior written approval of the Compliance department.",
    ]),
    ("5. Recording", [
        "5.1 Every gift or hospitality given or received above £25 must be recorded in the gifts and hospitality register within 30 days.",
        "5.2 The register is reviewed by Compliance once a year.",
    ]),
    ("6. Approval thresholds", [
        "The thresholds below apply per giver per calendar year.",
        [["Item", "Threshold", "Approver"],
         ["Gift received", "£100", "Line manager"],
         ["Hospitality received", "£200 per person", "Line manager"],
         ["Gift to a public official", "Any amount", "Compliance"]],
    ]),
    ("7. Breaches", [
        "7.1 A breach of this policy may lead to disciplinary action up to and including dismissal.",
    ]),
]

GIFTS_2025 = [
    ("1. Purpose", [
        "1.1 This policy sets out how employees of Harbour Bank may give and receive gifts and hospitality without creating a conflict of interest or a risk of bribery.",
        "1.2 It applies to all employees, directors and contractors of Harbour Bank and its subsidiaries, and to agents acting on the bank's behalf.",
    ]),
    ("2. Definitions", [
        "2.1 A gift is anything of value given without charge, including goods, services, discounts and tickets to events the giver does not attend.",
        "2.2 Hospitality means meals, drinks, entertainment and travel where the giver attends together with the recipient.",
        "2.3 A cash equivalent is any item that can be exchanged for money, such as vouchers, gift cards, prepaid cards, cryptocurrency or securities.",
        "2.4 A tender period runs from the day a request for proposal is issued until the contract is signed.",
    ]),
    ("3. Receiving gifts and hospitality", [
        "3.1 Employees may accept gifts with a value of up to £50 per giver in a calendar year without prior approval.",
        "3.2 Gifts above £50 require the prior approval of the Compliance department. Line managers can no longer approve gifts.",
        "3.3 Employees must never accept cash or cash equivalents, whatever the amount.",
        "3.4 Hospitality is acceptable when it is reasonable, infrequent and has a clear business purpose. Hospitality worth more than £150 per person requires Compliance approval.",
        "3.5 During a tender period, employees involved in the tender must not accept any gift or hospitality from a bidder, whatever its value.",
    ]),
    ("4. Giving gifts and hospitality", [
        "4.1 Gifts to clients may be given only from the approved corporate gift catalogue.",
        "4.2 Gifts and hospitality must not be offered to public officials under any circumstances.",
    ]),
    ("5. Recording", [
        "5.1 Every gift or hospitality given or received, whatever its value, must be recorded in the gifts and hospitality register within 10 working days.",
        "5.2 The register is reviewed by Compliance every quarter, and a summary is reported to the Audit Committee twice a year.",
        "5.3 Declined gifts must be recorded as well, together with the reason for declining.",
    ]),
    ("6. Approval thresholds", [
        "The thresholds below apply per giver per calendar year.",
        [["Item", "Threshold", "Approver"],
         ["Gift received", "£50", "Compliance"],
         ["Hospitality received", "£150 per person", "Compliance"],
         ["Gift to a public official", "Not permitted", "None"]],
    ]),
    ("7. Breaches", [
        "7.1 A breach of this policy may lead to disciplinary action up to and including dismissal.",
        "7.2 Employees who suspect a breach should report it under the Whistleblowing Policy.",
    ]),
]

WHISTLE = [
    ("1. Introduction", [
        "Harbour Bank is committed to the highest standards of honesty and accountability. This policy explains how anyone who works for the bank can raise a concern about wrongdoing, and how the bank protects people who do so.",
    ]),
    ("2. Who may raise a concern", [
        "2.1 Any current or former employee, contractor, agency worker, trainee or director may raise a concern under this policy.",
        "2.2 Suppliers and their staff may also use the reporting channels described in section 4.",
    ]),
    ("3. What to report", [
        "3.1 Concerns that should be reported include fraud, bribery, money laundering, breaches of financial regulation, dangers to health and safety, damage to the environment, and the deliberate concealment of any of these.",
        "3.2 Personal grievances about an individual's own employment, such as pay or a dispute with a manager, are not covered by this policy and should be raised through the Grievance Procedure.",
    ]),
    ("4. How to raise a concern", [
        "4.1 Concerns may be raised with a line manager, with the Whistleblowing Champion, or through the independent Speak Up hotline, which is available 24 hours a day.",
        "4.2 The Whistleblowing Champion is the Chair of the Audit Committee, a non-executive director.",
        "4.3 Concerns may be raised anonymously through the Speak Up hotline. Anonymous reports are investigated in the same way as named reports, although it may be harder to obtain further information.",
        "4.4 Nothing in this policy prevents a person from reporting directly to the Financial Conduct Authority or the Prudential Regulation Authority.",
    ]),
    ("5. What happens next", [
        "5.1 Every report is acknowledged within 7 days of receipt.",
        "5.2 The Head of Internal Audit decides within 14 days whether an investigation is required, and appoints an investigator who has no connection with the matter.",
        "5.3 The person who raised the concern is told the outcome of the investigation, subject to legal constraints and the confidentiality of others.",
        "5.4 Investigations should normally be completed within three months.",
    ]),
    ("6. Protection and confidentiality", [
        "6.1 The identity of a person who raises a concern is kept confidential and is shared only with those who need it to investigate.",
        "6.2 No one may be dismissed, demoted or otherwise disadvantaged for raising a concern in good faith. Retaliation against a whistleblower is a disciplinary offence.",
        "6.3 A person who knowingly makes a false report may face disciplinary action.",
    ]),
    ("7. Records and oversight", [
        "7.1 Records of every report and investigation are kept for six years after the case is closed.",
        "7.2 The Whistleblowing Champion presents an annual report on the operation of this policy to the Board.",
    ]),
]

INCIDENT = [
    ("1. Scope", [
        "This procedure governs the response to information security incidents affecting Harbour Bank's systems, data or services, whether the incident is suspected or confirmed. It applies to all staff and to third parties who operate systems on the bank's behalf.",
    ]),
    ("2. Roles", [
        "2.1 The Chief Information Security Officer (CISO) owns this procedure and leads the Incident Response Team.",
        "2.2 The Incident Response Team includes representatives of IT Operations, Legal, Communications and the Data Protection Officer.",
        "2.3 The Incident Manager, appointed by the CISO for each incident, coordinates the response and keeps the incident log.",
    ]),
    ("3. Reporting an incident", [
        "3.1 Any member of staff who notices a suspected incident must report it to the IT Service Desk immediately, and in any case within one hour of discovery.",
        "3.2 Staff must not attempt to investigate a suspected incident themselves, and must not switch off an affected computer unless instructed to do so.",
    ]),
    ("4. Severity levels", [
        "Every incident is assigned a severity level when it is logged. The level decides who is informed and how fast.",
        "TABLE",
        "4.1 The severity level is reviewed at least every 24 hours while the incident is open.",
    ]),
    ("5. Containment and evidence", [
        "5.1 Affected systems are isolated from the network as soon as the Incident Manager confirms the incident.",
        "5.2 Evidence such as disk images, memory captures and logs must be preserved with a documented chain of custody, and stored in the forensic evidence vault for at least two years.",
        "5.3 Passwords and keys that may have been exposed must be rotated before the affected systems are reconnected.",
    ]),
    ("6. Notification", [
        "6.1 Where an incident involves personal data, the Data Protection Officer assesses whether it must be notified to the Information Commissioner's Office. A notifiable personal data breach must be reported to the Information Commissioner's Office within 72 hours of the bank becoming aware of it.",
        "6.2 Material operational incidents must be reported to the Financial Conduct Authority without undue delay.",
        "6.3 Customers whose data is affected are informed by the Communications team once Legal has approved the wording.",
    ]),
    ("7. Closure and lessons learned", [
        "7.1 An incident is closed by the CISO once the affected systems are restored and the root cause is understood.",
        "7.2 A post-incident review must be completed within 20 working days of closure for every incident of severity 1 or 2. Its findings are reported to the Operational Risk Committee.",
    ]),
]

SEVERITY = [["Level", "Example", "Inform within"],
            ["1 Critical", "Customer data exfiltrated; payment systems down", "30 minutes: CISO and CEO"],
            ["2 High", "Malware on a server; a privileged account compromised", "2 hours: CISO"],
            ["3 Medium", "Malware on one laptop; a phishing email clicked", "1 business day: Incident Manager"],
            ["4 Low", "Spam; a blocked attack", "Weekly report"]]


def reportlab_pdf(path, title, sections):
    styles = getSampleStyleSheet()
    story = [Paragraph(title, styles["Title"]), Paragraph("Harbour Bank · Procedure IS-07 · Version 3.2", styles["Normal"]), Spacer(1, 12)]
    for heading, body in sections:
        story.append(Paragraph(heading, styles["Heading2"]))
        for item in body:
            if item == "TABLE":
                t = Table(SEVERITY, colWidths=[70, 230, 150])
                t.setStyle(TableStyle([("GRID", (0, 0), (-1, -1), 0.5, colors.grey), ("FONTSIZE", (0, 0), (-1, -1), 8)]))
                story.append(t)
            else:
                story.append(Paragraph(item, styles["BodyText"]))
            story.append(Spacer(1, 4))
    SimpleDocTemplate(str(path), pagesize=A4).build(story)


def main():
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    word(out / "gifts-hospitality-2023.docx", "Gifts and Hospitality Policy (2023)", "Harbour Bank – Internal – Version 2023", GIFTS_2023)
    word(out / "gifts-hospitality-2025.docx", "Gifts and Hospitality Policy (2025)", "Harbour Bank – Internal – Version 2025", GIFTS_2025)
    word(out / "whistleblowing-policy.docx", "Whistleblowing Policy", "Harbour Bank – Internal", WHISTLE)
    reportlab_pdf(out / "incident-response.pdf", "Information Security Incident Response Procedure", INCIDENT)


if __name__ == "__main__":
    main()
