#!/usr/bin/env python3
"""Writes probe 20's documents (README, "Unseen documents"): a records retention schedule whose
Word table runs over three pages without repeating its header row (LibreOffice prints it), an
information security policy of numbered clauses with cross-references and defined terms over
several pages (groff -ms, justified and hyphenated), and two versions of an authentication
standard (groff -ms).
  python3 scripts/probes/records.py OUT   # writes OUT/*.docx and OUT/*.ms
"""
import sys
from pathlib import Path

import docx
from docx.shared import Pt

SCHEDULE = [
    ("Record", "Examples", "Keep for", "Owner", "At the end"),
    ("Board minutes", "Minutes, board packs, written resolutions", "Permanently", "Company Secretary",
     "Transfer to the archive"),
    ("Shareholder register", "Register of members, share transfers", "Permanently", "Company Secretary",
     "Transfer to the archive"),
    ("Annual accounts", "Audited accounts, auditor's letters", "Permanently", "Finance Director",
     "Transfer to the archive"),
    ("Ledgers and journals", "General ledger, purchase and sales ledgers", "Ten years after the year end",
     "Finance Director", "Secure destruction"),
    ("Supplier invoices", "Invoices, credit notes, remittance advices", "Seven years after payment",
     "Accounts Payable Manager", "Secure destruction"),
    ("Expense claims", "Claims, receipts, mileage logs", "Six years after the claim", "Accounts Payable Manager",
     "Secure destruction"),
    ("Bank statements", "Statements, reconciliations", "Seven years after the year end", "Treasury Manager",
     "Secure destruction"),
    ("Tax returns", "Corporate tax and VAT returns with workings", "Ten years after filing", "Tax Manager",
     "Secure destruction"),
    ("Payroll records", "Payslips, tax deductions, pension contributions", "Six years after the tax year",
     "Payroll Manager", "Secure destruction"),
    ("Personnel files", "Contracts, appraisals, disciplinary records", "Six years after employment ends",
     "HR Director", "Secure destruction"),
    ("Recruitment records", "Applications and interview notes of unsuccessful candidates",
     "Six months after the decision", "HR Director", "Deletion"),
    ("Right to work checks", "Copies of passports and visas", "Two years after employment ends",
     "HR Director", "Secure destruction"),
    ("Accident book", "Accident reports, first aid records", "Three years after the entry",
     "Health and Safety Manager", "Review, then destruction"),
    ("Workplace exposure records", "Noise and chemical exposure monitoring", "Forty years after the record",
     "Health and Safety Manager", "Transfer to the archive"),
    ("Customer contracts", "Signed contracts, variations, renewals", "Six years after the contract ends",
     "Legal Counsel", "Review, then destruction"),
    ("Deeds and leases", "Property deeds, leases, licences to occupy", "Twelve years after disposal of the property",
     "Legal Counsel", "Review, then destruction"),
    ("Insurance policies", "Employer's liability certificates and policies", "Forty years after expiry",
     "Risk Manager", "Transfer to the archive"),
    ("Customer complaints", "Complaint files and final responses", "Three years after closure",
     "Customer Service Manager", "Deletion"),
    ("Call recordings", "Recorded calls with customers", "Twelve months after the call",
     "Customer Service Manager", "Automatic deletion"),
    ("Marketing consents", "Opt-in records, preference changes", "Two years after the last contact",
     "Marketing Manager", "Deletion"),
    ("Website logs", "Web server access logs", "Ninety days", "Head of IT Operations", "Automatic deletion"),
    ("Security camera footage", "Recordings of the premises", "Thirty days unless needed for an investigation",
     "Facilities Manager", "Automatic overwrite"),
    ("Visitor logs", "Signing-in sheets, badge issue records", "One year", "Facilities Manager",
     "Secure destruction"),
    ("Backups", "Full and incremental system backups", "Thirty-five days on a rolling basis",
     "Head of IT Operations", "Automatic overwrite"),
    ("Access reviews", "Quarterly user access review evidence", "Three years", "Information Security Manager",
     "Deletion"),
    ("Security incident records", "Incident tickets, investigation reports", "Five years after closure",
     "Information Security Manager", "Review, then destruction"),
    ("Project files", "Plans, status reports, closure reports", "Two years after project closure",
     "Project Sponsor", "Review, then destruction"),
    ("Policies and procedures", "Superseded versions of company policies", "Ten years after withdrawal",
     "Policy Owner", "Transfer to the archive"),
]

SCHEDULE_BEFORE = [
    ("Records Retention Schedule", "Title"),
    ("Applies to every record the company creates or receives, on paper or electronic, wherever it is "
     "held. Owner: Records Manager. Version 4, approved by the Audit Committee in March 2025.", None),
    ("1. How to use this schedule", "Heading 1"),
    ("Find the record in the table of section 2 and keep it for the period shown. A period runs from "
     "the event named in the table; where no event is named it runs from the date the record was "
     "created. The owner of a record decides questions about it and signs off its disposal.", None),
    ("Records not listed are kept for six years and then reviewed by their owner with the Records "
     "Manager, who adds them to the schedule at its next revision.", None),
    ("2. Retention periods", "Heading 1"),
]

SCHEDULE_AFTER = [
    ("3. Disposal", "Heading 1"),
    ("Secure destruction means cross-cut shredding of paper and certified wiping of media by the "
     "approved contractor, who returns a certificate of destruction within ten working days. Deletion "
     "means removal from live systems; copies in backups expire with the backup cycle.", None),
    ("Nothing is destroyed while it is subject to a legal hold (section 4), even after its period has "
     "ended.", None),
    ("4. Legal holds", "Heading 1"),
    ("Legal Counsel places a legal hold when litigation, a regulatory investigation or an audit is "
     "reasonably expected. The hold names the records concerned and suspends their disposal until "
     "Legal Counsel lifts it in writing.", None),
    ("5. Review", "Heading 1"),
    ("The Records Manager reviews this schedule every two years and whenever the law changes a period.",
     None),
]


def schedule_docx(path: Path) -> None:
    d = docx.Document()
    d.styles["Normal"].font.size = Pt(10)
    for text, style in SCHEDULE_BEFORE:
        d.add_paragraph(text, style=style) if style else d.add_paragraph(text)
    table = d.add_table(rows=0, cols=len(SCHEDULE[0]))
    table.style = "Table Grid"
    for i, row in enumerate(SCHEDULE):
        cells = table.add_row().cells
        for c, text in zip(cells, row):
            c.text = text
            if i == 0:
                for run in c.paragraphs[0].runs:
                    run.bold = True
    for text, style in SCHEDULE_AFTER:
        d.add_paragraph(text, style=style) if style else d.add_paragraph(text)
    d.save(str(path))


SECURITY = r""".TL
Information Security Policy
.AU
Approved by the Executive Committee, version 7, January 2026
.NH
Purpose and scope
.PP
This policy sets the rules that protect the confidentiality, integrity and availability of the
company's information. It applies to employees, contractors and anyone else given access to
company systems (together, \fIusers\fP), and to every system the company owns or rents,
including cloud services.
.PP
Where a standard made under this policy sets a stricter rule, the standard applies.
.NH
Definitions
.PP
\fBPrivileged account\fP: an account that can change the configuration of a system, read other
users' data or grant access to others, including administrator, root and service accounts.
.PP
\fBSensitive information\fP: information classified Confidential or Restricted under the
classification scheme of clause 4.1.
.PP
\fBRemovable media\fP: USB drives, memory cards, external disks and any other storage that can be
carried away from a device.
.NH
Roles
.NH 2
Responsibilities
.PP
The Chief Information Security Officer owns this policy, reports on its operation to the Audit
Committee twice a year and approves every exception to it.
.PP
System owners keep an up-to-date list of who has access to their systems and review it as clause
5.3 requires.
.PP
Every user reports a suspected security incident to the service desk straight away and does not
try to investigate it alone.
.NH
Information handling
.NH 2
Classification
.PP
Information is classified Public, Internal, Confidential or Restricted by its owner when it is
created. Unclassified information is treated as Internal.
.NH 2
Sharing outside the company
.PP
Sensitive information is shared outside the company only under a signed non-disclosure agreement
or a contract with confidentiality terms, and only through the approved file transfer service.
Personal email accounts and messaging apps are never used for company information.
.NH 2
Removable media
.PP
Removable media are blocked on company laptops by default. The service desk unblocks a device for
a named user for up to thirty days when their manager approves a business need; the data copied
to it must be encrypted.
.NH
Access control
.NH 2
Granting access
.PP
Access is granted on the principle of least privilege, on a request approved by the user's manager
and the system owner. Shared accounts are not allowed, except service accounts used by software.
.NH 2
Privileged accounts
.PP
A privileged account is separate from the user's everyday account, is protected by multi-factor
authentication and is used only for the tasks that need it. Privileged sessions on production
systems are recorded.
.NH 2
Access reviews
.PP
System owners review access to their systems every quarter, and access to privileged accounts
every month. Access no longer needed is removed within five working days of the review.
.NH 2
Leavers and movers
.PP
A leaver's accounts are disabled by the end of their last working day. When a user moves to a new
role, access the new role does not need is removed within ten working days of the move.
.NH
Operations
.NH 2
Patching
.PP
Security updates rated critical by the vendor are installed within fourteen days of release,
other security updates within sixty days. A system that cannot be patched in time is isolated
from the network or given an exception under clause 7.2.
.NH 2
Logging and monitoring
.PP
Security events of servers, firewalls and cloud services are sent to the central log service,
kept for one year and watched by the security operations team around the clock.
.NH 2
Backups
.PP
Backups of business systems are taken every night, kept as the records retention schedule sets
and restored in a test at least every six months.
.NH
Compliance
.NH 2
Breaches of this policy
.PP
A breach of this policy may lead to disciplinary action up to and including dismissal, and for
contractors to the end of their contract.
.NH 2
Exceptions
.PP
An exception is requested in writing with the risk it creates and the measures that limit it. The
Chief Information Security Officer approves it for at most twelve months; it is then renewed or
closed.
.NH 2
Review
.PP
This policy is reviewed every year by the Chief Information Security Officer.
"""

AUTH = {
    "v1": ("2023", [
        ("Passwords", [
            "A password has at least 10 characters.",
            "Passwords are changed every 90 days and the last 5 passwords cannot be reused.",
            "After 5 failed attempts an account is locked for 15 minutes.",
        ]),
        ("Multi-factor authentication", [
            "Multi-factor authentication is required for remote access to the network.",
            "Codes sent by text message are accepted as a second factor.",
        ]),
        ("Service accounts", [
            "Service account passwords are changed once a year by the system owner.",
        ]),
    ]),
    "v2": ("2025", [
        ("Passwords", [
            "A password has at least 14 characters and may be a passphrase of several words.",
            "Passwords are changed only when there is evidence or suspicion that they are known "
            "to someone else; every new password is checked against a list of breached passwords.",
            "After 10 failed attempts an account is locked for 30 minutes.",
        ]),
        ("Multi-factor authentication", [
            "Multi-factor authentication is required for every company system that can be reached "
            "from the internet and for all privileged accounts.",
            "Codes sent by text message are no longer accepted; users approve sign-ins in the "
            "authenticator app or with a hardware security key.",
        ]),
        ("Service accounts", [
            "Service account secrets are kept in the company vault and rotated automatically "
            "every 30 days.",
        ]),
    ]),
}


def auth_ms(version: str) -> str:
    year, sections = AUTH[version]
    out = [".TL", "Authentication Standard", ".AU",
           f"Version {version[1:]}, {year}. Owner: Information Security", ".PP",
           "This standard sets how users and software prove who they are to company systems. "
           "It is made under the Information Security Policy."]
    for heading, clauses in sections:
        out += [".NH", heading]
        for c in clauses:
            out += [".PP", c]
    return "\n".join(out) + "\n"


def main() -> None:
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    schedule_docx(out / "records-retention-schedule.docx")
    (out / "information-security-policy.ms").write_text(SECURITY)
    for v in AUTH:
        (out / f"authentication-standard-{v}.ms").write_text(auth_ms(v))


if __name__ == "__main__":
    main()
