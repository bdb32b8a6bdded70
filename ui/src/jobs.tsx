// Ingestion jobs live above every screen, so their progress survives navigating away.
import { useQueryClient } from "@tanstack/react-query";
import { createContext, useCallback, useContext, useEffect, useState, type ReactNode } from "react";
import { api, isTauri, onIngestProgress, onLibraryChanged, toIpcError, uid, type DocType, type Stage } from "./ipc";

export type UploadForm = {
  path: string;
  title: string;
  version: string;
  doc_type: DocType;
  set: string;
  supersedes: string;
  /** The colour of a set the dialog creates (none: the next of the palette). */
  colour?: string;
};

export type Job = {
  id: string;
  file: string;
  title: string;
  phase: "queued" | Stage | "failed" | "cancelled";
  done: number;
  total: number;
  /** The file has scanned pages: OCR takes most of the time, the later stages the rest. */
  scanned?: boolean;
  error?: string;
};

const Ctx = createContext<{
  jobs: Job[];
  start: (forms: UploadForm[]) => void;
  cancel: (id: string) => void;
  dismiss: (id: string) => void;
}>({ jobs: [], start: () => {}, cancel: () => {}, dismiss: () => {} });

export const fileName = (p: string) => p.split(/[\\/]/).pop() ?? p;

export function JobsProvider({ children }: { children: ReactNode }) {
  const [jobs, setJobs] = useState<Job[]>([]);
  const qc = useQueryClient();

  useEffect(() => {
    if (!isTauri()) return;
    const subs = [
      onIngestProgress((e) => {
        setJobs((all) =>
          all.map((j) =>
            j.id === e.job_id && j.phase !== "failed" && j.phase !== "cancelled"
              ? {
                  ...j,
                  phase: e.phase === "queued" ? "queued" : e.phase.stage,
                  done: e.done,
                  total: e.total,
                  scanned: j.scanned || (e.phase !== "queued" && e.phase.stage === "recognising"),
                }
              : j,
          ),
        );
      }),
      onLibraryChanged(() => {
        void qc.invalidateQueries({ queryKey: ["documents"] });
        void qc.invalidateQueries({ queryKey: ["sets"] });
      }),
    ];
    return () => subs.forEach((p) => void p.then((un) => un()));
  }, [qc]);

  const start = useCallback((forms: UploadForm[]) => {
    for (const f of forms) {
      const id = uid();
      setJobs((all) => [
        ...all,
        { id, file: fileName(f.path), title: f.title || fileName(f.path), phase: "queued", done: 0, total: 0 },
      ]);
      api
        .ingest({
          job_id: id,
          path: f.path,
          title: f.title || undefined,
          version: f.version || undefined,
          doc_type: f.doc_type,
          set: f.set || undefined,
          supersedes: f.supersedes || undefined,
        })
        .then(() => setJobs((all) => all.filter((j) => j.id !== id)))
        .catch((e) => {
          const err = toIpcError(e);
          setJobs((all) =>
            all.map((j) =>
              j.id === id
                ? { ...j, phase: err.kind === "cancelled" ? "cancelled" : "failed", error: err.message }
                : j,
            ),
          );
        });
    }
  }, []);

  const cancel = useCallback((id: string) => void api.cancelIngest(id), []);
  const dismiss = useCallback((id: string) => setJobs((all) => all.filter((j) => j.id !== id)), []);
  return <Ctx.Provider value={{ jobs, start, cancel, dismiss }}>{children}</Ctx.Provider>;
}

export const useJobs = () => useContext(Ctx);

const STAGE_LABEL: Record<Job["phase"], string> = {
  queued: "Waiting",
  reading: "Reading",
  extracting: "Extracting text",
  recognising: "Recognising scanned page",
  chunking: "Splitting into passages",
  embedding: "Embedding",
  indexing: "Indexing",
  done: "Done",
  failed: "Failed",
  cancelled: "Cancelled",
};

/** Overall progress 0–1 across the stages (embedding dominates the time, unless pages are OCR'd). */
export function jobProgress(j: Job): number {
  const within = j.total > 0 ? j.done / j.total : 0;
  if (j.phase === "recognising") return 0.05 + 0.55 * within;
  const base = textProgress(j, within);
  return j.scanned && base > 0.05 && base < 1 ? 0.6 + 0.4 * base : base;
}

function textProgress(j: Job, within: number): number {
  switch (j.phase) {
    case "queued":
      return 0;
    case "reading":
      return 0.02;
    case "extracting":
      return 0.02 + 0.08 * within;
    case "chunking":
      return 0.1;
    case "embedding":
      return 0.12 + 0.83 * within;
    case "indexing":
      return 0.96;
    default:
      return 1;
  }
}

export const stageLabel = (j: Job) =>
  STAGE_LABEL[j.phase] + (j.total > 0 && (j.phase === "extracting" || j.phase === "recognising" || j.phase === "embedding") ? ` ${j.done}/${j.total}` : "");
