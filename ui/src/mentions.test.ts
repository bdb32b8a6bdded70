import { describe, expect, it } from "vitest";
import type { Document } from "./ipc";
import { mentionItems, pillsOf } from "./mentions";

const doc = (id: string, title: string, version: string, status: Document["status"] = "ready"): Document => ({
  id,
  title,
  version,
  doc_type: "regulatory",
  set_id: null,
  set_name: null,
  file_name: `${title}.pdf`,
  page_count: 3,
  chunk_count: 5,
  empty_pages: [],
  status,
  error: null,
  supersedes: null,
  superseded_by: null,
  created_at: "",
  updated_at: "",
});

describe("mention menu", () => {
  it("filters every category by what was typed", () => {
    const docs = [doc("1", "Capital Guidelines", "2024"), doc("2", "Retention Policy", ""), doc("3", "Capital Draft", "", "failed")];
    const items = mentionItems("cap", docs, [{ id: "s", name: "Capital set", colour: "#2563eb", document_count: 1 }]);
    expect(items.map((i) => i.id)).toEqual(["set:Capital set", "doc:1"]);
    expect(mentionItems("comp", docs, []).map((i) => i.id)).toEqual(["action:compare"]);
  });

  it("reads ids from pills, not from the text", () => {
    const editorDoc = {
      type: "doc",
      content: [
        {
          type: "paragraph",
          content: [
            { type: "mention", attrs: { id: "action:compare" } },
            { type: "text" },
            { type: "mention", attrs: { id: "doc:a" } },
            { type: "mention", attrs: { id: "doc:b" } },
            { type: "mention", attrs: { id: "doc:a" } },
            { type: "mention", attrs: { id: "set:Bank: Negara" } },
          ],
        },
      ],
    };
    expect(pillsOf(editorDoc)).toEqual({ documents: ["a", "b"], set: "Bank: Negara", action: "compare" });
  });

  it("offers @web only when web search is switched on, and carries it as a flag", () => {
    const off = mentionItems("web", [], []);
    expect(off).toHaveLength(1);
    expect(off[0].disabled).toBe(true);
    const on = mentionItems("web", [], [], true);
    expect(on[0].disabled).toBeUndefined();
    const editorDoc = { type: "doc", content: [{ type: "paragraph", content: [{ type: "mention", attrs: { id: "web:search" } }, { type: "text" }] }] };
    expect(pillsOf(editorDoc)).toEqual({ documents: [], web: true });
  });
});
