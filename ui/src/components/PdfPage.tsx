// One page of a stored PDF rendered with pdf.js, the cited quote marked on it. The bytes come
// from the shell over IPC; nothing is fetched from the network, and eval is off for the CSP.
import * as pdfjs from "pdfjs-dist";
import workerUrl from "pdfjs-dist/build/pdf.worker.min.mjs?url";
import { useEffect, useRef, useState } from "react";
import { api, toIpcError, type WordBox } from "../ipc";

pdfjs.GlobalWorkerOptions.workerSrc = workerUrl;

const norm = (s: string) => s.replace(/\s+/g, " ").trim().toLowerCase();

/** `boxes`: the quote's words on a scanned page (points from the top-left corner), from OCR. */
export function PdfPage({ documentId, page, quote, boxes }: { documentId: string; page: number; quote: string; boxes?: WordBox[] }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const [marks, setMarks] = useState<{ x: number; y: number; w: number; h: number }[]>([]);
  const [state, setState] = useState<"loading" | "ready" | string>("loading");
  useEffect(() => {
    let cancelled = false;
    let doc: pdfjs.PDFDocumentProxy | null = null;
    (async () => {
      try {
        const bytes = await api.documentPdf(documentId);
        doc = await pdfjs.getDocument({ data: new Uint8Array(bytes), isEvalSupported: false }).promise;
        const p = await doc.getPage(page);
        const viewport = p.getViewport({ scale: 1.3 });
        const c = canvas.current;
        if (!c || cancelled) return;
        c.width = viewport.width;
        c.height = viewport.height;
        await p.render({ canvas: c, viewport }).promise;
        // Read the text stream by hand: WebKitGTK cannot iterate a ReadableStream with
        // `for await`, which getTextContent() relies on.
        const reader = p.streamTextContent().getReader() as ReadableStreamDefaultReader<{ items: unknown[] }>;
        const items: unknown[] = [];
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          items.push(...value.items);
        }
        // The page's text items joined in order; the items that overlap the quote are marked.
        const q = norm(quote);
        const parts: { item: { str: string; transform: number[]; width: number }; start: number; end: number }[] = [];
        let joined = "";
        for (const raw of items) {
          const item = raw as { str?: string; transform: number[]; width: number };
          if (typeof item.str !== "string" || !item.str.trim()) continue;
          const start = joined.length;
          joined += norm(item.str) + " ";
          parts.push({ item: { str: item.str, transform: item.transform, width: item.width }, start, end: joined.length - 1 });
        }
        let at = joined.indexOf(q);
        let len = q.length;
        if (at < 0 && q.length > 40) {
          // Line-end hyphenation or spacing can differ: fall back to the quote's opening words.
          len = 40;
          at = joined.indexOf(q.slice(0, 40));
        }
        const found: { x: number; y: number; w: number; h: number }[] = [];
        if (at >= 0) {
          for (const { item, start, end } of parts) {
            if (end <= at || start >= at + len) continue;
            const t = pdfjs.Util.transform(viewport.transform, item.transform) as number[];
            const h = Math.hypot(t[2], t[3]);
            found.push({ x: t[4], y: t[5] - h, w: item.width * viewport.scale, h: h * 1.2 });
          }
        }
        // A scan has no text layer for pdf.js to read: OCR placed the quote's words.
        if (found.length === 0 && boxes) {
          for (const b of boxes) found.push({ x: b.x * viewport.scale, y: b.y * viewport.scale, w: b.w * viewport.scale, h: b.h * viewport.scale });
        }
        if (!cancelled) {
          setMarks(found);
          setState("ready");
        }
      } catch (e) {
        if (!cancelled) setState(toIpcError(e).message);
      }
    })();
    return () => {
      cancelled = true;
      void doc?.destroy();
    };
  }, [documentId, page, quote, boxes]);
  return (
    <div className="relative mx-auto w-fit">
      {state === "loading" && <p className="p-4 text-sm text-slate-500">Rendering page {page}…</p>}
      {state !== "loading" && state !== "ready" && <p className="p-4 text-sm text-red-700">The PDF could not be shown: {state}</p>}
      <canvas ref={canvas} className="block shadow" aria-label={`Page ${page} of the PDF`} />
      {marks.map((m, i) => (
        <div key={i} className="pointer-events-none absolute bg-yellow-300/40" style={{ left: m.x, top: m.y, width: m.w, height: m.h }} data-quote-mark />
      ))}
    </div>
  );
}
