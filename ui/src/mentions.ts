// The @ menu's items and what a finished message carries: pills are read from the editor's
// nodes (ids), never parsed back from the text.
import type { Action, DocSet, Document } from "./ipc";

export type MentionKind = "action" | "set" | "doc" | "web";
export type MentionItem = { id: string; label: string; kind: MentionKind; hint?: string; disabled?: boolean };

export const MAX_DOCUMENTS = 5;

const ACTIONS: { id: Action; label: string; hint: string }[] = [
  { id: "summarize", label: "summarize", hint: "Summarise 1–5 documents" },
  { id: "compare", label: "compare", hint: "Compare 2–5 documents" },
  { id: "audit", label: "audit", hint: "Audit a text against documents" },
  { id: "inquire", label: "inquire", hint: "Ask a question" },
];

const CATEGORY: Record<MentionKind, string> = { action: "Actions", set: "Sets", doc: "Documents", web: "Web" };
export const categoryOf = (k: MentionKind) => CATEGORY[k];

/** The menu for what was typed after "@", in category order, at most 8 per category. */
export function mentionItems(query: string, docs: Document[], sets: DocSet[], webEnabled = false): MentionItem[] {
  const q = query.trim().toLowerCase();
  const hit = (s: string) => q === "" || s.toLowerCase().includes(q);
  const actions = ACTIONS.filter((a) => hit(a.label)).map((a) => ({ id: `action:${a.id}`, label: a.label, kind: "action" as const, hint: a.hint }));
  const setItems = sets.filter((s) => hit(s.name)).map((s) => ({ id: `set:${s.name}`, label: s.name, kind: "set" as const, hint: `${s.document_count} documents` }));
  const docItems = docs
    .filter((d) => d.status === "ready" || d.status === "disabled")
    .filter((d) => hit(d.version ? `${d.title} ${d.version}` : d.title) || hit(d.file_name))
    .map((d) => ({
      id: `doc:${d.id}`,
      label: d.version ? `${d.title} (${d.version})` : d.title,
      kind: "doc" as const,
      hint: d.status === "disabled" ? "disabled" : d.superseded_by ? "superseded" : d.doc_type === "regulatory" ? "regulatory" : "policy",
    }));
  const web = hit("web")
    ? [
        webEnabled
          ? { id: "web:search", label: "web", kind: "web" as const, hint: "Also search the web (shown apart from your library)" }
          : { id: "web:search", label: "web", kind: "web" as const, hint: "Web search is off (Settings)", disabled: true },
      ]
    : [];
  return [...actions.slice(0, 8), ...setItems.slice(0, 8), ...docItems.slice(0, 8), ...web];
}

export type Pills = { documents: string[]; set?: string; action?: Action; web?: boolean };

type JsonNode = { type?: string; attrs?: { id?: string | null }; content?: JsonNode[] };

/** The ids carried by the pills of an editor document. */
export function pillsOf(doc: JsonNode): Pills {
  const out: Pills = { documents: [] };
  const walk = (n: JsonNode) => {
    if (n.type === "mention" && n.attrs?.id) {
      const [kind, ...rest] = n.attrs.id.split(":");
      const value = rest.join(":");
      if (kind === "doc" && !out.documents.includes(value)) out.documents.push(value);
      if (kind === "set") out.set = value;
      if (kind === "action") out.action = value as Action;
      if (kind === "web") out.web = true;
    }
    n.content?.forEach(walk);
  };
  walk(doc);
  return out;
}
