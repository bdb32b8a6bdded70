#!/usr/bin/env python3
"""Turns a Sphinx reStructuredText page into plain reStructuredText that pandoc reads.

Sphinx roles (:ref:`text <target>`, :doc:`...`, :pypi:`...`) become their text, substitutions
(|name|) their name, a glossary becomes a definition list; the rest is left as written.
    python3 sphinx2rst.py IN.txt > OUT.rst
"""
import re
import sys

text = open(sys.argv[1], encoding="utf-8").read()
# :role:`shown text <target>` -> shown text; :role:`target` -> target
text = re.sub(r":[a-z]+:`([^`<]*?)\s*<[^`>]*>`", r"\1", text)
text = re.sub(r":[a-z]+:`~?([^`]*)`", r"\1", text)
text = re.sub(r"\|([a-z][a-z-]*)\|", r"\1", text)
out = []
in_glossary = False
for line in text.split("\n"):
    if line.startswith(".. glossary::"):
        in_glossary = True
        continue
    if in_glossary:
        if line and not line.startswith(" "):
            in_glossary = False
        else:
            # the glossary's body is indented by two; a definition list needs none
            out.append(line[2:] if line.startswith("  ") else line)
            continue
    out.append(line)
sys.stdout.write("\n".join(out))
