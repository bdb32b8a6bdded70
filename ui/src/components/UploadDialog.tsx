import * as Dialog from "@radix-ui/react-dialog";
import { useDocuments, useSets } from "../library";
import { useState } from "react";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { api, type DocType } from "../ipc";
import { useToast } from "../toast";
import { fileName, useJobs, type UploadForm } from "../jobs";
import { docLabel } from "./DocumentsTab";

/** A title from a file name: "bank-negara_capital 2024.pdf" → "bank negara capital 2024". */
export function titleFromFile(path: string): string {
  return fileName(path).replace(/\.pdf$/i, "").replace(/[_-]+/g, " ").replace(/\s+/g, " ").trim();
}

/** A version found in a file name (a year, or v1.2). */
export function versionFromFile(path: string): string {
  const n = fileName(path);
  return n.match(/\b(?:19|20)\d{2}\b/)?.[0] ?? n.match(/\bv?(\d+\.\d+(?:\.\d+)?)\b/i)?.[1] ?? "";
}

export function UploadDialog({ paths, onClose, onDone }: { paths: string[]; onClose: () => void; onDone: () => void }) {
  const { start } = useJobs();
  const sets = useSets();
  const docs = useDocuments();
  const [forms, setForms] = useState<UploadForm[]>(() =>
    paths.map((p) => ({
      path: p,
      title: titleFromFile(p),
      version: versionFromFile(p),
      doc_type: "regulatory" as DocType,
      set: "",
      supersedes: "",
    })),
  );
  const update = (i: number, patch: Partial<UploadForm>) => setForms((fs) => fs.map((f, j) => (j === i ? { ...f, ...patch } : f)));
  const setNames = sets.data?.map((s) => s.name) ?? [];
  const isNew = (name: string) => name.trim() !== "" && !setNames.some((n) => n.toLowerCase() === name.trim().toLowerCase());
  const palette = useQuery({ queryKey: ["palette"], queryFn: api.palette, staleTime: Infinity });
  const qc = useQueryClient();
  const toast = useToast();
  const [busy, setBusy] = useState(false);
  const add = async () => {
    // New sets with a chosen colour are created first; the files then join them by name.
    const fresh = new Map<string, string>();
    for (const f of forms) if (f.colour && isNew(f.set) && !fresh.has(f.set.trim())) fresh.set(f.set.trim(), f.colour);
    setBusy(true);
    try {
      for (const [name, colour] of fresh) await api.createSet(name, colour);
    } catch (e) {
      setBusy(false);
      toast.error(e);
      return;
    }
    void qc.invalidateQueries({ queryKey: ["sets"] });
    start(forms);
    onDone();
    onClose();
  };
  const ready = (docs.data ?? []).filter((d) => d.status === "ready");
  return (
    <Dialog.Root open onOpenChange={(o) => !o && onClose()}>
      <Dialog.Portal>
        <Dialog.Overlay className="fixed inset-0 z-40 bg-black/30" />
        <Dialog.Content className="fixed top-1/2 left-1/2 z-50 flex max-h-[85vh] w-[640px] -translate-x-1/2 -translate-y-1/2 flex-col rounded-xl bg-white shadow-xl">
          <Dialog.Title className="border-b px-5 py-3 text-base font-semibold">
            Add {forms.length} {forms.length === 1 ? "document" : "documents"}
          </Dialog.Title>
          <Dialog.Description className="sr-only">Label each PDF before it is added to the library.</Dialog.Description>
          <datalist id="set-names">
            {setNames.map((n) => (
              <option key={n} value={n} />
            ))}
          </datalist>
          <div className="min-h-0 flex-1 space-y-4 overflow-y-auto px-5 py-4">
            {forms.map((f, i) => (
              <fieldset key={f.path} className="rounded-lg border border-slate-200 p-3">
                <legend className="px-1 text-xs text-slate-500">{fileName(f.path)}</legend>
                <div className="grid grid-cols-[110px_1fr] items-center gap-x-3 gap-y-2 text-sm">
                  <label htmlFor={`t${i}`}>Title</label>
                  <input id={`t${i}`} className="rounded border px-2 py-1" value={f.title} onChange={(e) => update(i, { title: e.target.value })} />
                  <label htmlFor={`v${i}`}>Version</label>
                  <input id={`v${i}`} className="rounded border px-2 py-1" value={f.version} placeholder="e.g. 2024" onChange={(e) => update(i, { version: e.target.value })} />
                  <span>Type</span>
                  <div className="flex gap-4">
                    {(["regulatory", "policy"] as const).map((t) => (
                      <label key={t} className="flex items-center gap-1">
                        <input type="radio" name={`type${i}`} checked={f.doc_type === t} onChange={() => update(i, { doc_type: t })} />
                        {t === "regulatory" ? "Regulatory" : "Company policy"}
                      </label>
                    ))}
                  </div>
                  <label htmlFor={`s${i}`}>Set</label>
                  <div>
                    <input
                      id={`s${i}`}
                      list="set-names"
                      className="w-full rounded border px-2 py-1"
                      value={f.set}
                      placeholder="None (type to pick or create)"
                      onChange={(e) => update(i, { set: e.target.value })}
                    />
                    {isNew(f.set) && (
                      <div className="mt-1 flex items-center gap-1.5 text-xs text-slate-500" role="radiogroup" aria-label={`Colour of the new set ${f.set.trim()}`}>
                        <span>New set, colour:</span>
                        {(palette.data ?? []).map((c) => (
                          <button
                            key={c}
                            type="button"
                            role="radio"
                            aria-checked={f.colour === c}
                            aria-label={`New set colour ${c}`}
                            className={`h-4 w-4 rounded-full ${f.colour === c ? "ring-2 ring-slate-700 ring-offset-1" : ""}`}
                            style={{ background: c }}
                            onClick={() => update(i, { colour: f.colour === c ? undefined : c })}
                          />
                        ))}
                        {!f.colour && <span>(none picked: the next of the palette)</span>}
                      </div>
                    )}
                  </div>
                  <label htmlFor={`r${i}`}>Replaces</label>
                  <select id={`r${i}`} className="rounded border px-2 py-1" value={f.supersedes} onChange={(e) => update(i, { supersedes: e.target.value })}>
                    <option value="">Nothing (a new document)</option>
                    {ready.map((d) => (
                      <option key={d.id} value={d.id}>
                        {docLabel(d)}
                      </option>
                    ))}
                  </select>
                </div>
              </fieldset>
            ))}
          </div>
          <div className="flex justify-end gap-2 border-t px-5 py-3">
            <button className="rounded-md px-3 py-1.5 text-sm hover:bg-slate-100" onClick={onClose}>
              Cancel
            </button>
            <button
              className="rounded-md bg-blue-600 px-3 py-1.5 text-sm font-medium text-white hover:bg-blue-700 disabled:opacity-50"
              disabled={busy || forms.some((f) => !f.title.trim())}
              onClick={() => void add()}
            >
              Add to library
            </button>
          </div>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
