"""Joins pages of the Securing Debian Manual's HTML (harden-doc, Publican) into one document
for probe 50, without the site banner and the previous / next navigation of each page.

usage: harden50.py TITLE PAGE.html ... > OUT.html   (run in the manual's html/en-US folder)
"""

import re
import sys


def body(page: str) -> str:
    with open(page, encoding="utf-8") as f:
        text = f.read()
    text = text.split("<body>", 1)[1].rsplit("</body>", 1)[0]
    text = re.sub(r'<p id="title">.*?</p>', "", text, flags=re.S)
    text = re.sub(r'<ul class="docnav[^"]*">.*?</ul>', "", text, flags=re.S)
    text = re.sub(r"<img[^>]*>", "", text)
    return text


def main() -> None:
    title, pages = sys.argv[1], sys.argv[2:]
    print(
        f'<html><head><meta charset="utf-8"><title>{title}</title></head><body>'
        f"<h1>{title}</h1>"
    )
    for page in pages:
        print(body(page))
    print("</body></html>")


if __name__ == "__main__":
    main()
