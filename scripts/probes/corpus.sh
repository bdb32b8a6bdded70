#!/usr/bin/env bash
# Builds the corpora of the unseen-document probes (README, "Unseen documents") from files
# Debian ships: licences printed with enscript | ps2pdf, the shared-MIME-info spec, dpkg's
# triggers spec, the man-db manual, the Debian FAQ and chapter 4 of the Securing Debian Manual
# (typeset with groff -ms from its HTML by html2ms.py), and the Debian Policy Manual with its
# copyright-format and Perl policy documents (from the debian-policy package); probe 7 uses
# probe 6's corpus; probe 8 is a two-column policy with a table, written here
# (northwind-retention.ms, typeset with tbl and groff -ms); probe 9 is company policies written
# by policies.py (Word files turned into PDF by LibreOffice, running headers and "Page N of M"
# footers; one procedure drawn with reportlab); probe 10 a groff -ms expenses policy with running
# headers and two versions of a retention standard printed with enscript (src in probe10-src/);
# probe 11 a services agreement and a data processing addendum written by contracts.py (Word,
# LibreOffice); probe 12 a data protection act in HTML printed by LibreOffice's web export and a
# subject access procedure (Word), written by regulation.py; probe 13 an AML policy, two versions
# of an access control standard and a complaints procedure in HTML and CSS printed by WeasyPrint
# (weasy.py); probe 14 a third-party risk policy and a classification guideline with a table,
# drawn with fpdf2 (suppliers.py); probe 15 an anti-bribery policy and a delegation of authority
# matrix as a Word table (bribery.py, LibreOffice); probe 16 a conflicts of interest policy with
# a table and two versions of a business continuity standard, typeset with reportlab's Platypus
# (continuity.py); probe 17 two versions of a remote working policy and a travel and expenses
# policy, HTML printed by LibreOffice Writer (remote.py); probe 18 a procurement policy with a
# threshold table, a data breach procedure and two versions of a clean desk standard, HTML printed
# by wkhtmltopdf (procurement.py; needs wkhtmltopdf and xvfb-run); probe 19 an incident severity
# standard whose table reportlab's canvas draws column by column, a training policy with a Word
# table (LibreOffice) and a visitor procedure printed by WeasyPrint (escalation.py); probe 20 a
# records retention schedule whose Word table runs over three pages without repeating its
# header (LibreOffice), an information security policy of numbered clauses and two versions of
# an authentication standard typeset with groff -ms (records.py); probe 21 two versions of the
# Debian Constitution (plain text printed by LibreOffice Writer) and the Debian Social Contract
# (enscript), from the doc-debian package; probe 22 the Linux kernel's process documents
# (linux-doc-6.1); probe 23 Django's governance and process documents typeset by LaTeX
# (pandoc, from the Django sdist on PyPI); probe 24 Sphinx's release process and
# organization pages (pandoc to Word, LibreOffice to PDF); probe 25 NumPy's governance document and
# process NEPs typeset by rst2pdf; probe 26 scikit-learn's governance and pytest's policies printed by
# WeasyPrint from pandoc's HTML; probe 27 Matplotlib's policies through pandoc's ms and groff; probe 28
# a code of conduct and a community guide through pandoc, Word and LibreOffice; probes 29 and 30
# ten licences from the npm package spdx-license-list, typeset six ways; probe 31 sections of the
# Debian Administrator's Handbook (groff, LibreOffice); probe 32 Python's licence history and
# Debian's menu sub-policy; probe 33 Twisted's and cryptography's policies; probe 34 SciPy's
# governance, developer guide and toolchain roadmaps typeset by Typst; probe 35 pip's release
# process, vendoring policy (Typst) and issue triage guide (pandoc, LibreOffice); probe 36
# Pillow's versioning and deprecation pages (LaTeX); probes 37 and 38 scikit-image's governance
# (LaTeX in two columns), Code of Conduct manual, core developer guide, code of conduct (two
# columns) and SKIP process; probes 39 to 41 Debian's database application guidelines and dbconfig-common manual,
# its CLI, Java, Emacs and OCaml policies and its brief history, as the Debian packages ship them;
# probe 42 the Debian Python Policy (LibreOffice) and the debconf specification (pandoc's ms, groff);
# probe 43 the autopkgtest specification (pandoc, pdfTeX) and Using APT Offline (WeasyPrint);
# probe 44 the Developer's Reference and the Guide for Debian Maintainers as shipped (pdfTeX, dblatex);
# probe 45 the Debian Linux Kernel Handbook (WeasyPrint) and the Developer's Reference.
# probe 46 the Debian Reference (DBLaTeX, xdvipdfmx) and the Debian Reference Card, as shipped.
# probe 47 the Debian Administrator's Handbook's security chapter and backup section (WeasyPrint).
# probe 48 the Debian Installation Guide for amd64 and for arm64, as shipped (DBLaTeX).
# probe 49 six licences no probe had used, typeset six ways (licences49.py).
# probe 50 four chapters of the Securing Debian Manual probe 5 did not use (harden50.py).
# probe 51 Black's stability policy, release process and contributing guides (myst2md.py).
# probe 52 five licences no probe had used, typeset five ways (licences52.py).
# probe 53 sshd_config(5), login.defs(5) and logrotate(8) as Debian ships them (groff, WeasyPrint).
# probe 54 cryptography's and Twisted's policies from their sdists (wkhtmltopdf, pdfTeX).
# probe 55 pytest's compatibility policy, contributing guide, Tidelift page and code of conduct
# (docutils' LaTeX writer, rst2pdf, LibreOffice).
# probe 56 NetworkX's governance and deprecation policy and SymPy's deprecation policy and
# dependencies page (groff, LibreOffice, WeasyPrint).
# probe 57 Astropy's coding guidelines and maintainer workflow and urllib3's contributing guide
# (pdfTeX, Typst, LibreOffice).
# Needs enscript, ghostscript, groff, shared-mime-info, dpkg-dev's docs and man-db's docs (the packages of a Debian 12 desktop), `apt-get download` of debian-faq,
# harden-doc, debian-policy and doc-debian, and for probes 9 and 11 libreoffice-writer-nogui and the Python
# packages python-docx and reportlab, and for probes 13 and 14 weasyprint and fpdf2.
#   bash scripts/probes/corpus.sh OUT
#   policypal --data-dir D eval scripts/probes/probe1.jsonl --corpus OUT/probe1 --out r.jsonl
#   python3 ../shared/eval/score.py --questions scripts/probes/probe1.jsonl --results r.jsonl --corpus OUT/probe1
set -euo pipefail
out=${1:?usage: corpus.sh OUT}
mkdir -p "$out"/probe1 "$out"/probe2 "$out"/probe3 "$out"/probe3-audits "$out"/probe4 "$out"/probe5 "$out"/probe6 "$out"/probe8 "$out"/probe9 "$out"/probe10 "$out"/probe11 "$out"/probe12 "$out"/probe13 "$out"/probe14 "$out"/probe15 "$out"/probe16 "$out"/probe17 "$out"/probe18 "$out"/probe19 "$out"/probe20
licence() {  # licence NAME DIR: /usr/share/common-licenses/NAME -> DIR/NAME.pdf
  enscript -q -B -f Courier10 -p "/tmp/$1.ps" "/usr/share/common-licenses/$1"
  ps2pdf "/tmp/$1.ps" "$2/$1.pdf"
  rm -f "/tmp/$1.ps"
}
for l in Apache-2.0 MPL-2.0 GPL-3 LGPL-2.1; do licence "$l" "$out/probe1"; done
for l in Apache-2.0 MPL-2.0 GPL-3 LGPL-2.1 GPL-2 LGPL-3 MPL-1.1; do licence "$l" "$out/probe2"; done
cp /usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf "$out/probe3/"
enscript -q -B -f Courier10 -p /tmp/triggers.ps /usr/share/doc/dpkg/spec/triggers.txt
ps2pdf /tmp/triggers.ps "$out/probe3/dpkg-triggers.pdf" && rm -f /tmp/triggers.ps
cp "$out"/probe3/*.pdf "$out/probe3-audits/"
for l in Apache-2.0 MPL-2.0 GPL-3; do cp "$out/probe1/$l.pdf" "$out/probe3-audits/"; done
zcat /usr/share/doc/man-db/man-db-manual.ps.gz > /tmp/man-db-manual.ps
ps2pdf /tmp/man-db-manual.ps "$out/probe4/man-db-manual.pdf" && rm -f /tmp/man-db-manual.ps
cp /usr/share/doc/libtasn1-doc/libtasn1.pdf "$out/probe4/"
here=$(cd "$(dirname "$0")" && pwd)
pypi_sdist() {  # pypi_sdist DIR PROJECT FILE: the sdist FILE of PROJECT from PyPI's simple index into DIR
  local url
  url=$(curl -s "https://pypi.org/simple/$2/" | grep -o "href=\"[^\"]*/$3[^\"]*\"" | head -1 | sed 's/^href="//; s/"$//; s/&amp;/\&/g')
  curl -sL -o "$1/$3" "$url"
}
sdist_unpack() {  # sdist_unpack DIR PROJECT FILE [PATH ...]: FILE of PROJECT fetched into DIR and unpacked there (only the PATHs, when given)
  pypi_sdist "$1" "$2" "$3" && (cd "$1" && tar xzf "$3" "${@:4}")
}
deb_unpack() {  # deb_unpack DIR PACKAGE DEST: PACKAGE's .deb fetched into DIR, unpacked in DEST
  (cd "$1" && apt-get download -q "$2" >/dev/null)
  dpkg -x "$1/$2"_*.deb "$3"
}
html_pdf() {  # html_pdf HTML BASE OUT: HTML (its links and images read from BASE) printed by WeasyPrint
  python3 -c "import sys, weasyprint; weasyprint.HTML(sys.argv[1], base_url=sys.argv[2]).write_pdf(sys.argv[3])" "$1" "$2" "$3"
}
tmp=$(mktemp -d)
deb_unpack "$tmp" debian-faq "$tmp/faq"
gunzip -c "$tmp/faq/usr/share/doc/debian/FAQ/debian-faq.en.pdf.gz" > "$out/probe5/debian-faq.pdf"
deb_unpack "$tmp" harden-doc "$tmp/harden"
html="$tmp/harden/usr/share/doc/harden-doc/html/en-US"
# Chapter 4 ("After installation"): pages 18 to 37 of the manual's reading order.
pages=$(grep -o 'href="[a-z0-9_-]*\.html' "$html/index.html" | sed 's/href="//' | awk '!seen[$0]++' | sed -n 18,37p)
(cd "$html" && python3 "$here/html2ms.py" "Securing Debian Manual: After installation" $pages) > "$tmp/harden.ms"
groff -ms -Tps -k "$tmp/harden.ms" > "$tmp/harden.ps" 2>/dev/null
ps2pdf "$tmp/harden.ps" "$out/probe5/securing-debian.pdf"
deb_unpack "$tmp" debian-policy "$tmp/policy"
doc="$tmp/policy/usr/share/doc/debian-policy"
gunzip -c "$doc/policy.pdf.gz" > "$out/probe6/debian-policy.pdf"
for t in copyright-format-1.0:copyright-format perl-policy:perl-policy; do
  gunzip -c "$doc/${t%%:*}.txt.gz" | iconv -f utf-8 -t latin1//TRANSLIT > "$tmp/t.txt"
  enscript -q -B -f Courier10 -p "$tmp/t.ps" "$tmp/t.txt"
  ps2pdf "$tmp/t.ps" "$out/probe6/${t##*:}.pdf"
done
rm -rf "$tmp"
tbl "$here/northwind-retention.ms" | groff -ms -Tps > /tmp/northwind.ps
ps2pdf /tmp/northwind.ps "$out/probe8/northwind-retention.pdf" && rm -f /tmp/northwind.ps
word_pdfs() {  # word_pdfs SCRIPT DIR: the script's Word files -> DIR/*.pdf
  local w; w=$(mktemp -d)
  python3 "$here/$1" "$w"
  soffice --headless --convert-to pdf --outdir "$2" "$w"/*.docx >/dev/null 2>&1
  find "$w" -maxdepth 1 -name '*.pdf' -exec cp {} "$2/" \;
  rm -rf "$w"
}
word_pdfs policies.py "$out/probe9"
groff -ms -Tps "$here/probe10-src/expenses.ms" > /tmp/expenses.ps 2>/dev/null
ps2pdf /tmp/expenses.ps "$out/probe10/expenses-policy.pdf" && rm -f /tmp/expenses.ps
for v in 1.0 1.1; do
  enscript -q -B -f Courier10 -p /tmp/retention.ps "$here/probe10-src/retention-$v.txt"
  ps2pdf /tmp/retention.ps "$out/probe10/retention-standard-$v.pdf" && rm -f /tmp/retention.ps
done
word_pdfs contracts.py "$out/probe11"
word_pdfs regulation.py "$out/probe12"
w=$(mktemp -d)
python3 "$here/regulation.py" "$w"
soffice --headless --convert-to pdf:writer_web_pdf_Export --outdir "$out/probe12" "$w/data-protection-act.html" >/dev/null 2>&1
rm -rf "$w"
python3 "$here/weasy.py" "$out/probe13"
python3 "$here/suppliers.py" "$out/probe14"
word_pdfs bribery.py "$out/probe15"
python3 "$here/continuity.py" "$out/probe16"
w=$(mktemp -d)
python3 "$here/remote.py" "$w"
soffice --headless --convert-to pdf:writer_pdf_Export --outdir "$out/probe17" "$w"/*.html >/dev/null 2>&1
rm -rf "$w"
w=$(mktemp -d)
python3 "$here/procurement.py" "$w"
for f in "$w"/*.html; do
  xvfb-run -a wkhtmltopdf -q --enable-local-file-access "$f" "$out/probe18/$(basename "$f" .html).pdf" >/dev/null 2>&1
done
rm -rf "$w"
w=$(mktemp -d)
python3 "$here/escalation.py" "$w"
soffice --headless --convert-to pdf --outdir "$out/probe19" "$w"/*.docx >/dev/null 2>&1
cp "$w"/*.pdf "$out/probe19/"
rm -rf "$w"
w=$(mktemp -d)
python3 "$here/records.py" "$w"
soffice --headless --convert-to pdf --outdir "$out/probe20" "$w"/*.docx >/dev/null 2>&1
for f in "$w"/*.ms; do
  groff -ms -Tps "$f" > "$w/t.ps" 2>/dev/null
  ps2pdf "$w/t.ps" "$out/probe20/$(basename "$f" .ms).pdf"
done
rm -rf "$w"
# Probe 21: the Debian Constitution (versions 1.7 and 1.9, plain text printed by LibreOffice
# Writer) and the Debian Social Contract with the DFSG (enscript), all from the doc-debian package.
mkdir -p "$out/probe21"
w=$(mktemp -d)
deb_unpack "$w" doc-debian "$w/x"
d="$w/x/usr/share/doc/debian"
gunzip -c "$d/constitution.1.7.txt.gz" > "$w/constitution-v1.7.txt"
gunzip -c "$d/constitution.txt.gz" > "$w/constitution-v1.9.txt"
soffice --headless --convert-to pdf --outdir "$out/probe21" "$w"/constitution-v1.*.txt >/dev/null 2>&1
gunzip -c "$d/social-contract.txt.gz" | iconv -f utf-8 -t latin1//TRANSLIT > "$w/sc.txt"
enscript -q -B -f Courier10 -p "$w/sc.ps" "$w/sc.txt"
ps2pdf "$w/sc.ps" "$out/probe21/social-contract.pdf"
rm -rf "$w"
# Probe 22: the Linux kernel's process documents from the linux-doc-6.1 package (security bugs,
# stable rules, embargoed hardware issues, regressions, researchers, code of conduct): plain
# reStructuredText printed by LibreOffice Writer or by enscript.
mkdir -p "$out/probe22"
w=$(mktemp -d)
deb_unpack "$w" linux-doc-6.1 "$w/x"
d="$w/x/usr/share/doc/linux-doc-6.1/Documentation"
for f in admin-guide/security-bugs process/stable-kernel-rules process/handling-regressions process/researcher-guidelines; do
  gunzip -c "$d/$f.rst.gz" > "$w/$(basename "$f").txt"
done
soffice --headless --convert-to pdf --outdir "$out/probe22" "$w"/*.txt >/dev/null 2>&1
for f in embargoed-hardware-issues code-of-conduct; do
  gunzip -c "$d/process/$f.rst.gz" | iconv -f utf-8 -t latin1//TRANSLIT | expand > "$w/$f.in"
  enscript -q -B -f Courier10 -p "$w/$f.ps" "$w/$f.in"
  ps2pdf "$w/$f.ps" "$out/probe22/$f.pdf"
done
rm -rf "$w"
# Probe 23: Django's governance and process documents from the Django sdist on PyPI (two
# versions of the organization page, 3.2 and 5.1; the security policies, the release process
# and the committing guidelines of 5.1): Sphinx reStructuredText made plain by sphinx2rst.py,
# typeset by LaTeX (pandoc and pdfTeX). Needs pandoc, texlive-latex-recommended and
# texlive-fonts-recommended.
mkdir -p "$out/probe23"
w=$(mktemp -d)
for v in 5.1.4 3.2.25; do
  (cd "$w" && pip download -q --no-deps --no-binary :all: "django==$v" >/dev/null && tar xzf "Django-$v.tar.gz")
done
new="$w/Django-5.1.4/docs/internals"
for pair in "organization-5.1:$new/organization.txt" "organization-3.2:$w/Django-3.2.25/docs/internals/organization.txt" \
  "security-policies:$new/security.txt" "release-process:$new/release-process.txt" \
  "committing-code:$new/contributing/committing-code.txt"; do
  n=${pair%%:*}
  python3 "$here/sphinx2rst.py" "${pair#*:}" > "$w/$n.rst"
  (cd "$w" && pandoc -f rst "$n.rst" -o "$out/probe23/django-$n.pdf" -V geometry:margin=1in -V papersize=a4 2>/dev/null)
done
rm -rf "$w"
# Probe 24: Sphinx's release process and organization pages from the Sphinx sdist on PyPI,
# made plain by sphinx2rst.py and turned into Word by pandoc, then into PDF by LibreOffice.
mkdir -p "$out/probe24"
w=$(mktemp -d)
(cd "$w" && pip download -q --no-deps --no-binary :all: sphinx==7.2.6 >/dev/null && tar xzf sphinx-7.2.6.tar.gz)
for n in release-process organization; do
  python3 "$here/sphinx2rst.py" "$w/sphinx-7.2.6/doc/internals/$n.rst" > "$w/$n.rst"
  (cd "$w" && pandoc -f rst "$n.rst" -o "sphinx-$n.docx" && soffice --headless --convert-to pdf "sphinx-$n.docx" >/dev/null 2>&1)
  cp "$w/sphinx-$n.pdf" "$out/probe24/"
done
rm -rf "$w"
# Probe 25: NumPy's governance document and process NEPs (0, 23, 46, and NEP 29 from NumPy 1.22
# and 2.1) from the NumPy sdists on PyPI, made plain by sphinx2rst.py and typeset by rst2pdf
# (reportlab; `pip install rst2pdf`). The sdists are fetched by URL from PyPI's simple index:
# `pip download` of a NumPy sdist would build its metadata.
mkdir -p "$out/probe25"
w=$(mktemp -d)
for f in numpy-2.1.3.tar.gz numpy-1.22.4.zip; do
  pypi_sdist "$w" numpy "$f"
done
(cd "$w" && tar xzf numpy-2.1.3.tar.gz numpy-2.1.3/doc && unzip -q numpy-1.22.4.zip 'numpy-1.22.4/doc/neps/*')
new="$w/numpy-2.1.3/doc"
for pair in "numpy-governance:$new/source/dev/governance/governance.rst" "nep0-process:$new/neps/nep-0000.rst" \
  "nep23-backwards-compatibility:$new/neps/nep-0023-backwards-compatibility.rst" \
  "nep46-sponsorship:$new/neps/nep-0046-sponsorship-guidelines.rst" \
  "nep29-v2024:$new/neps/nep-0029-deprecation_policy.rst" \
  "nep29-v2021:$w/numpy-1.22.4/doc/neps/nep-0029-deprecation_policy.rst"; do
  n=${pair%%:*}
  python3 "$here/sphinx2rst.py" "${pair#*:}" > "$w/$n.rst"
  rst2pdf "$w/$n.rst" -o "$out/probe25/$n.pdf" 2>/dev/null
done
rm -rf "$w"
# Probe 26: scikit-learn's governance document (versions 0.24 and 1.5) and pytest's backwards
# compatibility policy, contribution guide (two columns) and Tidelift page, from their sdists on
# PyPI: made plain by sphinx2rst.py, turned into HTML by pandoc and printed by WeasyPrint
# (probe26.css; the contribution guide in two columns).
mkdir -p "$out/probe26"
w=$(mktemp -d)
for pair in scikit-learn:scikit_learn-1.5.2 scikit-learn:scikit-learn-0.24.2 pytest:pytest-8.3.3; do
  sdist_unpack "$w" "${pair%%:*}" "${pair#*:}.tar.gz"
done
for spec in "sklearn-governance-1.5:scikit_learn-1.5.2/doc/governance.rst:Scikit-learn governance (version 1.5):plain" \
  "sklearn-governance-0.24:scikit-learn-0.24.2/doc/governance.rst:Scikit-learn governance (version 0.24):plain" \
  "pytest-backwards-compatibility:pytest-8.3.3/doc/en/backwards-compatibility.rst:pytest backwards compatibility policy:plain" \
  "pytest-contributing:pytest-8.3.3/CONTRIBUTING.rst:Contribution getting started:twocol" \
  "pytest-tidelift:pytest-8.3.3/TIDELIFT.rst:pytest and Tidelift:plain"; do
  IFS=: read -r n src title css <<< "$spec"
  python3 "$here/sphinx2rst.py" "$w/$src" > "$w/$n.rst"
  { printf '<!DOCTYPE html><html><head><meta charset="utf-8"><title>%s</title></head><body><h1>%s</h1>\n' "$title" "$title"
    pandoc -f rst -t html5 "$w/$n.rst" 2>/dev/null
    printf '</body></html>\n'; } > "$w/$n.html"
  weasyprint -s "$here/probe26-$css.css" "$w/$n.html" "$out/probe26/$n.pdf" 2>/dev/null
done
rm -rf "$w"
# Probe 27: Matplotlib's dependency version policy and API guidelines from the Matplotlib sdist
# on PyPI, made plain by sphinx2rst.py, written as ms by pandoc and typeset by groff -t -ms.
mkdir -p "$out/probe27"
w=$(mktemp -d)
sdist_unpack "$w" matplotlib matplotlib-3.9.2.tar.gz matplotlib-3.9.2/doc/devel
for pair in mpl-dependency-policy:min_dep_policy mpl-api-guidelines:api_changes; do
  n=${pair%%:*}
  python3 "$here/sphinx2rst.py" "$w/matplotlib-3.9.2/doc/devel/${pair#*:}.rst" | grep -v '^\.\. \(toctree\|redirect-from\)::' > "$w/$n.rst"
  pandoc -f rst -t ms -s "$w/$n.rst" -o "$w/$n.ms" 2>/dev/null
  groff -t -ms -Tps -k "$w/$n.ms" 2>/dev/null > "$w/$n.ps"
  ps2pdf "$w/$n.ps" "$out/probe27/$n.pdf"
done
rm -rf "$w"
# Probe 28: pytest's code of conduct (Markdown) and Matplotlib's community management guide,
# through pandoc to Word and LibreOffice to PDF.
mkdir -p "$out/probe28"
w=$(mktemp -d)
for pair in pytest:pytest-8.3.3 matplotlib:matplotlib-3.9.2; do
  sdist_unpack "$w" "${pair%%:*}" "${pair#*:}.tar.gz"
done
pandoc -f gfm "$w/pytest-8.3.3/CODE_OF_CONDUCT.md" -o "$w/pytest-code-of-conduct.docx"
python3 "$here/sphinx2rst.py" "$w/matplotlib-3.9.2/doc/devel/communication_guide.rst" > "$w/mpl-community-guide.rst"
pandoc -f rst "$w/mpl-community-guide.rst" -o "$w/mpl-community-guide.docx" 2>/dev/null
(cd "$w" && soffice --headless --convert-to pdf pytest-code-of-conduct.docx mpl-community-guide.docx >/dev/null 2>&1)
cp "$w/pytest-code-of-conduct.pdf" "$w/mpl-community-guide.pdf" "$out/probe28/"
rm -rf "$w"

# Probes 29 and 30: licences from the npm package spdx-license-list (6.12.0), written out by
# licences.py. Probe 29: EPL 1.0 and 2.0 (plain text through LibreOffice Writer), CDDL 1.0 and
# EUPL 1.2 (WeasyPrint), CC BY 4.0, Elastic 2.0 and BUSL 1.1 (pandoc and LaTeX). Probe 30:
# ODbL 1.0 (pandoc's ms, groff), APSL 2.0 (folded, enscript) and OSL 3.0 (WeasyPrint, two
# columns). Needs npm.
mkdir -p "$out/probe29" "$out/probe30"
w=$(mktemp -d)
(cd "$w" && npm pack -q spdx-license-list@6.12.0 >/dev/null 2>&1 && tar xzf spdx-license-list-6.12.0.tgz)
python3 "$here/licences.py" "$w/package/spdx-full.json" "$w"
(cd "$w" && soffice --headless --convert-to pdf:writer_pdf_Export --outdir "$out/probe29" EPL-1.0.txt EPL-2.0.txt >/dev/null 2>&1)
weasy() {  # weasy HTML PDF CSS
  python3 -c "import sys, weasyprint; weasyprint.HTML(sys.argv[1]).write_pdf(sys.argv[2], stylesheets=[weasyprint.CSS(string=sys.argv[3])])" "$1" "$2" "$3"
}
for k in CDDL-1.0 EUPL-1.2; do
  weasy "$w/$k.html" "$out/probe29/$k.pdf" '@page{size:A4;margin:2cm;@bottom-center{content:counter(page)}} body{font-family:serif;font-size:10.5pt;text-align:justify} p{margin:0 0 .4em 0}'
done
for k in CC-BY-4.0 Elastic-2.0 BUSL-1.1; do
  pandoc "$w/$k.html" -o "$out/probe29/$k.pdf" -V geometry:margin=2.5cm 2>/dev/null
done
pandoc -f markdown "$w/ODbL-1.0.md" -s -t ms -o "$w/odbl.ms"
groff -ms -Tps -k "$w/odbl.ms" > "$w/odbl.ps" 2>/dev/null
ps2pdf "$w/odbl.ps" "$out/probe30/ODbL-1.0.pdf"
fold -s -w 92 "$w/APSL-2.0.txt" | iconv -f utf-8 -t latin1//TRANSLIT > "$w/apsl.txt"
enscript -q -B -f Courier10 -p "$w/apsl.ps" "$w/apsl.txt"
ps2pdf "$w/apsl.ps" "$out/probe30/APSL-2.0.pdf"
weasy "$w/OSL-3.0.html" "$out/probe30/OSL-3.0.pdf" '@page{size:A4;margin:1.8cm;@bottom-right{content:"Page " counter(page)}} body{font-family:sans-serif;font-size:9.5pt;column-count:2;column-gap:1cm} p{margin:0 0 .5em 0}'
rm -rf "$w"

# Probe 31: the Debian Administrator's Handbook (debian-handbook package): the sections on the
# foundation documents, the project's internal workings and the release lifecycle, typeset
# with groff -ms from their HTML by html2ms.py, and the chapters on security policy, dealing
# with a compromised machine and backups, HTML printed by LibreOffice's web export.
mkdir -p "$out/probe31"
w=$(mktemp -d)
deb_unpack "$w" debian-handbook "$w/x"
html="$w/x/usr/share/doc/debian-handbook/html/en-US"
(cd "$html" && python3 "$here/html2ms.py" "The Debian Project" sect.foundation-documents.html sect.debian-internals.html sect.release-lifecycle.html) > "$w/project.ms"
groff -ms -Tps -k "$w/project.ms" > "$w/project.ps" 2>/dev/null
ps2pdf "$w/project.ps" "$out/probe31/debian-project.pdf"
python3 - "$html" "$w/security-and-backup.html" <<'PY'
import re, sys
parts = []
for name in ("security.html", "sect.dealing-with-compromised-machine.html", "sect.backup.html"):
    page = open(f"{sys.argv[1]}/{name}", encoding="utf-8").read()
    body = re.search(r"<body[^>]*>(.*)</body>", page, re.S).group(1)
    body = re.sub(r'<ul class="docnav[^"]*".*?</ul>', "", body, flags=re.S)
    body = re.sub(r'<div id="banner".*?</div>', "", body, flags=re.S)
    body = re.sub(r'<div class="toc".*?</div>\s*</div>', "", body, flags=re.S)
    parts.append(re.sub(r"<img[^>]*>", "", body))
style = "body{font-family:serif;font-size:11pt} pre{font-size:8pt}"
with open(sys.argv[2], "w", encoding="utf-8") as f:
    f.write(f'<html><head><meta charset="utf-8"><title>Security and backup</title><style>{style}</style></head><body>'
            + "\n".join(parts) + "</body></html>")
PY
(cd "$w" && soffice --headless --convert-to pdf:writer_web_pdf_Export security-and-backup.html >/dev/null 2>&1)
cp "$w/security-and-backup.pdf" "$out/probe31/"
rm -rf "$w"

# Probe 32: Python's "History and License" page (python3.11-doc), its HTML printed by
# WeasyPrint with the release table, and Debian's menu sub-policy (debian-policy), printed by
# enscript.
mkdir -p "$out/probe32"
w=$(mktemp -d)
deb_unpack "$w" python3.11-doc "$w/py"
deb_unpack "$w" debian-policy "$w/pol"
python3 - "$w/py/usr/share/doc/python3.11/html/license.html" "$out/probe32/python-license.pdf" <<'PY'
import re, sys, weasyprint
page = open(sys.argv[1], encoding="utf-8").read()
body = re.search(r'<div class="body" role="main">(.*?)<div class="sphinxsidebar"', page, re.S).group(1)
body = re.sub(r'<a class="headerlink"[^>]*>.*?</a>', "", body, flags=re.S)
css = ("@page{size:A4;margin:2cm;@bottom-center{content:counter(page)}} body{font-family:serif;font-size:10pt}"
       " pre{font-size:8pt;white-space:pre-wrap} table{border-collapse:collapse} td,th{border:1px solid #888;padding:2px 6px}"
       " h1{font-size:16pt} h2{font-size:13pt} h3{font-size:11pt}")
html = f'<html><head><meta charset="utf-8"><title>History and License</title></head><body>{body}</body></html>'
weasyprint.HTML(string=html).write_pdf(sys.argv[2], stylesheets=[weasyprint.CSS(string=css)])
PY
zcat "$w/pol/usr/share/doc/debian-policy/menu-policy.txt.gz" | iconv -f utf-8 -t latin1//TRANSLIT > "$w/menu.txt"
enscript -q -B -f Courier10 -p "$w/menu.ps" "$w/menu.txt"
ps2pdf "$w/menu.ps" "$out/probe32/menu-policy.pdf"
rm -rf "$w"

# Probe 33: Twisted's compatibility policy and review process (LaTeX through pandoc) and
# cryptography's API stability and security pages (pandoc's HTML, WeasyPrint), from their
# sdists on PyPI, made plain by sphinx2rst.py.
mkdir -p "$out/probe33"
w=$(mktemp -d)
for pair in twisted:twisted-24.7.0 cryptography:cryptography-43.0.1; do
  sdist_unpack "$w" "${pair%%:*}" "${pair#*:}.tar.gz"
done
tw="$w/twisted-24.7.0/docs/development"
python3 "$here/sphinx2rst.py" "$tw/compatibility-policy.rst" > "$w/tw-compat.rst"
python3 "$here/sphinx2rst.py" "$tw/review-process.rst" > "$w/tw-review.rst"
pandoc -f rst "$w/tw-compat.rst" -o "$out/probe33/twisted-compatibility-policy.pdf" -V geometry:margin=2.5cm 2>/dev/null
pandoc -f rst "$w/tw-review.rst" -o "$out/probe33/twisted-review-process.pdf" -V geometry:margin=2.5cm 2>/dev/null
for d in api-stability security; do
  python3 "$here/sphinx2rst.py" "$w/cryptography-43.0.1/docs/$d.rst"
done > "$w/cr.rst"
pandoc -f rst "$w/cr.rst" -s -o "$w/cr.html" --metadata title="cryptography: API stability and security" 2>/dev/null
python3 -c "import sys, weasyprint; weasyprint.HTML(sys.argv[1]).write_pdf(sys.argv[2], stylesheets=[weasyprint.CSS(string='@page{size:Letter;margin:2.2cm} body{font-family:sans-serif;font-size:10pt;max-width:none}')])" "$w/cr.html" "$out/probe33/cryptography-stability-security.pdf"
rm -rf "$w"

# Probe 34: SciPy's governance, core developer guide and two versions of its toolchain roadmap
# (1.9 and 1.14, with their version tables), from the SciPy sdists on PyPI, made plain by
# sphinx2rst.py and typeset by Typst (pandoc 3's Typst writer): PyPI's `pypandoc_binary` ships
# that pandoc and `typst` the compiler (`pip install pypandoc_binary typst`).
mkdir -p "$out/probe34"
w=$(mktemp -d)
for v in 1.9.3 1.14.1; do
  sdist_unpack "$w" scipy "scipy-$v.tar.gz" "scipy-$v/doc/source/dev"
done
pandoc3=$(python3 -c "import pypandoc; print(pypandoc.get_pandoc_path())")
typeset() {  # typeset RST PDF: reStructuredText through pandoc's Typst writer and Typst
  "$pandoc3" -f rst -t typst -s "$1" -o "${1%.rst}.typ"
  python3 -c "import sys, typst; typst.compile(sys.argv[1], output=sys.argv[2])" "${1%.rst}.typ" "$2"
}
dev="$w/scipy-1.14.1/doc/source/dev"
python3 "$here/sphinx2rst.py" "$dev/governance.rst" > "$w/governance.rst"
typeset "$w/governance.rst" "$out/probe34/scipy-governance.pdf"
head -6 "$dev/core-dev/index.rst" > "$w/coredev.rst"
for part in decisions newfeatures licensing versioning deprecations vendored-code releasing; do
  echo >> "$w/coredev.rst"
  python3 "$here/sphinx2rst.py" "$dev/core-dev/$part.rst.inc" >> "$w/coredev.rst"
done
typeset "$w/coredev.rst" "$out/probe34/scipy-core-developer-guide.pdf"
for v in 1.9.3:1.9 1.14.1:1.14; do
  python3 "$here/sphinx2rst.py" "$w/scipy-${v%%:*}/doc/source/dev/toolchain.rst" > "$w/toolchain-${v##*:}.rst"
  typeset "$w/toolchain-${v##*:}.rst" "$out/probe34/scipy-toolchain-roadmap-${v##*:}.pdf"
done
rm -rf "$w"

# Probe 35: pip's release process (Typst) and vendoring policy (Typst) and its issue triage
# guide (Markdown through pandoc 3 to Word, LibreOffice to PDF), from the pip sdist on PyPI.
mkdir -p "$out/probe35"
w=$(mktemp -d)
sdist_unpack "$w" pip pip-24.2.tar.gz pip-24.2/docs/html/development pip-24.2/src/pip/_vendor/README.rst
python3 "$here/sphinx2rst.py" "$w/pip-24.2/docs/html/development/release-process.rst" > "$w/release.rst"
typeset "$w/release.rst" "$out/probe35/pip-release-process.pdf"
python3 "$here/sphinx2rst.py" "$w/pip-24.2/src/pip/_vendor/README.rst" > "$w/vendoring.rst"
typeset "$w/vendoring.rst" "$out/probe35/pip-vendoring-policy.pdf"
"$pandoc3" -f gfm "$w/pip-24.2/docs/html/development/issue-triage.md" -o "$w/pip-issue-triage.docx"
(cd "$w" && soffice --headless --convert-to pdf pip-issue-triage.docx > /dev/null 2>&1)
cp "$w/pip-issue-triage.pdf" "$out/probe35/"
rm -rf "$w"

# Probe 36 (written after the stop's last fix, scored only): Pillow's "About", versioning and
# deprecations pages from its sdist on PyPI, typeset by LaTeX through pandoc.
mkdir -p "$out/probe36"
w=$(mktemp -d)
sdist_unpack "$w" pillow pillow-11.0.0.tar.gz pillow-11.0.0/docs/about.rst pillow-11.0.0/docs/releasenotes/versioning.rst pillow-11.0.0/docs/deprecations.rst
for page in about releasenotes/versioning deprecations; do
  python3 "$here/sphinx2rst.py" "$w/pillow-11.0.0/docs/$page.rst"
  echo
done > "$w/pillow.rst"
pandoc -f rst "$w/pillow.rst" -o "$out/probe36/pillow-project-policies.pdf" -V geometry:margin=2.5cm 2>/dev/null
rm -rf "$w"

# Probes 37 and 38: scikit-image's governance (SKIP 1), Code of Conduct report-handling manual,
# core developer guide, code of conduct and SKIP process (SKIP 0), from its sdist on PyPI.
# Probe 37: the governance document typeset by LaTeX in two columns with 2 cm margins (pandoc,
# `twocolumn`: the columns share their baselines and poppler's reading order runs across
# them), the manual through pandoc to Word and LibreOffice, the guide (MyST Markdown) by LaTeX.
# Probe 38 (written after probe 37's fixes, scored only): the code of conduct by LaTeX in two
# columns on A4 at 11 points, SKIP 0 through pandoc's HTML and WeasyPrint.
mkdir -p "$out/probe37" "$out/probe38"
w=$(mktemp -d)
s=scikit_image-0.25.2/doc/source
sdist_unpack "$w" scikit-image scikit_image-0.25.2.tar.gz "$s/skips" "$s/about" "$s/development"
myst() {  # myst MD: MyST Markdown made plain (roles to their text, labels dropped)
  sed -E 's/\{(doc|ref)\}`([^`<]*)(<[^`]*>)?`/\2/g; s/^\([a-z_:-]+\)=$//' "$1"
}
python3 "$here/sphinx2rst.py" "$w/$s/skips/1-governance.rst" > "$w/governance.rst"
pandoc -f rst "$w/governance.rst" -o "$out/probe37/skimage-governance.pdf" -V classoption=twocolumn -V geometry:margin=2cm
python3 "$here/sphinx2rst.py" "$w/$s/about/report_handling_manual.rst" > "$w/coc.rst"
pandoc -f rst "$w/coc.rst" -o "$w/skimage-coc-report-handling.docx"
(cd "$w" && soffice --headless --convert-to pdf skimage-coc-report-handling.docx > /dev/null 2>&1)
cp "$w/skimage-coc-report-handling.pdf" "$out/probe37/"
myst "$w/$s/development/core_developer.md" > "$w/cored.md"
pandoc -f markdown "$w/cored.md" -o "$out/probe37/skimage-core-developer-guide.pdf" -V fontsize=11pt -V geometry:margin=2.5cm
myst "$w/$s/about/code_of_conduct.md" > "$w/conduct.md"
pandoc -f markdown "$w/conduct.md" -o "$out/probe38/skimage-code-of-conduct.pdf" -V classoption=twocolumn -V fontsize=11pt -V papersize=a4
python3 "$here/sphinx2rst.py" "$w/$s/skips/0-skip-process.rst" > "$w/skip0.rst"
pandoc -f rst "$w/skip0.rst" -s -o "$w/skip0.html" 2>/dev/null
python3 -c "import sys, weasyprint; weasyprint.HTML(sys.argv[1]).write_pdf(sys.argv[2])" "$w/skip0.html" "$out/probe38/skimage-skip-process.pdf"
rm -rf "$w"

# Probes 39, 40 and 41: Debian's sub-policies and history as their packages ship them (Debian
# 12: debian-history 2.28, dbconfig-common 2.0.24, cli-common 0.10+nmu1, java-policy 0.57,
# emacsen-common 3.0.5, dh-ocaml 1.1.3). Probe 39: the packages' own PDFs — A Brief History of Debian
# (DBLaTeX), the database application packaging guidelines and the CLI policy (pdfTeX).
# Probe 40 (written after probe 39's fixes, scored with the stop's start build first): the Java
# policy's HTML chapters printed by wkhtmltopdf, the Emacs policy's plain text by LibreOffice
# Writer, and the CLI policy again. Probe 41 (written after every fix of the stop, scored
# only): dbconfig-common's manual (its own PDF) and the OCaml packaging policy's HTML printed
# by WeasyPrint.
mkdir -p "$out/probe39" "$out/probe40" "$out/probe41"
w=$(mktemp -d)
for p in debian-history dbconfig-common cli-common java-policy emacsen-common dh-ocaml; do
  deb_unpack "$w" "$p" "$w/$p"
done
d=usr/share/doc
cp "$w/debian-history/$d/debian-history/docs/project-history.en.pdf" "$out/probe39/debian-history.pdf"
gunzip -c "$w/dbconfig-common/$d/dbconfig-common/dbapp-policy.pdf.gz" > "$out/probe39/dbapp-policy.pdf"
gunzip -c "$w/cli-common/$d/cli-common/cli-policy.pdf.gz" > "$out/probe39/cli-policy.pdf"
cp "$out/probe39/cli-policy.pdf" "$out/probe40/"
j="$w/java-policy/$d/java-policy/debian-java-policy"
cat "$j/index.html" "$j/ch01.html" "$j/ch02.html" "$j/ch03.html" "$j/ch04.html" > "$w/java.html"
xvfb-run -a wkhtmltopdf -q "$w/java.html" "$out/probe40/debian-java-policy.pdf" 2>/dev/null || true
gunzip -c "$w/emacsen-common/$d/emacsen-common/debian-emacs-policy.gz" > "$w/debian-emacs-policy.txt"
(cd "$w" && soffice --headless --convert-to pdf debian-emacs-policy.txt > /dev/null 2>&1)
cp "$w/debian-emacs-policy.pdf" "$out/probe40/"
gunzip -c "$w/dbconfig-common/$d/dbconfig-common/dbconfig-common.pdf.gz" > "$out/probe41/dbconfig-common.pdf"
python3 -c "import sys, weasyprint; weasyprint.HTML(sys.argv[1]).write_pdf(sys.argv[2])" \
  "$w/dh-ocaml/$d/dh-ocaml/ocaml_packaging_policy.html" "$out/probe41/ocaml-packaging-policy.pdf"
rm -rf "$w"
# Probe 42 (stop 46): the Debian Python Policy (python3-dev's HTML printed by LibreOffice
# Writer/Web), the debconf configuration management specification (debian-policy's HTML
# through pandoc's ms and groff, with tbl tables) and the CLI policy of probe 39.
mkdir -p "$out/probe42"
w=$(mktemp -d)
for p in python3-dev debian-policy; do
  deb_unpack "$w" "$p" "$w/$p"
done
cp "$w/python3-dev/usr/share/doc/python3/python-policy.html" "$w/"
(cd "$w" && soffice --headless --convert-to pdf:writer_web_pdf_Export python-policy.html > /dev/null 2>&1)
cp "$w/python-policy.pdf" "$out/probe42/"
pandoc -f html -t ms -s "$w/debian-policy/usr/share/doc/debian-policy/debconf_specification.html" -o "$w/debconf.ms"
groff -ms -t -Tps -k "$w/debconf.ms" > "$w/debconf.ps" 2>/dev/null
ps2pdf "$w/debconf.ps" "$out/probe42/debconf-specification.pdf"
cp "$out/probe39/cli-policy.pdf" "$out/probe42/"
# Probe 43 (stop 46, written after every fix of the stop, scored only): the autopkgtest
# specification (debian-policy's Markdown through pandoc and pdfTeX), Using APT Offline
# (apt-doc's HTML chapters printed by WeasyPrint) and the debconf specification of probe 42.
mkdir -p "$out/probe43"
deb_unpack "$w" apt-doc "$w/apt-doc"
gunzip -c "$w/debian-policy/usr/share/doc/debian-policy/autopkgtest.txt.gz" > "$w/autopkgtest.md"
pandoc -f markdown "$w/autopkgtest.md" -o "$out/probe43/autopkgtest.pdf" -V geometry:margin=2.5cm
o="$w/apt-doc/usr/share/doc/apt-doc/offline.html"
cat "$o/index.html" "$o/ch1.html" "$o/ch2.html" "$o/ch3.html" > "$w/apt-offline.html"
html_pdf "$w/apt-offline.html" "$o" "$out/probe43/apt-offline.pdf"
cp "$out/probe42/debconf-specification.pdf" "$out/probe43/"
rm -rf "$w"
# Probe 44 (stop 47): two long manuals as Debian ships them, printed by their own tool chains:
# the Debian Developer's Reference (developers-reference, Sphinx and pdfTeX, 114 pages) and the
# Guide for Debian Maintainers (debmake-doc, DocBook through dblatex, 143 pages).
mkdir -p "$out/probe44"
w=$(mktemp -d)
for p in developers-reference debmake-doc; do
  deb_unpack "$w" "$p" "$w/$p"
done
cp "$w/developers-reference/usr/share/developers-reference/developers-reference.pdf" "$out/probe44/"
cp "$w/debmake-doc/usr/share/doc/debmake-doc/debmake-doc.en.pdf" "$out/probe44/debmake-guide.pdf"
rm -rf "$w"
# Probe 45 (stop 47, written after every fix of the stop, scored only): the Debian Linux Kernel
# Handbook (debian-kernel-handbook's HTML chapters printed by WeasyPrint) and the Developer's
# Reference of probe 44.
mkdir -p "$out/probe45"
w=$(mktemp -d)
deb_unpack "$w" debian-kernel-handbook "$w/kh"
h="$w/kh/usr/share/doc/debian-kernel-handbook/kernel-handbook.html"
for c in index ch-scope ch-source ch-versions ch-common-tasks ch-bugs ch-update-hooks ch-packaging; do
  cat "$h/$c.html"
done > "$w/kernel-handbook.html"
html_pdf "$w/kernel-handbook.html" "$h" "$out/probe45/kernel-handbook.pdf"
cp "$out/probe44/developers-reference.pdf" "$out/probe45/"
rm -rf "$w"
# Probe 46 (stop 48): the Debian Reference as Debian ships it (debian-reference-en's PDF,
# DBLaTeX and xdvipdfmx, 261 pages of prose and tables) and the Debian Reference Card
# (debian-refcard's two-page A4 card, set in columns).
mkdir -p "$out/probe46"
w=$(mktemp -d)
for p in debian-reference-en debian-refcard; do
  deb_unpack "$w" "$p" "$w/$p"
done
cp "$w/debian-reference-en/usr/share/debian-reference/debian-reference.en.pdf" "$out/probe46/debian-reference.pdf"
gunzip -c "$w/debian-refcard/usr/share/doc/debian-refcard/refcard-en-a4.pdf.gz" > "$out/probe46/debian-refcard.pdf"
rm -rf "$w"
# Probe 47 (stop 48, written after every change of the stop, scored only): the security chapter
# and the backup section of the Debian Administrator's Handbook (debian-handbook's HTML pages
# printed by WeasyPrint).
mkdir -p "$out/probe47"
w=$(mktemp -d)
deb_unpack "$w" debian-handbook "$w/hb"
h="$w/hb/usr/share/doc/debian-handbook/html/en-US"
for c in security sect.firewall-packet-filtering sect.supervision sect.other-security-considerations sect.dealing-with-compromised-machine; do
  cat "$h/$c.html"
done > "$w/handbook-security.html"
cp "$h/sect.backup.html" "$w/handbook-backup.html"
for d in handbook-security handbook-backup; do
  html_pdf "$w/$d.html" "$h" "$out/probe47/$d.pdf"
done
rm -rf "$w"
# Probe 48 (stop 49, written after the stop's first change and scored with the start build
# and that change): the Debian Installation Guide for amd64 and for arm64 as
# installation-guide-amd64/-arm64 ship them (DBLaTeX and xdvipdfmx, 113 and 106 pages).
mkdir -p "$out/probe48"
w=$(mktemp -d)
for a in amd64 arm64; do
  deb_unpack "$w" "installation-guide-$a" "$w/$a"
  gunzip -c "$w/$a/usr/share/doc/installation-guide-$a/en/install.en.pdf.gz" > "$out/probe48/install-$a.pdf"
done
rm -rf "$w"

# Probe 49 (stop 50, written before the stop's first change and scored with the start build):
# six licences from the npm package spdx-license-list (6.12.0) that no probe had used, written
# out by licences49.py and typeset six ways: the Cryptographic Autonomy License 1.0 (pandoc to
# HTML, wkhtmltopdf), the LaTeX Project Public License 1.3c (Typst), the Server Side Public
# License 1.0 (WeasyPrint, Letter), CC BY-SA 4.0 and CeCILL 2.1 (python-docx, LibreOffice) and
# the Artistic License 2.0 (enscript). Needs npm, pandoc, wkhtmltopdf and xvfb-run, the typst,
# weasyprint and python-docx Python packages, LibreOffice, enscript and ghostscript.
mkdir -p "$out/probe49"
w=$(mktemp -d)
(cd "$w" && npm pack -q spdx-license-list@6.12.0 >/dev/null 2>&1 && tar xzf spdx-license-list-6.12.0.tgz)
python3 "$here/licences49.py" "$w/package/spdx-full.json" "$w"
pandoc -f markdown "$w/CAL-1.0.md" -s -o "$w/CAL-1.0.html" --metadata title="Cryptographic Autonomy License 1.0" 2>/dev/null
xvfb-run -a wkhtmltopdf -q "$w/CAL-1.0.html" "$out/probe49/CAL-1.0.pdf" 2>/dev/null || true
python3 -c "import sys, typst; typst.compile(sys.argv[1], output=sys.argv[2])" "$w/LPPL-1.3c.typ" "$out/probe49/LPPL-1.3c.pdf"
weasy "$w/SSPL-1.0.html" "$out/probe49/SSPL-1.0.pdf" '@page{size:letter;margin:2.2cm;@bottom-center{content:"- " counter(page) " -"}} body{font-family:sans-serif;font-size:10pt} p{margin:0 0 .6em 0}'
(cd "$w" && soffice --headless --convert-to pdf --outdir "$out/probe49" CC-BY-SA-4.0.docx CECILL-2.1.docx >/dev/null 2>&1)
enscript -q -B -f Times-Roman11 -p "$w/artistic.ps" "$w/Artistic-2.0.txt"
ps2pdf "$w/artistic.ps" "$out/probe49/Artistic-2.0.pdf"
rm -rf "$w"

# Probe 50 (stop 50, written after the stop's first audit and summary changes and scored with
# the start build and with them): chapters of the Securing Debian Manual (harden-doc) that probe 5
# did not use, joined by harden50.py: chapters 7 and 12 (the security infrastructure and the FAQ)
# through pandoc and LaTeX, chapters 3 and 11 (before the installation, after a compromise)
# through LibreOffice Writer's web export.
mkdir -p "$out/probe50"
w=$(mktemp -d)
deb_unpack "$w" harden-doc "$w/hd"
h="$w/hd/usr/share/doc/harden-doc/html/en-US"
(cd "$h" && python3 "$here/harden50.py" "Securing Debian Manual: Debian Security Infrastructure and FAQ" \
  ch07.html dsa.html ch07s03.html ch07s04.html deb-pack-sign.html ch12.html ch12s02.html debian-sec-team-faq.html) > "$w/infra.html"
(cd "$h" && python3 "$here/harden50.py" "Securing Debian Manual: Before installation and after a compromise" \
  ch03.html ch03s02.html ch03s03.html ch03s04.html ch03s05.html ch03s06.html ch03s07.html \
  after-compromise.html ch11s02.html ch11s03.html ch11s04.html ch11s05.html) > "$w/w.html"
pandoc -f html "$w/infra.html" -o "$out/probe50/securing-debian-infrastructure.pdf" -V geometry:margin=2.3cm -V fontsize=11pt 2>/dev/null
(cd "$w" && soffice --headless --convert-to pdf:writer_web_pdf_Export --outdir "$w" w.html >/dev/null 2>&1)
mv "$w/w.pdf" "$out/probe50/securing-debian-install-incident.pdf"
rm -rf "$w"

# Probe 51 (stop 50, written after the stop's audit and summary changes up to probe 50's and
# scored with the start build and with them): Black's stability policy, release process and
# change-gauging guide (groff -ms and tbl, from pandoc's ms) and its issue triage and
# contributing guide (wkhtmltopdf, Letter), from the black 24.10.0 sdist on PyPI, the MyST
# Markdown turned into Markdown by myst2md.py. Needs pandoc, groff, ghostscript, wkhtmltopdf and
# xvfb-run.
mkdir -p "$out/probe51"
w=$(mktemp -d)
sdist_unpack "$w" black black-24.10.0.tar.gz
d="$w/black-24.10.0/docs"
python3 "$here/myst2md.py" "$d/the_black_code_style/index.md" "$d/contributing/release_process.md" \
  "$d/contributing/gauging_changes.md" > "$w/stab.md"
python3 "$here/myst2md.py" "$d/contributing/issue_triage.md" "$d/contributing/the_basics.md" > "$w/triage.md"
pandoc -f markdown "$w/stab.md" -s -t ms -o "$w/stab.ms" --metadata title="Black: stability policy and release process" 2>/dev/null
groff -t -ms -Tps -k "$w/stab.ms" > "$w/stab.ps" 2>/dev/null
ps2pdf "$w/stab.ps" "$out/probe51/black-stability-release.pdf"
pandoc -f markdown "$w/triage.md" -s -o "$w/triage.html" --metadata title="Black: issue triage and contributing basics" 2>/dev/null
xvfb-run -a wkhtmltopdf -q -s Letter "$w/triage.html" "$out/probe51/black-triage-contributing.pdf" 2>/dev/null || true
rm -rf "$w"

# Probe 52 (stop 51, written before the stop's first change and scored with the start build):
# five licences from the npm package spdx-license-list (6.12.0) that no probe had used, written
# out by licences52.py and typeset five ways: the PolyForm Small Business License 1.0.0 (pandoc
# and pdfTeX), the Hippocratic License 2.1 (pandoc's ms, groff), the Open Government Licence
# v3.0 (LibreOffice's web export), the NASA Open Source Agreement 1.3 (WeasyPrint, two columns)
# and the Reciprocal Public License 1.5 (fpdf2). Needs npm, pandoc, pdfTeX, groff, ghostscript,
# LibreOffice and the weasyprint and fpdf2 Python packages.
mkdir -p "$out/probe52"
w=$(mktemp -d)
(cd "$w" && npm pack -q spdx-license-list@6.12.0 >/dev/null 2>&1 && tar xzf spdx-license-list-6.12.0.tgz)
python3 "$here/licences52.py" "$w/package/spdx-full.json" "$w"
pandoc -f markdown "$w/PolyForm-Small-Business-1.0.0.md" -o "$out/probe52/PolyForm-Small-Business-1.0.0.pdf" \
  -V geometry:margin=2.5cm -V fontsize=11pt 2>/dev/null
pandoc -f markdown "$w/Hippocratic-2.1.md" -s -t ms -o "$w/hippocratic.ms" --metadata title="Hippocratic License 2.1" 2>/dev/null
groff -ms -Tps -k "$w/hippocratic.ms" > "$w/hippocratic.ps" 2>/dev/null
ps2pdf "$w/hippocratic.ps" "$out/probe52/Hippocratic-2.1.pdf"
(cd "$w" && soffice --headless --convert-to pdf:writer_web_pdf_Export --outdir "$out/probe52" OGL-UK-3.0.html >/dev/null 2>&1)
weasy "$w/NASA-1.3.html" "$out/probe52/NASA-1.3.pdf" '@page{size:A4;margin:1.8cm;@bottom-center{content:counter(page)}} body{font-family:serif;font-size:9.5pt;column-count:2;column-gap:.9cm;text-align:justify} p{margin:0 0 .5em 0}'
mv "$w/RPL-1.5.pdf" "$out/probe52/RPL-1.5.pdf"
rm -rf "$w"

# Probe 53 (stop 51, written after every change of the stop and scored with the start build and
# the final one): three configuration references as Debian 12 ships them, from their packages'
# manual pages: sshd_config(5) (openssh-server, groff -mandoc, A4), login.defs(5) (login, groff
# -man, Letter) and logrotate(8) (logrotate, groff's HTML printed by WeasyPrint).
mkdir -p "$out/probe53"
w=$(mktemp -d)
for p in openssh-server login logrotate; do deb_unpack "$w" "$p" "$w/x"; done
m="$w/x/usr/share/man"
zcat "$m/man5/sshd_config.5.gz" | groff -mandoc -Tps -P-pa4 > "$w/sshd.ps" 2>/dev/null
ps2pdf "$w/sshd.ps" "$out/probe53/sshd_config.pdf"
zcat "$m/man5/login.defs.5.gz" | groff -man -Tps -P-pletter > "$w/login.ps" 2>/dev/null
ps2pdf "$w/login.ps" "$out/probe53/login.defs.pdf"
# grohtml draws the page's table as an image beside the HTML it writes.
(cd "$w" && zcat "$m/man8/logrotate.8.gz" | groff -man -Thtml > logrotate.html 2>/dev/null)
weasy "$w/logrotate.html" "$out/probe53/logrotate.pdf" '@page{size:A4;margin:2cm;@bottom-center{content:counter(page)}} body{font-family:sans-serif;font-size:10pt}'
rm -rf "$w"
# Probe 54 (stop 52, written before any change of the stop): two Python projects' policies from
# their sdists on PyPI: cryptography 43.0.3's API stability, security, patch submission and
# review policies (pandoc's HTML printed by wkhtmltopdf) and Twisted 24.11.0's compatibility
# policy and security page (pandoc, pdfTeX; the security page keeps its PGP key block).
mkdir -p "$out/probe54"
w=$(mktemp -d)
sdist_unpack "$w" cryptography cryptography-43.0.3.tar.gz
c="$w/cryptography-43.0.3/docs"
for d in api-stability security development/submitting-patches development/reviewing-patches; do
  pandoc -s -f rst "$c/$d.rst" -o "$w/$(basename "$d").html" --metadata pagetitle="cryptography: $(basename "$d")"
  xvfb-run -a wkhtmltopdf -q -s A4 "$w/$(basename "$d").html" "$out/probe54/cryptography-$(basename "$d").pdf" >/dev/null 2>&1
done
sdist_unpack "$w" twisted twisted-24.11.0.tar.gz
t="$w/twisted-24.11.0/docs"
for d in development/compatibility-policy security; do
  (cd "$w" && pandoc -f rst "$t/$d.rst" -o "$out/probe54/twisted-$(basename "$d").pdf" -V geometry:margin=1in -V papersize=letter 2>/dev/null)
done
rm -rf "$w"
# Probe 55 (stop 52, written after the stop's changes for probe 54 and scored with the start
# build and the final one; one later change came from it): pytest 8.3.3's policies from its
# sdist on PyPI: the backwards compatibility policy (with its Python version table) and the
# contributing guide (docutils' LaTeX writer, pdfTeX; Sphinx roles read as their text), the
# Tidelift funding page (rst2pdf) and the code of conduct (pandoc's Word file printed by
# LibreOffice).
mkdir -p "$out/probe55"
w=$(mktemp -d)
sdist_unpack "$w" pytest pytest-8.3.3.tar.gz
p="$w/pytest-8.3.3"
for d in doc/en/backwards-compatibility CONTRIBUTING; do
  n=$(basename "$d" | tr 'A-Z' 'a-z')
  sed -E 's/:[a-z]+(:[a-z]+)?:`~?([^`<]*[^ `<])( <[^>]*>)?`/``\2``/g' "$p/$d.rst" > "$w/$n.rst"
  (cd "$w" && rst2latex --output-encoding=utf-8 "$n.rst" "$n.tex" 2>/dev/null && pdflatex -interaction=batchmode "$n.tex" >/dev/null 2>&1 && pdflatex -interaction=batchmode "$n.tex" >/dev/null 2>&1)
  cp "$w/$n.pdf" "$out/probe55/pytest-$n.pdf"
done
rst2pdf "$p/TIDELIFT.rst" -o "$out/probe55/pytest-tidelift.pdf" 2>/dev/null
(cd "$w" && pandoc -f gfm "$p/CODE_OF_CONDUCT.md" -o code-of-conduct.docx && soffice --headless --convert-to pdf code-of-conduct.docx >/dev/null 2>&1)
cp "$w/code-of-conduct.pdf" "$out/probe55/pytest-code-of-conduct.pdf"
rm -rf "$w"
# Probe 56 (stop 53, written before any change of the stop): NetworkX 3.4.2's governance
# (NXEP 1) and core developer guide joined (pandoc's ms, groff -ms) and its deprecation policy
# (pandoc's Word file, LibreOffice), and SymPy 1.13.3's deprecation policy and dependencies page
# (MyST made plain by myst2md.py, pandoc's HTML printed by WeasyPrint), from their sdists on PyPI.
mkdir -p "$out/probe56"
w=$(mktemp -d)
sdist_unpack "$w" networkx networkx-3.4.2.tar.gz networkx-3.4.2/doc/developer
sdist_unpack "$w" sympy sympy-1.13.3.tar.gz sympy-1.13.3/doc/src/contributing
n="$w/networkx-3.4.2/doc/developer"
plain() { sed -E 's/:[a-z]+(:[a-z]+)?:`~?([^`<]*[^ `<])( <[^>]*>)?`/``\2``/g' "$1"; }
{ plain "$n/nxeps/nxep-0001.rst"; printf '\n\n'; plain "$n/core_developer.rst"; } > "$w/nx-gov.rst"
pandoc -f rst "$w/nx-gov.rst" -s -t ms -o "$w/nx-gov.ms" \
  --metadata title="NetworkX: governance and decision making; core developer guide" 2>/dev/null
groff -t -ms -Tps -k "$w/nx-gov.ms" > "$w/nx-gov.ps" 2>/dev/null
ps2pdf "$w/nx-gov.ps" "$out/probe56/networkx-governance.pdf"
plain "$n/deprecations.rst" > "$w/dep.rst"
(cd "$w" && pandoc -f rst dep.rst -s -o dep.docx 2>/dev/null && soffice --headless --convert-to pdf dep.docx >/dev/null 2>&1)
cp "$w/dep.pdf" "$out/probe56/networkx-deprecations.pdf"
s="$w/sympy-1.13.3/doc/src/contributing"
for pair in "deprecations:deprecation-policy:SymPy: deprecation policy" "dependencies:dependencies:SymPy: dependencies"; do
  IFS=: read -r src name title <<< "$pair"
  python3 "$here/myst2md.py" "$s/$src.md" > "$w/$src.md"
  pandoc -f markdown "$w/$src.md" -s -o "$w/$src.html" --metadata title="$title" 2>/dev/null
  html_pdf "$w/$src.html" "$w" "$out/probe56/sympy-$name.pdf"
done
rm -rf "$w"
# Probe 57 (stop 53, written after the stop's changes for probe 56 and scored with the start
# build and the final one): Astropy 6.1.4's coding guidelines (pandoc, pdfTeX) and maintainer
# workflow (pandoc 3's Typst writer, Typst) and urllib3 2.2.3's contributing guide (pandoc's
# Word file printed by LibreOffice: its bullets and numbers stand apart from their items).
mkdir -p "$out/probe57"
w=$(mktemp -d)
sdist_unpack "$w" astropy astropy-6.1.4.tar.gz astropy-6.1.4/docs/development
sdist_unpack "$w" urllib3 urllib3-2.2.3.tar.gz urllib3-2.2.3/docs/contributing.rst
a="$w/astropy-6.1.4/docs/development"
plain "$a/codeguide.rst" > "$w/codeguide.rst"
(cd "$w" && pandoc -f rst codeguide.rst -o "$out/probe57/astropy-coding-guidelines.pdf" -V geometry:margin=1in -V papersize=a4 2>/dev/null)
plain "$a/workflow/maintainer_workflow.rst" | sed 's/|emdash|/—/g; s/|[a-z_]*|//g' > "$w/maintainer.rst"
typeset "$w/maintainer.rst" "$out/probe57/astropy-maintainer-workflow.pdf" 2>/dev/null
plain "$w/urllib3-2.2.3/docs/contributing.rst" > "$w/contributing.rst"
(cd "$w" && pandoc -f rst contributing.rst -o contributing.docx && soffice --headless --convert-to pdf contributing.docx >/dev/null 2>&1)
cp "$w/contributing.pdf" "$out/probe57/urllib3-contributing.pdf"
rm -rf "$w"
