import { useEffect, useRef, useState } from "react";
import { api, type Citation } from "../ipc";
import { showCells } from "../markdown";
import { useToast } from "../toast";
import { docLabel } from "./DocumentsTab";
import { PageView } from "./PageView";

export type SourcesState = { citations: Citation[]; focus: number | null };

export function SourcesPanel({ open, onToggle, state }: { open: boolean; onToggle: () => void; state: SourcesState }) {
  const toast = useToast();
  const [viewing, setViewing] = useState<Citation | null>(null);
  const refs = useRef<Map<number, HTMLElement>>(new Map());
  useEffect(() => {
    if (state.focus !== null) refs.current.get(state.focus)?.scrollIntoView({ block: "nearest", behavior: "smooth" });
  }, [state]);
  if (!open) {
    return (
      <button className="w-8 shrink-0 bg-slate-50 text-xs text-slate-500 hover:bg-slate-100" onClick={onToggle} aria-label="Show sources" title="Show sources">
        <span className="inline-block -rotate-90 whitespace-nowrap">Sources ({state.citations.length})</span>
      </button>
    );
  }
  const groups = new Map<string, { label: string; items: [number, Citation][] }>();
  state.citations.forEach((c, i) => {
    const g = groups.get(c.document_id) ?? { label: docLabel(c), items: [] };
    g.items.push([i, c]);
    groups.set(c.document_id, g);
  });
  return (
    <aside className="flex w-[300px] shrink-0 flex-col bg-slate-50" aria-label="Sources">
      <div className="flex items-center border-b border-slate-200 px-4 py-3">
        <h2 className="text-sm font-semibold text-slate-700">Sources</h2>
        <button className="ml-auto rounded px-1.5 text-slate-500 hover:bg-slate-200" onClick={onToggle} aria-label="Hide sources" title="Hide sources">
          ⇥
        </button>
      </div>
      <div className="min-h-0 flex-1 overflow-y-auto px-3 py-3">
        {state.citations.length === 0 && <p className="px-1 text-sm text-slate-500">The excerpts an answer cites appear here.</p>}
        {[...groups.entries()].map(([docId, g]) => (
          <section key={docId} className="mb-4">
            <h3 className="mb-1 text-xs font-semibold text-slate-600">📄 {g.label}</h3>
            {g.items.map(([i, c]) => (
              <figure
                key={i}
                ref={(el) => {
                  if (el) refs.current.set(i, el);
                  else refs.current.delete(i);
                }}
                className={`mb-2 rounded-lg border bg-white p-2 text-sm ${state.focus === i ? "border-indigo-400 ring-2 ring-indigo-200" : "border-slate-200"}`}
              >
                <figcaption className="mb-1 flex items-center gap-2 text-xs text-slate-500">
                  <span className="rounded-full bg-indigo-100 px-1.5 text-indigo-800">{i + 1}</span>
                  page {c.page}
                  {c.ocr_confidence != null && (
                    <span
                      className="rounded bg-amber-100 px-1.5 text-amber-800"
                      title="This page is a scan; its text was recognised by OCR. The quote matches the recognised text."
                    >
                      OCR · {c.ocr_confidence}% confidence
                    </span>
                  )}
                </figcaption>
                <blockquote className="text-slate-700">“{showCells(c.quote)}”</blockquote>
                <div className="mt-1.5 flex gap-3 text-xs">
                  <button className="text-blue-700 hover:underline" onClick={() => setViewing(c)}>
                    View page
                  </button>
                  <button className="text-blue-700 hover:underline" onClick={() => void api.openDocument(c.document_id).catch(toast.error)}>
                    Open PDF
                  </button>
                </div>
              </figure>
            ))}
          </section>
        ))}
      </div>
      {viewing && <PageView citation={viewing} onClose={() => setViewing(null)} />}
    </aside>
  );
}
