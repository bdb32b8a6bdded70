#!/usr/bin/env python3
"""The installed package used the way a new user meets it: a fresh account (empty HOME, no
PolicyPal variables), the installed app started through "Open with PolicyPal" on a PDF (the
desktop entry's `policypal-desktop %F`), the first-run screen, the PDF added through the upload
dialog, a question answered with a citation from it; then the installed CLI, as the same user,
searching the same library with the model the package installed.

Usage: xvfb-run -a python3 tests/e2e/package.py APP_BINARY CLI_BINARY OUT_DIR PDF
Screenshots land in OUT_DIR; the user's HOME is written to OUT_DIR/home.txt (check-package.sh
shows that the data outlives the package). Only the standard library is used.
"""

import json
import os
import subprocess
import sys
import tempfile
import time

from driver import launch

APP, CLI, OUT, PDF = (os.path.abspath(a) for a in sys.argv[1:5])


def main():
    os.makedirs(OUT, exist_ok=True)
    home = tempfile.mkdtemp(prefix="policypal-user-")
    with open(os.path.join(OUT, "home.txt"), "w") as f:
        f.write(home)
    # A fresh account: nothing of the developer's set-up may help the installed app.
    for k in ("POLICYPAL_DATA_DIR", "POLICYPAL_MODEL_DIR", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME"):
        os.environ.pop(k, None)
    os.environ["HOME"] = home

    with launch(APP, None, OUT, "webdriver-package.log", args=[PDF]) as (sid, s):
        s.wait("const w = document.querySelector('[data-testid=welcome]'); return w && w.innerText.includes('Welcome')",
               "the first-run screen")
        s.type("#welcome-name", "Jane Tan")
        s.type("#welcome-organisation", "Acme Bank")
        s.shot("package-first-run")
        # This user brings a document of their own: no sample.
        s.js("document.querySelector('[data-testid=welcome] input[type=checkbox]').click()")
        s.js("[...document.querySelectorAll('[data-testid=welcome] button')].find(b => b.innerText.trim() === 'Get started').click()")
        s.wait("return document.querySelector('[data-testid=welcome]') === null", "the first-run screen to close")
        dialog = s.wait("const d = document.querySelector('[role=dialog]'); return d && d.innerText", "the upload dialog with the opened PDF")
        assert os.path.basename(PDF) in dialog and "Add to library" in dialog, dialog
        s.js("const t = document.querySelector('#t0'); t.select();")
        s.type("#t0", "Capital Guidelines")
        s.shot("package-open-with")
        started = time.time()
        s.js("[...document.querySelectorAll('[role=dialog] button')].find(b => b.innerText.trim() === 'Add to library').click()")
        s.wait("const t = document.querySelector('aside').innerText; return t.includes('Capital Guidelines') && !t.includes('Waiting')"
               " && !t.includes('Embedding') && !t.includes('Reading') && t", "the PDF in the library", timeout=300)
        print(f"added in {time.time() - started:.1f}s")
        s.js("[...document.querySelectorAll('[role=tab]')].find(t => t.textContent.trim() === 'chats').dispatchEvent(new MouseEvent('mousedown', {bubbles: true}))")
        s.click(".tiptap")
        s.type(".tiptap", "What capital conservation buffer must a licensed bank hold?")
        s.type(".tiptap", "\ue007")
        answer = s.wait("const a = document.querySelector('.answer'); return a && a.querySelector('button.cite') && a.innerText",
                        "a cited answer", timeout=120)
        assert "2.5" in answer, answer
        s.click(".answer button.cite")
        panel = s.wait("const a = document.querySelector('aside[aria-label=Sources]'); return a && a.innerText.includes('page') && a.innerText",
                       "the sources panel")
        assert "Capital Guidelines" in panel and "conservation buffer" in panel, panel
        s.shot("package-answer")

    data = os.path.join(home, ".local", "share", "policypal")
    assert os.path.isfile(os.path.join(data, "policypal.sqlite3")), f"no library under {data}"
    out = subprocess.run([CLI, "--json", "search", "capital conservation buffer"], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    hits = json.loads(out.stdout)
    assert any("conservation buffer" in json.dumps(h) for h in (hits if isinstance(hits, list) else hits.get("hits", []))), out.stdout[:600]
    print(f"package check: first run, Open with, cited answer and the CLI all work for a new user ({home})")


if __name__ == "__main__":
    main()
