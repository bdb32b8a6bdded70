import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useDocuments, useSets } from "../library";
import { useState } from "react";
import { api, type DocSet, type Document } from "../ipc";
import { jobProgress, stageLabel, useJobs } from "../jobs";
import { useToast } from "../toast";
import { Confirm } from "./Confirm";

export const docLabel = (d: { title: string; version: string }) => (d.version ? `${d.title} (${d.version})` : d.title);

/** Documents grouped by set name (no set last), each group sorted by title then version. */
export function groupBySet(docs: Document[]): [string | null, Document[]][] {
  const groups = new Map<string | null, Document[]>();
  for (const d of docs) {
    const k = d.set_name ?? null;
    groups.set(k, [...(groups.get(k) ?? []), d]);
  }
  return [...groups.entries()]
    .sort(([a], [b]) => (a === null ? 1 : b === null ? -1 : a.localeCompare(b)))
    .map(([k, ds]) => [k, ds.sort((x, y) => x.title.localeCompare(y.title) || x.version.localeCompare(y.version))]);
}

export function DocumentsTab({ onAddFiles }: { onAddFiles: () => void }) {
  const docs = useDocuments();
  const sets = useSets();
  const { jobs, cancel, dismiss } = useJobs();
  const colour = (name: string | null) => sets.data?.find((s: DocSet) => s.name === name)?.colour ?? "#94a3b8";
  const byId = new Map((docs.data ?? []).map((d) => [d.id, d]));
  return (
    <div className="px-2 py-2">
      {jobs.length > 0 && (
        <section className="mb-3 space-y-2 px-2" aria-label="Ingestion progress">
          {jobs.map((j) => (
            <div key={j.id} className="rounded-md border border-slate-200 bg-white p-2 text-xs">
              <div className="flex items-center gap-2">
                <span className="truncate font-medium text-slate-700">{j.title}</span>
                {j.phase === "failed" || j.phase === "cancelled" ? (
                  <button className="ml-auto text-slate-500 hover:text-slate-800" onClick={() => dismiss(j.id)} aria-label="Dismiss">
                    ✕
                  </button>
                ) : (
                  <button className="ml-auto text-slate-500 hover:text-red-700" onClick={() => cancel(j.id)}>
                    Cancel
                  </button>
                )}
              </div>
              {j.phase === "failed" || j.phase === "cancelled" ? (
                <p className={`mt-1 ${j.phase === "failed" ? "text-red-700" : "text-slate-500"}`}>{j.error ?? stageLabel(j)}</p>
              ) : (
                <>
                  <div className="mt-1 h-1.5 overflow-hidden rounded bg-slate-200" role="progressbar" aria-valuenow={Math.round(jobProgress(j) * 100)} aria-valuemin={0} aria-valuemax={100}>
                    <div className="h-full bg-blue-600 transition-all" style={{ width: `${Math.round(jobProgress(j) * 100)}%` }} />
                  </div>
                  <p className="mt-1 text-slate-500">{stageLabel(j)}</p>
                </>
              )}
            </div>
          ))}
        </section>
      )}
      {docs.data?.length === 0 && jobs.length === 0 && (
        <div className="mx-2 mt-6 rounded-xl border-2 border-dashed border-slate-300 p-6 text-center text-sm text-slate-500">
          <p className="font-medium text-slate-700">Your library is empty</p>
          <p className="mt-1">Drop PDFs anywhere on the window, or</p>
          <button className="mt-3 rounded-md bg-blue-600 px-3 py-1.5 text-white" onClick={onAddFiles}>
            Choose PDFs…
          </button>
        </div>
      )}
      {groupBySet(docs.data ?? []).map(([set, list]) => (
        <section key={set ?? "-"} className="mb-3">
          <h3 className="flex items-center gap-2 px-3 py-1 text-xs font-semibold tracking-wide text-slate-500 uppercase">
            {set === null ? (
              <span className="h-2.5 w-2.5 rounded-full" style={{ background: colour(set) }} aria-hidden />
            ) : (
              <SetColour name={set} colour={colour(set)} />
            )}
            {set ?? "No set"}
          </h3>
          <ul>
            {list.map((d) => (
              <DocRow key={d.id} d={d} accent={colour(set)} replacedBy={d.superseded_by ? byId.get(d.superseded_by) : undefined} />
            ))}
          </ul>
        </section>
      ))}
    </div>
  );
}

/** A set's colour dot; clicking it offers the palette, and a choice recolours the set. */
function SetColour({ name, colour }: { name: string; colour: string }) {
  const qc = useQueryClient();
  const toast = useToast();
  const [open, setOpen] = useState(false);
  const palette = useQuery({ queryKey: ["palette"], queryFn: api.palette, enabled: open, staleTime: Infinity });
  const recolor = useMutation({
    mutationFn: (c: string) => api.recolorSet(name, c),
    onSuccess: () => {
      setOpen(false);
      void qc.invalidateQueries({ queryKey: ["sets"] });
    },
    onError: toast.error,
  });
  return (
    <span className="relative inline-flex">
      <button
        className="h-2.5 w-2.5 rounded-full ring-offset-1 hover:ring-2 hover:ring-slate-400"
        style={{ background: colour }}
        aria-label={`Colour of ${name}`}
        aria-expanded={open}
        onClick={() => setOpen((o) => !o)}
      />
      {open && (
        <span role="menu" aria-label={`Colours for ${name}`} className="absolute top-4 left-0 z-10 flex gap-1 rounded-md border border-slate-200 bg-white p-1.5 shadow">
          {(palette.data ?? []).map((c) => (
            <button
              key={c}
              role="menuitemradio"
              aria-checked={c === colour}
              aria-label={`Use colour ${c}`}
              className={`h-4 w-4 rounded-full ${c === colour ? "ring-2 ring-slate-700 ring-offset-1" : ""}`}
              style={{ background: c }}
              disabled={recolor.isPending}
              onClick={() => recolor.mutate(c)}
            />
          ))}
        </span>
      )}
    </span>
  );
}

const STATUS_STYLE: Record<Document["status"], string> = {
  ready: "bg-emerald-100 text-emerald-800",
  processing: "bg-blue-100 text-blue-800",
  failed: "bg-red-100 text-red-800",
  disabled: "bg-slate-200 text-slate-600",
};

function DocRow({ d, accent, replacedBy }: { d: Document; accent: string; replacedBy?: Document }) {
  const qc = useQueryClient();
  const toast = useToast();
  const [confirm, setConfirm] = useState(false);
  const refresh = () => {
    void qc.invalidateQueries({ queryKey: ["documents"] });
    void qc.invalidateQueries({ queryKey: ["sets"] });
  };
  const del = useMutation({ mutationFn: () => api.deleteDocument(d.id), onSuccess: refresh, onError: toast.error });
  const toggle = useMutation({ mutationFn: () => api.setEnabled(d.id, d.status === "disabled"), onSuccess: refresh, onError: toast.error });
  const reg = d.doc_type === "regulatory";
  return (
    <li className="group mx-1 rounded-md border-l-4 py-1.5 pr-2 pl-2 hover:bg-slate-200/60" style={{ borderColor: accent }}>
      <div className="flex items-center gap-2">
        <span
          className={`shrink-0 rounded px-1 text-[10px] font-semibold uppercase ${reg ? "bg-amber-100 text-[var(--color-reg)]" : "bg-green-100 text-[var(--color-pol)]"}`}
          title={reg ? "Regulatory document" : "Company policy"}
        >
          {reg ? "Reg" : "Policy"}
        </span>
        <span className={`truncate text-sm ${d.superseded_by ? "text-slate-400 line-through" : "text-slate-800"}`} title={docLabel(d)}>
          {docLabel(d)}
        </span>
        <span className={`ml-auto shrink-0 rounded px-1.5 text-[10px] ${STATUS_STYLE[d.status]}`}>{d.status}</span>
      </div>
      <div className="flex items-center gap-2 pl-1 text-xs text-slate-500">
        <span className="shrink-0 whitespace-nowrap">{d.page_count} {d.page_count === 1 ? "page" : "pages"}</span>
        {d.empty_pages.length > 0 && (
          <span className="shrink-0 whitespace-nowrap" title={`Pages without text: ${d.empty_pages.join(", ")}`}>
            · {d.empty_pages.length} without text
          </span>
        )}
        {replacedBy && <span className="min-w-0 truncate">· superseded by {docLabel(replacedBy)}</span>}
        <span className="ml-auto hidden gap-2 group-hover:flex">
          {(d.status === "ready" || d.status === "disabled") && (
            <button className="hover:text-slate-800" onClick={() => toggle.mutate()}>
              {d.status === "disabled" ? "Enable" : "Disable"}
            </button>
          )}
          <button className="hover:text-red-700" onClick={() => setConfirm(true)}>
            Delete
          </button>
        </span>
      </div>
      {d.status === "failed" && d.error && <p className="pl-1 text-xs text-red-700">{d.error}</p>}
      <Confirm
        open={confirm}
        title="Delete this document?"
        body={
          <>
            <b>{docLabel(d)}</b> and its stored copy are removed from the library. Past answers keep their quotes.
          </>
        }
        action="Delete"
        onCancel={() => setConfirm(false)}
        onConfirm={() => {
          setConfirm(false);
          del.mutate();
        }}
      />
    </li>
  );
}
