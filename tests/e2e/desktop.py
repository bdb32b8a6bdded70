#!/usr/bin/env python3
"""End-to-end test of the desktop window: the real app binary, driven through WebKitWebDriver
(the W3C WebDriver server of WebKitGTK), under Xvfb, on a real library.

Usage: xvfb-run -a python3 tests/e2e/desktop.py APP_BINARY CLI_BINARY OUT_DIR

The library is prepared with the CLI (the same core), then the window must: list the documents
grouped by set, take a dropped PDF through the upload dialog into the library as a new version,
turn "@2024" into a document pill, answer a question typed into the editor with an inline citation marker, open
the sources panel at that quote, render markup quoted from a PDF as text (no element, no
script), list the conversation in the Chats tab, and show an answer a crash interrupted with a
Resume button that finishes it, cite a scanned (OCR'd) page and mark the quote on the scan,
escalate a weak answer to an expert and show the answer a reviewer gave in the Reviews tab. A
second start on an empty library must show the first-run onboarding, load the sample policy and
answer its suggested question with a citation. Screenshots land in OUT_DIR.
Only the standard library is used.
"""

import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import time

from driver import launch, wd

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
APP, CLI, OUT = (os.path.abspath(a) for a in sys.argv[1:4])
FIXTURES = os.path.join(ROOT, "tests", "fixtures")


def cli(data, *args):
    out = subprocess.run([CLI, "--data-dir", data, "--json", *args], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, f"policypal {' '.join(args)} failed: {out.stdout} {out.stderr}"
    return json.loads(out.stdout)


def main():
    os.makedirs(OUT, exist_ok=True)
    data = tempfile.mkdtemp(prefix="policypal-e2e-")
    cli(data, "ingest", os.path.join(FIXTURES, "capital-2024.pdf"), "--title", "Capital Guidelines",
        "--version", "2024", "--type", "regulatory", "--set", "Bank Negara")
    cli(data, "ingest", os.path.join(FIXTURES, "hostile-markup.pdf"), "--title", "Email Handling Standard",
        "--type", "policy", "--set", "Acme policies")
    # An answer a crash interrupted: asked through the CLI, then its answer and the run's final
    # checkpoint (written together in one transaction) taken out of the database, which is the
    # state a kill just before that transaction leaves. (Real kills at random moments are
    # tests/crash.rs.)
    turn = cli(data, "ask", "What capital conservation buffer must a licensed bank hold?")
    db = sqlite3.connect(os.path.join(data, "policypal.sqlite3"))
    with db:
        db.execute("DELETE FROM messages WHERE id = ?", (turn["message_id"],))
        db.execute("DELETE FROM checkpoints WHERE conversation_id = ? AND node = 'done'", (turn["thread_id"],))
    db.close()

    # A scanned policy: a text PDF rasterised by Ghostscript into one image per page.
    scan = os.path.join(data, "retention-scan.pdf")
    subprocess.run(["gs", "-q", "-dNOPAUSE", "-dBATCH", "-dSAFER", "-sDEVICE=pdfimage8", "-r300",
                    f"-sOutputFile={scan}", os.path.join(FIXTURES, "retention-policy.pdf")], check=True)
    cli(data, "ingest", scan, "--title", "Retention Policy (scan)", "--type", "policy")
    # This profile answers the questions escalated to an expert (the Reviews tab).
    cli(data, "profiles", "reviewer", "default", "on")

    with launch(APP, data, OUT, "webdriver.log") as (sid, s):
        checks(data, sid, s)
    with launch(APP, tempfile.mkdtemp(prefix="policypal-e2e-new-"), OUT, "webdriver-first-run.log") as (sid, s):
        first_run(s)
    print("desktop e2e: all checks passed")


def first_run(s):
    """An empty library: the onboarding, the sample policy, its suggested question answered."""
    s.wait("const w = document.querySelector('[data-testid=welcome]'); return w && w.innerText.includes('Welcome')", "the onboarding")
    s.type("#welcome-name", "Jane Tan")
    s.type("#welcome-organisation", "Acme Bank")
    s.type("#welcome-industry", "Banking")
    s.type("#welcome-location", "Malaysia")
    s.shot("first-run")
    started = time.time()
    s.js("[...document.querySelectorAll('[data-testid=welcome] button')].find(b => b.innerText.trim() === 'Get started').click()")
    s.wait("return document.querySelector('[data-testid=welcome]') === null", "the onboarding to close")
    s.wait("const b = document.querySelector('[data-testid=suggested-question]'); if (b) b.click(); return !!b",
           "the sample's suggested question", timeout=120)
    answer = s.wait("const a = document.querySelector('.answer'); return a && a.querySelector('button.cite') && a.innerText",
                    "a cited answer from the sample", timeout=120)
    assert "ninety days" in answer, answer
    print(f"first cited answer {time.time() - started:.1f}s after the onboarding")
    s.click(".answer button.cite")
    s.wait("const a = document.querySelector('aside[aria-label=Sources]'); return a && a.innerText.includes('sample')", "the sample cited")
    s.shot("first-answer")
    s.click('button[aria-label="Settings"]')
    dialog = s.wait("const d = document.querySelector('[role=dialog]'); return d && d.innerText.includes('Save answering mode') && d.innerText", "the settings dialog")
    assert "Jane Tan" in dialog, dialog
    assert s.js("return document.querySelector('#organisation').value") == "Acme Bank"


def checks(data, sid, s):
    s.shot("start")

    # The page may listen to and emit the app's events, nothing more: the plugins' own
    # commands (open a path, a file dialog, window control) are refused; the shell opens
    # dialogs and the PDF viewer from Rust.
    for cmd, args in [("plugin:opener|open_path", {"path": "/etc/passwd"}),
                      ("plugin:dialog|open", {"options": {}}),
                      ("plugin:window|close", {"label": "main"})]:
        got = wd("POST", f"/session/{sid}/execute/async", {
            "script": "const done = arguments[2]; window.__TAURI_INTERNALS__.invoke(arguments[0], arguments[1])"
                      ".then(() => done('allowed'), e => done('refused: ' + JSON.stringify(e)))",
            "args": [cmd, args]})
        # Refused by the capability itself ("… not allowed. Permissions associated with this
        # command: …"), not merely by a plugin's scope.
        assert got.startswith("refused") and "not allowed. Permissions associated" in got, f"{cmd}: {got}"

    # Documents tab: grouped by set, "Title (Version)" labels.
    s.js("[...document.querySelectorAll('[role=tab]')].find(t => t.textContent.trim() === 'documents').dispatchEvent(new MouseEvent('mousedown', {bubbles: true}))")
    text = s.wait("const t = document.body.innerText; return t.includes('Capital Guidelines (2024)') && t", "the documents list")
    assert "Bank Negara" in text.upper() or "BANK NEGARA" in text, text
    assert "ACME POLICIES" in text.upper(), text
    s.shot("documents")

    # A set's colour: its dot offers the palette, and a choice recolours the set at once.
    s.js("document.querySelector('[aria-label=\"Colour of Acme policies\"]').click()")
    s.wait("return document.querySelectorAll('[role=menu] [role=menuitemradio]').length === 8", "the palette")
    s.shot("set-palette")
    s.js("document.querySelector('[aria-label=\"Use colour #db2777\"]').click()")
    s.wait("const b = document.querySelector('[aria-label=\"Colour of Acme policies\"]');"
           " return b && getComputedStyle(b).backgroundColor === 'rgb(219, 39, 119)' && !document.querySelector('[role=menu]')",
           "the set's new colour")

    # A new version dropped on the window: the upload dialog, then the library. The shell
    # turns a native drop into the `tauri://drag-drop` event; the same event is sent here,
    # since WebDriver cannot drag files from outside the window.
    new_pdf = os.path.join(FIXTURES, "capital-2025.pdf")
    sent = wd("POST", f"/session/{sid}/execute/async", {
        "script": "const done = arguments[1]; window.__TAURI_INTERNALS__.invoke('plugin:event|emit', "
                  "{event: 'tauri://drag-drop', payload: {paths: [arguments[0]], position: {x: 20, y: 20}}})"
                  ".then(() => done('ok'), e => done('error: ' + JSON.stringify(e)))",
        "args": [new_pdf]})
    assert sent == "ok", sent
    dialog = s.wait("const d = document.querySelector('[role=dialog]'); return d && d.innerText", "the upload dialog")
    assert "capital-2025.pdf" in dialog and "Add to library" in dialog, dialog
    assert s.js("return document.querySelector('#v0').value") == "2025", "version not prefilled from the file name"
    wd("POST", f"/session/{sid}/element/{s.find('#t0')}/clear", {})
    s.type("#t0", "Capital Guidelines")
    # A set name the library does not have offers the palette for the new set's colour.
    s.type("#s0", "Liquidity rules")
    s.wait("return document.querySelectorAll('[role=radiogroup] [role=radio]').length === 8", "the new set's palette")
    s.js("document.querySelector('[aria-label=\"New set colour #7c3aed\"]').click()")
    s.wait("return document.querySelector('[aria-label=\"New set colour #7c3aed\"]').getAttribute('aria-checked') === 'true'",
           "the chosen colour")
    s.shot("upload-new-set")
    wd("POST", f"/session/{sid}/element/{s.find('#s0')}/clear", {})
    s.type("#s0", "Bank Negara")
    s.wait("return document.querySelector('[role=radiogroup]') === null", "an existing set without the palette")
    s.shot("upload-dialog")
    s.js("[...document.querySelectorAll('[role=dialog] button')].find(b => b.innerText.trim() === 'Add to library').click()")
    text = s.wait("const t = document.querySelector('aside').innerText; return t.includes('Capital Guidelines (2025)') && !t.includes('Waiting') && !t.includes('Embedding') && t", "the new version in the library", timeout=180)
    assert "superseded by Capital Guidelines (2025)" in text, text
    s.shot("new-version")

    # Ask through the editor; Enter sends.
    s.js("[...document.querySelectorAll('[role=tab]')].find(t => t.textContent.trim() === 'chats').dispatchEvent(new MouseEvent('mousedown', {bubbles: true}))")
    # "@" opens the categorised menu; Enter turns the highlighted document into a pill.
    s.click(".tiptap")
    s.type(".tiptap", "@2024")
    menu = s.wait("const m = document.querySelector('[role=listbox]'); return m && m.innerText", "the @ menu")
    assert "Capital Guidelines (2024)" in menu and "DOCUMENTS" in menu.upper(), menu
    s.shot("mention-menu")
    s.type(".tiptap", "\ue007")
    pill = s.wait("const p = document.querySelector('.tiptap .mention'); return p && p.getAttribute('data-id')", "a document pill")
    assert pill.startswith("doc:"), pill
    s.type(".tiptap", " What minimum total capital ratio must a licensed bank maintain?")
    s.type(".tiptap", "\ue007")  # Enter sends
    answer = s.wait("const a = document.querySelector('.answer'); return a && a.querySelector('button.cite') && a.innerText", "an answer with a citation marker")
    assert "8" in answer, answer
    s.click(".answer button.cite")
    panel = s.wait("const a = document.querySelector('aside[aria-label=Sources]'); return a && a.innerText.includes('page') && a.innerText", "the sources panel")
    assert "Capital Guidelines (2024)" in panel, panel
    s.shot("answer")

    # "View page": the cited page of the stored PDF rendered in the app, the quote marked.
    s.js("[...document.querySelectorAll('aside[aria-label=Sources] button')].find(b => b.innerText.trim() === 'View page').click()")
    s.wait("const c = document.querySelector('[role=dialog] canvas'); return c !== null && c.width > 0 && document.querySelector('[data-quote-mark]') !== null", "the rendered PDF page with the quote marked", timeout=60)
    s.shot("pdf-page")
    s.js("[...document.querySelectorAll('[role=dialog] button')].find(b => b.innerText.trim() === 'Text').click()")
    marked = s.wait("const m = document.querySelector('[role=dialog] mark.quote'); return m && m.innerText", "the page text with the quote highlighted")
    assert "capital ratio" in marked, marked
    s.js("document.querySelector('[role=dialog] button[aria-label=Close]').click()")
    s.wait("return document.querySelector('[role=dialog]') === null", "the page view to close")

    # Markup quoted from a PDF is shown as text: no element is created, no script runs.
    s.js("window.__alerted = false; window.alert = () => { window.__alerted = true; };")
    s.click('button[title="New chat"]')
    s.wait("return document.querySelectorAll('.answer').length === 0", "a new, empty chat")
    s.click(".tiptap")
    s.type(".tiptap", "Which markup must staff never open in an attachment?")
    s.type(".tiptap", "\ue007")
    # Found and read in one script: the answer is rendered again when its stream ends, so a
    # second call after the wait could find no answer at all (a flaky failure once).
    markup = "const a = [...document.querySelectorAll('.answer')].pop(); return a && a.innerText.includes('onerror') && {text: a.innerText, imgs: a.querySelectorAll('img,script').length}"
    last = s.wait(markup, "the markup answer")
    assert last["imgs"] == 0, last
    assert "<img src=x onerror=alert(1)>" in last["text"], last
    time.sleep(0.5)
    settled = s.wait(markup, "the markup answer, settled")
    assert settled["imgs"] == 0, settled
    assert s.js("return window.__alerted") is False, "markup from a PDF ran a script"
    s.shot("markup-as-text")

    # A Markdown link whose text is an HTML link, quoted from a PDF: one link, to the
    # Markdown target (opened outside the app), the inner markup shown as text.
    s.click(".tiptap")
    s.type(".tiptap", "Which link must staff not follow?")
    s.type(".tiptap", "\ue007")
    links = ("const a = [...document.querySelectorAll('.answer')].pop(); "
             "return a && a.innerText.includes('evil.example') && "
             "{text: a.innerText, hrefs: [...a.querySelectorAll('a')].map(l => l.getAttribute('href') + ' ' + l.hasAttribute('data-external'))}")
    found = s.wait(links, "the phishing-link answer")
    assert found["hrefs"] == ["https://ok.example/ true"], found
    assert '<a href="https://evil.example/">' in found["text"], found
    s.shot("link-text-as-text")

    # A scanned page: the answer cites it as OCR'd, and the page view marks the quote on
    # the scan from the recognised words' boxes (the page has no text layer for pdf.js).
    s.click('button[title="New chat"]')
    s.wait("return document.querySelectorAll('.answer').length === 0", "a new, empty chat for the scan")
    s.click(".tiptap")
    s.type(".tiptap", "How long are call recordings with customers retained?")
    s.type(".tiptap", "\ue007")
    answer = s.wait("const a = [...document.querySelectorAll('.answer')].pop(); return a && a.querySelector('button.cite') && a.innerText", "the answer from the scan")
    assert "ninety days" in answer, answer
    s.click(".answer button.cite")
    panel = s.wait("const a = document.querySelector('aside[aria-label=Sources]'); return a && a.innerText.includes('OCR') && a.innerText", "the OCR mark in the sources panel")
    assert "Retention Policy (scan)" in panel and "% confidence" in panel, panel
    s.js("[...document.querySelectorAll('aside[aria-label=Sources] button')].find(b => b.innerText.trim() === 'View page').click()")
    marks = s.wait("const c = document.querySelector('[role=dialog] canvas'); const m = document.querySelectorAll('[data-quote-mark]'); return c !== null && c.width > 0 && m.length > 0 && m.length", "the scanned page with the quote marked", timeout=60)
    assert marks >= 3, marks
    s.shot("ocr-page")
    s.js("document.querySelector('[role=dialog] button[aria-label=Close]').click()")
    s.wait("return document.querySelector('[role=dialog]') === null", "the page view to close")

    # An audit: the verdict and a severity badge per finding, with its export buttons.
    s.click('button[title="New chat"]')
    s.wait("return document.querySelectorAll('.answer').length === 0", "a new, empty chat for the audit")
    s.click(".tiptap")
    s.type(".tiptap", "@audit")
    s.wait("const m = document.querySelector('[role=listbox]'); return m && m.innerText.includes('audit')", "the audit action in the @ menu")
    s.type(".tiptap", "\ue007")
    s.type(".tiptap", " @2024")
    s.wait("const m = document.querySelector('[role=listbox]'); return m && m.innerText.includes('Capital Guidelines (2024)')", "the document in the @ menu")
    s.type(".tiptap", "\ue007")
    s.type(".tiptap", " this memo: Our bank maintains a minimum total capital ratio of 6 per cent of its risk-weighted assets.")
    s.type(".tiptap", "\ue007")
    panel = s.wait("const p = document.querySelector('[data-testid=audit-panel]'); return p && p.innerText", "the audit report", timeout=120)
    assert "Major violations" in panel and "High" in panel, panel
    bubble = s.wait("const b = [...document.querySelectorAll('button')].map(b => b.innerText).join('|'); return b.includes('Export audit') && b", "the audit's export buttons")
    assert "Export audit (Markdown)" in bubble, bubble
    s.shot("audit")

    # Both conversations are listed in the Chats tab, and the first reopens from history.
    side = "document.querySelector('aside[aria-label=\"Library and conversations\"]')"
    s.wait(f"const t = {side}.innerText; return t.includes('What minimum total capital') && t.includes('Which markup')", "both conversations in the Chats tab")
    # Looked up and clicked in one script, as the list may be rendered again in between.
    s.wait(f"const b = [...{side}.querySelectorAll('li button')].find(b => b.innerText.includes('What minimum total capital')); if (b) b.click(); return !!b", "the first conversation's entry")
    s.wait("const a = document.querySelector('.answer'); return a !== null && a.querySelector('button.cite') !== null && document.querySelector('main h1').innerText.includes('minimum')", "the reopened conversation")
    # The interrupted answer: shown as interrupted with a Resume button, which finishes the
    # run from its last checkpoint (not a question without an answer, nor asked again).
    s.wait(f"const b = [...{side}.querySelectorAll('li button')].find(b => b.innerText.includes('capital conservation buffer')); if (b) b.click(); return !!b", "the interrupted conversation's entry")
    note = s.wait("const n = document.querySelector('[data-testid=interrupted]'); return n && n.innerText", "the interrupted notice")
    assert "interrupted" in note and "Resume" in note, note
    assert s.js("return document.querySelectorAll('.answer').length") == 0
    s.shot("interrupted")
    s.js("[...document.querySelectorAll('[data-testid=interrupted] button')].find(b => b.innerText.trim() === 'Resume').click()")
    resumed = s.wait("const a = document.querySelector('.answer'); return a && a.querySelector('button.cite') && document.querySelector('[data-testid=interrupted]') === null && a.innerText", "the resumed answer", timeout=120)
    assert "buffer" in resumed, resumed
    s.shot("resumed")
    # Expert review: a question the library cannot support is escalated ("Ask an expert");
    # this profile, marked as reviewer through the CLI, answers it from the Reviews tab citing
    # a passage of the candidate evidence; the conversation then shows the expert's answer.
    s.click('button[title="New chat"]')
    s.wait("return document.querySelectorAll('.answer').length === 0", "a new chat for the expert question")
    s.click(".tiptap")
    s.type(".tiptap", "Which cloud providers are approved for storing customer data?")
    s.type(".tiptap", "\ue007")
    s.wait("const b = [...document.querySelectorAll('.answer ~ * button, main button')].find(b => b.innerText.includes('Ask an expert'));"
           " if (b && !b.disabled) { b.click(); return true; } return false", "the Ask an expert option", timeout=120)
    s.wait("const a = [...document.querySelectorAll('.answer')].pop(); return a && a.innerText.includes('Waiting for an expert')",
           "the waiting message", timeout=60)
    s.shot("expert-waiting")
    s.js("[...document.querySelectorAll('[role=tab]')].find(t => t.textContent.trim() === 'reviews').dispatchEvent(new MouseEvent('mousedown', {bubbles: true}))")
    s.wait("const b = document.querySelector('[data-testid=reviews] button[data-review]'); if (b) b.click(); return !!b", "the request in the inbox")
    s.wait("const d = document.querySelector('[role=dialog]'); return d && d.textContent.includes('Candidate evidence') && d.querySelector('#expert-answer')",
           "the review dialog")
    s.js("[...document.querySelectorAll('[role=dialog] button')].find(b => b.innerText.trim() === 'Cite').click()")
    s.type("#expert-answer", "No provider is approved by these guidelines; the passage cited is the closest rule.")
    s.shot("expert-review")
    s.js("[...document.querySelectorAll('[role=dialog] button')].find(b => b.innerText.trim() === 'Send answer').click()")
    expert = s.wait("const a = [...document.querySelectorAll('.answer')].pop(); return a && a.innerText.includes('Expert answer') && a.innerText",
                    "the expert's answer in the conversation", timeout=60)
    assert "No provider is approved" in expert, expert
    s.wait("const a = document.querySelector('aside[aria-label=Sources]'); return a && a.innerText.includes('Retention Policy (scan)')",
           "the expert's citation in the sources panel")
    s.shot("expert-answer")

    # Settings: the profile, the answering mode, the keychain, the data directory.
    s.click('button[aria-label="Settings"]')
    dialog = s.wait("const d = document.querySelector('[role=dialog]'); return d && d.innerText.includes('Save answering mode') && d.innerText", "the settings dialog")
    assert "Answering mode" in dialog and data in dialog, dialog
    assert "PII redaction" in dialog and "Web search" in dialog, dialog
    assert "Scanned pages (OCR)" in dialog and "Installed: eng" in dialog, dialog
    s.shot("settings")


if __name__ == "__main__":
    main()
