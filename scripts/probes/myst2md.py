"""Turns MyST Markdown (Sphinx's Markdown, as Black's documentation is written) into plain
Markdown for pandoc, for probe 51: label lines ("(labels/x)=") go, admonition fences
("```{note}") become block quotes, and roles ("{doc}`current_style`") and links
("[GitHub Release]", "[stability policy](labels/x)") keep their text.

usage: myst2md.py FILE.md ... > OUT.md
"""

import re
import sys


def convert(text: str) -> str:
    out = []
    quote = False
    for line in text.split("\n"):
        if re.fullmatch(r"\([\w/.-]+\)=", line.strip()):
            continue
        m = re.fullmatch(r"```\{(\w+)\}.*", line.strip())
        if m:
            quote = True
            out.append(f"> **{m.group(1).capitalize()}:**")
            out.append(">")
            continue
        if quote and line.strip() == "```":
            quote = False
            out.append("")
            continue
        line = re.sub(r"\{\w+\}`([^`<]*?)(?:\s*<[^>]*>)?`", r"\1", line)
        line = re.sub(r"\[([^\]]+)\](?:\([^)]*\)|\[[^\]]*\])", r"\1", line)
        line = re.sub(r"\[([A-Z][\w ]*)\](?![:(\[])", r"\1", line)
        if re.match(r"\[[^\]]+\]:\s", line):
            continue
        out.append(f"> {line}" if quote else line)
    return "\n".join(out)


def main() -> None:
    for path in sys.argv[1:]:
        with open(path, encoding="utf-8") as f:
            print(convert(f.read()))
            print()


if __name__ == "__main__":
    main()
