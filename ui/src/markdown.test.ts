import { describe, expect, it } from "vitest";
import { markCitations, renderAnswer, showCells, stripSources } from "./markdown";
import type { Citation } from "./ipc";

const cite = (title: string, version: string, page: number): Citation => ({
  source_type: "document",
  document_id: "d1",
  title,
  version,
  file_name: "x.pdf",
  page,
  chunk_id: "c1",
  quote: "q",
});

describe("renderAnswer", () => {
  it("shows HTML from a PDF as text, never as an element", () => {
    const html = renderAnswer('The page said <img src=x onerror=alert(1)> and <script>alert(2)</script>');
    const div = document.createElement("div");
    div.innerHTML = html;
    expect(div.querySelector("img")).toBeNull();
    expect(div.querySelector("script")).toBeNull();
    expect(div.textContent).toContain("<img src=x onerror=alert(1)>");
  });

  it("drops unsafe links but keeps their text", () => {
    const div = document.createElement("div");
    div.innerHTML = renderAnswer("[click](javascript:alert(1)) and [site](https://example.org)");
    const links = [...div.querySelectorAll("a")];
    expect(links.map((a) => a.getAttribute("href"))).toEqual(["https://example.org"]);
    expect(div.textContent).toContain("click");
  });

  it("shows HTML inside a link's text as text, so a document cannot nest a live link", () => {
    const div = document.createElement("div");
    div.innerHTML = renderAnswer('[<a href="https://evil.example/">x</a> **bold**](https://ok.example/)');
    const links = [...div.querySelectorAll("a")];
    expect(links.map((a) => a.getAttribute("href"))).toEqual(["https://ok.example/"]);
    expect(links[0].getAttribute("data-external")).toBe("1");
    expect(links[0].textContent).toContain('<a href="https://evil.example/">x</a>');
    expect(links[0].querySelector("strong")?.textContent).toBe("bold");
  });

  it("turns extractive citations into numbered markers", () => {
    const cs = [cite("Capital Guidelines", "2024", 3), cite("Retention Policy", "", 1)];
    const text =
      "“Banks must hold 8%.” (📄 Capital Guidelines (2024), p. 3)\n\n“Keep records.” (📄 Retention Policy, p. 1)\n\n**Sources:**\n1. Capital Guidelines (2024) — page 3";
    const div = document.createElement("div");
    div.innerHTML = renderAnswer(text, cs);
    const markers = [...div.querySelectorAll("button.cite")].map((b) => b.getAttribute("data-cite"));
    expect(markers).toEqual(["0", "1"]);
    expect(div.textContent).not.toContain("Sources:");
  });

  it("shows the cells of a quoted table row apart", () => {
    expect(showCells("Resident\t900 crowns\tThe marina board")).toBe("Resident │ 900 crowns │ The marina board");
    const div = document.createElement("div");
    div.innerHTML = renderAnswer("“Visitor\t40 crowns a night” (📄 Berth Rules, p. 1)", [cite("Berth Rules", "", 1)]);
    expect(div.textContent).toContain("Visitor │ 40 crowns a night");
    expect(div.querySelectorAll("button.cite").length).toBe(1);
  });

  it("maps [n] markers only to existing citations", () => {
    const out = markCitations("See [1] and [7].", [cite("A", "", 1)]);
    expect(out).toContain("CITE0");
    expect(out).toContain("[7]");
  });

  it("keeps text without a Sources block whole", () => {
    expect(stripSources("just text")).toBe("just text");
  });
});

import { uid } from "./ipc";
describe("uid", () => {
  it("makes distinct v4 ids without a secure context", () => {
    const a = uid();
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(uid()).not.toBe(a);
  });
});
