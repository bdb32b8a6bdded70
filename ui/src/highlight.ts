// Finds a quote inside a page's text, tolerant of whitespace, case and line-end hyphenation,
// so the page view can highlight exactly the cited words.

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** The [start, end) of `quote` in `page`, or null when it is not there. */
export function findQuote(page: string, quote: string): [number, number] | null {
  const words = quote
    .replace(/[\u00ad]/g, "")
    .split(/\s+/)
    .filter(Boolean);
  if (words.length === 0) return null;
  // Between words: any whitespace; inside a word: an optional hyphen + line break.
  const pattern = words
    .map((w) => [...w].map(escapeRe).join("(?:-\\s*\\n\\s*|\\u00ad)?"))
    .join("\\s+");
  const m = new RegExp(pattern, "iu").exec(page);
  return m ? [m.index, m.index + m[0].length] : null;
}
