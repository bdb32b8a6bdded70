// Answer rendering: Markdown → HTML that is safe to insert. Raw HTML in the text (a PDF can
// contain anything) is shown as text, links are limited to http(s) and mailto, and inline
// citations become numbered markers the chat view wires to hover cards and the sources panel.
import DOMPurify from "dompurify";
import { Marked } from "marked";
import type { Citation } from "./ipc";

const escapeHtml = (s: string) =>
  s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;");

const marked = new Marked({
  gfm: true,
  breaks: true,
  renderer: {
    // Raw HTML blocks and inline tags are displayed verbatim, never interpreted.
    html({ text }) {
      return escapeHtml(text);
    },
    // The link text is rendered like any other inline text (its raw HTML escaped by `html`
    // above): inserting it as it stands would let `[<a href=…>x</a>](https://ok)` nest a live link.
    link({ href, tokens }) {
      const inner = this.parser.parseInline(tokens);
      const safe = /^(https?:|mailto:)/i.test(href) ? href : null;
      return safe ? `<a href="${escapeHtml(safe)}" data-external="1">${inner}</a>` : inner;
    },
    image({ text }) {
      return escapeHtml(text);
    },
  },
});

/**
 * A quoted table row for the eye: the core keeps a row's cells apart by tabs (they are the
 * stored, verified text); the window shows them apart by a thin rule.
 */
export function showCells(text: string): string {
  return text.replace(/[ ]*\t[ ]*/g, " │ ");
}

/** Splits the answer body from the Sources block the core appends (the UI lists sources itself). */
export function stripSources(text: string): string {
  const i = text.indexOf("\n\n**Sources:**");
  return i >= 0 ? text.slice(0, i) : text;
}

const MARK = (i: number) => `\u2063CITE${i}\u2063`;

/**
 * Replaces inline citations with markers: the extractive form “quote” (📄 Title (V), p. N) and
 * the generative form [n]. Returns the text with placeholders.
 */
export function markCitations(text: string, citations: Citation[]): string {
  let out = text.replace(/\(📄 ([^()]*(?:\([^()]*\))?[^()]*), p\. (\d+)\)/gu, (whole, label: string, page: string) => {
    const idx = citations.findIndex(
      (c) => c.page === Number(page) && label.trim() === (c.version ? `${c.title} (${c.version})` : c.title),
    );
    return idx >= 0 ? MARK(idx) : whole;
  });
  out = out.replace(/\[(\d{1,2})\](?!\()/g, (whole, n: string) => {
    const idx = Number(n) - 1;
    return idx >= 0 && idx < citations.length ? MARK(idx) : whole;
  });
  return out;
}

/** Safe HTML for an answer. */
export function renderAnswer(text: string, citations: Citation[] = []): string {
  const body = markCitations(showCells(stripSources(text)), citations);
  let html = marked.parse(body, { async: false }) as string;
  html = html.replace(/\u2063CITE(\d+)\u2063/g, (_, i: string) => {
    const n = Number(i);
    const icon = citations[n]?.source_type === "web" ? "🌐" : "📄";
    return `<button type="button" class="cite" data-cite="${n}" aria-label="Source ${n + 1}">${icon}${n + 1}</button>`;
  });
  return DOMPurify.sanitize(html, {
    ALLOWED_TAGS: [
      "p", "br", "strong", "em", "code", "pre", "blockquote", "ul", "ol", "li", "h1", "h2", "h3", "h4",
      "table", "thead", "tbody", "tr", "th", "td", "a", "button", "hr", "del",
    ],
    ALLOWED_ATTR: ["href", "data-cite", "data-external", "class", "type", "aria-label"],
    ALLOWED_URI_REGEXP: /^(https?:|mailto:)/i,
  });
}
