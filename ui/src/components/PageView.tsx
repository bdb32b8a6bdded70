import * as Dialog from "@radix-ui/react-dialog";
import { useQuery } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { api, toIpcError, type Citation } from "../ipc";
import { docLabel } from "./DocumentsTab";
import { PdfPage } from "./PdfPage";

/** The stored text of a cited page with the quote highlighted (works offline, no viewer needed). */
export function PageView({ citation, onClose }: { citation: Citation; onClose: () => void }) {
  const page = useQuery({
    queryKey: ["page", citation.document_id, citation.page, citation.quote],
    queryFn: () => api.pageText(citation.document_id, citation.page, citation.quote),
  });
  const mark = useRef<HTMLElement>(null);
  const [view, setView] = useState<"pdf" | "text">("pdf");
  useEffect(() => {
    mark.current?.scrollIntoView({ block: "center" });
  }, [page.data]);
  return (
    <Dialog.Root open onOpenChange={(o) => !o && onClose()}>
      <Dialog.Portal>
        <Dialog.Overlay className="fixed inset-0 z-40 bg-black/30" />
        <Dialog.Content className="fixed top-1/2 left-1/2 z-50 flex max-h-[85vh] w-[900px] -translate-x-1/2 -translate-y-1/2 flex-col rounded-xl bg-white shadow-xl">
          <div className="flex items-center gap-3 border-b px-5 py-3">
            <Dialog.Title className="text-base font-semibold">
              {docLabel(citation)} — page {citation.page}
              {citation.ocr_confidence != null && (
                <span className="ml-2 rounded bg-amber-100 px-1.5 text-xs font-normal text-amber-800">
                  scanned page, OCR {citation.ocr_confidence}% confidence
                </span>
              )}
            </Dialog.Title>
            <div className="ml-auto flex rounded-md border text-sm" role="group" aria-label="View">
              {(["pdf", "text"] as const).map((v) => (
                <button key={v} className={`px-2 py-1 ${view === v ? "bg-slate-800 text-white" : "hover:bg-slate-50"}`} onClick={() => setView(v)} aria-pressed={view === v}>
                  {v === "pdf" ? "Page" : "Text"}
                </button>
              ))}
            </div>
            <button
              className="rounded-md border px-2 py-1 text-sm hover:bg-slate-50"
              onClick={() => void api.openDocument(citation.document_id).catch(() => undefined)}
            >
              System viewer
            </button>
            <Dialog.Close className="rounded px-2 text-slate-500 hover:bg-slate-100" aria-label="Close">
              ✕
            </Dialog.Close>
          </div>
          <Dialog.Description className="sr-only">The text of the cited page with the quote highlighted.</Dialog.Description>
          {view === "pdf" ? (
            <div className="min-h-0 flex-1 overflow-auto bg-slate-100 p-4">
              <PdfPage documentId={citation.document_id} page={citation.page} quote={citation.quote} boxes={page.data?.boxes} />
            </div>
          ) : (
            <div className="min-h-0 flex-1 overflow-y-auto px-6 py-4 font-serif text-sm leading-relaxed whitespace-pre-wrap text-slate-800">
            {page.isError && <p className="text-red-700">{toIpcError(page.error).message}</p>}
            {page.data && (
              <>
                {page.data.before}
                {page.data.quote !== null && (
                  <mark ref={mark} className="quote">
                    {page.data.quote}
                  </mark>
                )}
                {page.data.after}
              </>
            )}
          </div>
          )}
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
