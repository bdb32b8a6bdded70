// Typed IPC bindings: the only module that talks to the Tauri core. Every payload that comes
// back is validated with zod, so a shape change in Rust shows up as a clear error here instead
// of as undefined somewhere in a component.
import { Channel, invoke } from "@tauri-apps/api/core";
import { listen, type UnlistenFn } from "@tauri-apps/api/event";
import { getCurrentWebview } from "@tauri-apps/api/webview";
import { z } from "zod";

export const ErrorKind = z.enum([
  "invalid_input",
  "not_found",
  "duplicate",
  "unsupported_pdf",
  "model_missing",
  "model_mismatch",
  "remote",
  "no_keychain",
  "cancelled",
  "busy",
  "io",
  "internal",
  "not_ready",
]);
export type ErrorKind = z.infer<typeof ErrorKind>;

export const IpcErrorSchema = z.object({ kind: ErrorKind, message: z.string() });

/** An error from the core, with the stable kind the UI switches on. */
export class IpcError extends Error {
  constructor(
    public kind: ErrorKind | "protocol",
    message: string,
  ) {
    super(message);
  }
}

export const Profile = z.object({
  id: z.string(),
  name: z.string(),
  organisation: z.string().default(""),
  industry: z.string(),
  location: z.string(),
  created_at: z.string(),
  redact_pii: z.boolean().default(false),
  redact_names: z.array(z.string()).default([]),
  reviewer: z.boolean().default(false),
});
export type Profile = z.infer<typeof Profile>;

export const DocSet = z.object({
  id: z.string(),
  name: z.string(),
  colour: z.string(),
  document_count: z.number(),
});
export type DocSet = z.infer<typeof DocSet>;

export const DocType = z.enum(["regulatory", "policy"]);
export type DocType = z.infer<typeof DocType>;

export const Document = z.object({
  id: z.string(),
  title: z.string(),
  version: z.string(),
  doc_type: DocType,
  set_id: z.string().nullable(),
  set_name: z.string().nullable(),
  file_name: z.string(),
  page_count: z.number(),
  chunk_count: z.number(),
  empty_pages: z.array(z.number()),
  status: z.enum(["processing", "ready", "failed", "disabled"]),
  error: z.string().nullable(),
  supersedes: z.string().nullable(),
  superseded_by: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type Document = z.infer<typeof Document>;

export const Conversation = z.object({
  id: z.string(),
  title: z.string(),
  archived: z.boolean(),
  created_at: z.string(),
  updated_at: z.string(),
  preview: z.string().nullable(),
});
export type Conversation = z.infer<typeof Conversation>;

export const Citation = z.object({
  source_type: z.enum(["document", "web"]),
  document_id: z.string(),
  title: z.string(),
  version: z.string(),
  file_name: z.string(),
  page: z.number(),
  chunk_id: z.string(),
  quote: z.string(),
  url: z.string().nullish(),
  ocr_confidence: z.number().nullish(),
});
export type Citation = z.infer<typeof Citation>;

export const Level = z.enum(["high", "medium", "low"]);
export const Confidence = z.object({
  level: Level,
  score: z.number(),
  reason: z.string(),
  retrieval: z.number(),
  coverage: z.number(),
  verification: z.number(),
  missing: z.array(z.string()).default([]),
  grounding: z.number().default(1),
  closeness: z.number().nullable().default(null),
});
export type Confidence = z.infer<typeof Confidence>;

export const ChoiceOption = z.object({ id: z.string(), label: z.string() });
export type ChoiceOption = z.infer<typeof ChoiceOption>;

export const Usage = z.object({
  model: z.string(),
  prompt_tokens: z.number(),
  completion_tokens: z.number(),
  cost_usd: z.number(),
});
export type Usage = z.infer<typeof Usage>;

export const Status = z.enum(["answered", "refused", "needs_clarification", "not_available", "waiting_for_expert"]);
export type Status = z.infer<typeof Status>;
export const Action = z.enum(["inquire", "summarize", "compare", "audit"]);
export type Action = z.infer<typeof Action>;

export const Interrupt = z.object({
  kind: z.enum(["confirm_documents", "specify_documents", "low_confidence"]),
  prompt: z.string(),
  options: z.array(ChoiceOption),
});

export const Severity = z.enum(["critical", "high", "medium", "low"]);
export type Severity = z.infer<typeof Severity>;
export const AuditStatus = z.enum(["compliant", "minor_issues", "major_violations"]);
export type AuditStatus = z.infer<typeof AuditStatus>;
export const Finding = z.object({
  target_doc_id: z.string(),
  target_doc_title: z.string(),
  theme: z.string().nullish(),
  severity: Severity,
  summary: z.string(),
  consequence: z.string(),
  source_quote: z.string(),
  target: Citation,
  suggestion: z.string(),
  confidence_score: z.number(),
});
export type Finding = z.infer<typeof Finding>;
export const AuditReport = z.object({
  overall_status: AuditStatus,
  findings: z.array(Finding),
  summary: z.string(),
  themes_analyzed: z.number().nullish(),
});
export type AuditReport = z.infer<typeof AuditReport>;
export const CacheHit = z.object({ message_id: z.string(), question: z.string(), similarity: z.number(), answered_at: z.string() });
export const RetrievalInfo = z.object({ cached_from: CacheHit.nullish() });

export const TurnResult = z.object({
  thread_id: z.string(),
  message_id: z.string(),
  action: Action.nullable(),
  status: Status,
  text: z.string(),
  citations: z.array(Citation),
  confidence: Confidence.nullable(),
  options: z.array(ChoiceOption),
  usage: Usage.nullable(),
  cached: z.boolean(),
  audit: AuditReport.nullish(),
});
export type TurnResult = z.infer<typeof TurnResult>;

export const StoredMessage = z.object({
  id: z.string(),
  role: z.string(),
  content: z.string(),
  action: z.string().nullable(),
  citations: z.array(Citation),
  confidence: Confidence.nullable(),
  status: Status.nullable(),
  options: z.array(ChoiceOption),
  usage: Usage.nullable(),
  audit: AuditReport.nullish(),
  retrieval: RetrievalInfo.nullish(),
  created_at: z.string(),
});
export type StoredMessage = z.infer<typeof StoredMessage>;

export const ThreadView = z.object({
  conversation: Conversation,
  messages: z.array(StoredMessage),
  /** The last run stopped before its end (a crash or an error): resume continues it. */
  unfinished: z.boolean().default(false),
});
export type ThreadView = z.infer<typeof ThreadView>;

export const AgentEvent = z.discriminatedUnion("type", [
  z.object({ type: z.literal("started"), thread_id: z.string(), run_id: z.string() }),
  z.object({ type: z.literal("status"), message: z.string() }),
  z.object({ type: z.literal("token"), text: z.string() }),
  z.object({ type: z.literal("sources"), citations: z.array(Citation) }),
  z.object({ type: z.literal("confidence"), confidence: Confidence }),
  z.object({ type: z.literal("clarification"), interrupt: Interrupt }),
  z.object({ type: z.literal("done"), message: TurnResult }),
]);
export type AgentEvent = z.infer<typeof AgentEvent>;

export const Stage = z.enum(["reading", "extracting", "recognising", "chunking", "embedding", "indexing", "done"]);
export type Stage = z.infer<typeof Stage>;
export const IngestEvent = z.object({
  job_id: z.string(),
  phase: z.union([z.literal("queued"), z.object({ stage: Stage })]),
  done: z.number(),
  total: z.number(),
});
export type IngestEvent = z.infer<typeof IngestEvent>;

export const WordBox = z.object({ x: z.number(), y: z.number(), w: z.number(), h: z.number(), confidence: z.number() });
export type WordBox = z.infer<typeof WordBox>;
export const PageText = z.object({ before: z.string(), quote: z.string().nullable(), after: z.string(), boxes: z.array(WordBox) });
export type PageText = z.infer<typeof PageText>;

export const AppInfo = z.object({
  data_dir: z.string(),
  model_dir: z.string(),
  model_installed: z.boolean(),
  profile: Profile,
  profiles: z.array(Profile),
  llm_configured: z.boolean(),
  web_enabled: z.boolean().default(false),
  first_run: z.boolean().default(false),
});
export type AppInfo = z.infer<typeof AppInfo>;

export const ReviewEvidence = z.object({ document_id: z.string(), document: z.string(), page: z.number(), text: z.string() });
export type ReviewEvidence = z.infer<typeof ReviewEvidence>;
export const ReviewSummary = z.object({
  id: z.string(),
  asked_by: z.string(),
  question: z.string(),
  draft: z.string(),
  evidence: z.array(ReviewEvidence),
  status: z.enum(["pending", "answered", "withdrawn"]),
  asked_at: z.string(),
  age_secs: z.number(),
  reviewer: z.string().nullish(),
  thread_id: z.string(),
});
export type ReviewSummary = z.infer<typeof ReviewSummary>;
export type ExpertCitation = { document_id: string; page: number; quote: string };

export const AnswerMode = z.enum(["extractive", "openai", "local", "file"]);
export const UiSettings = z.object({
  mode: AnswerMode,
  base_url: z.string(),
  models: z.record(z.string(), z.string()),
  web_search: z.boolean().default(false),
  model_file: z.string().default(""),
  ocr: z.boolean().default(true),
  ocr_language: z.string().default("eng"),
  ocr_installed: z.array(z.string()).default([]),
  ocr_problem: z.string().nullish(),
});
export type UiSettings = z.infer<typeof UiSettings>;

/** Calls a command and validates its answer; rejects with an [`IpcError`]. */
async function call<T>(schema: z.ZodType<T>, cmd: string, args?: Record<string, unknown>): Promise<T> {
  let raw: unknown;
  try {
    raw = await invoke(cmd, args);
  } catch (e) {
    throw toIpcError(e);
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    throw new IpcError("protocol", `Unexpected answer from ${cmd}: ${parsed.error.issues[0]?.message ?? "invalid"}`);
  }
  return parsed.data;
}

export function toIpcError(e: unknown): IpcError {
  if (e instanceof IpcError) return e;
  const parsed = IpcErrorSchema.safeParse(e);
  if (parsed.success) return new IpcError(parsed.data.kind, parsed.data.message);
  return new IpcError("internal", typeof e === "string" ? e : String(e));
}

const Void = z.null().or(z.undefined()).transform(() => undefined);

export const api = {
  appInfo: () => call(AppInfo, "app_info"),
  /** The files the app was started with ("Open with PolicyPal"), once. */
  openedFiles: () => call(z.array(z.string()), "opened_files"),
  createProfile: (name: string, industry: string, location: string) =>
    call(Profile, "profile_create", { name, industry, location }),
  switchProfile: (id: string) => call(Profile, "profile_switch", { id }),
  updateProfile: (organisation: string, industry: string, location: string) =>
    call(Profile, "profile_update", { organisation, industry, location }),
  finishOnboarding: (name: string, organisation: string, industry: string, location: string) =>
    call(Profile, "onboarding_finish", { name, organisation, industry, location }),
  skipOnboarding: () => call(Void, "onboarding_skip"),
  sampleDocument: () => call(z.object({ path: z.string(), title: z.string(), question: z.string() }), "sample_document"),
  setPrivacy: (redactPii: boolean, names: string[]) => call(Profile, "profile_privacy", { redactPii, names }),

  documents: () => call(z.array(Document), "documents_list"),
  sets: () => call(z.array(DocSet), "sets_list"),
  palette: () => call(z.array(z.string()), "sets_palette"),
  recolorSet: (name: string, colour: string) => call(DocSet, "set_recolor", { name, colour }),
  createSet: (name: string, colour: string) => call(DocSet, "set_create", { name, colour }),
  ingest: (args: {
    job_id: string;
    path: string;
    title?: string;
    version?: string;
    doc_type: DocType;
    set?: string;
    supersedes?: string;
  }) => call(Document, "document_ingest", { args }),
  cancelIngest: (jobId: string) => call(z.boolean(), "ingest_cancel", { jobId }),
  deleteDocument: (id: string) => call(Void, "document_delete", { id }),
  setEnabled: (id: string, enabled: boolean) => call(Document, "document_set_enabled", { id, enabled }),
  openDocument: (id: string) => call(Void, "document_open", { id }),
  pageText: (id: string, page: number, quote: string) => call(PageText, "page_text", { id, page, quote }),
  documentPdf: (id: string) => call(z.instanceof(ArrayBuffer), "document_pdf", { id }),
  pickPdfs: () => call(z.array(z.string()), "pick_pdfs"),
  pickModelFile: () => call(z.string().nullable(), "pick_model_file"),
  openLink: (url: string) => call(Void, "open_link", { url }),

  ask: (
    args: {
      run_key: string;
      thread_id?: string;
      message_id?: string;
      text: string;
      documents: string[];
      set?: string;
      action?: Action;
      web?: boolean;
    },
    onEvent: (e: AgentEvent) => void,
  ) => call(TurnResult, "ask", { args, events: channel(onEvent) }),
  /** Answers a run's open question with `choice`, or (null) finishes a run that stopped early. */
  resume: (runKey: string, threadId: string, choice: string | null, onEvent: (e: AgentEvent) => void) =>
    call(TurnResult, "resume", { runKey, threadId, choice, events: channel(onEvent) }),
  cancelRun: (runKey: string) => call(z.boolean(), "run_cancel", { runKey }),

  reviews: (all: boolean) => call(z.array(ReviewSummary), "reviews_list", { all }),
  answerReview: (id: string, answer: string, citations: ExpertCitation[]) =>
    call(TurnResult, "review_answer", { id, reply: { reviewer: "", answer, citations } }),
  exportReview: (id: string) => call(z.string().nullable(), "review_export", { id }),
  importReview: () => call(TurnResult.nullable(), "review_import"),
  withdrawReview: (id: string) => call(TurnResult, "review_withdraw", { id }),
  setReviewer: (on: boolean) => call(Profile, "profile_reviewer", { on }),

  threads: (archived: boolean, query?: string) => call(z.array(Conversation), "threads_list", { archived, query }),
  thread: (id: string) => call(ThreadView, "thread_get", { id }),
  renameThread: (id: string, title: string) => call(Void, "thread_rename", { id, title }),
  archiveThread: (id: string, archived: boolean) => call(Void, "thread_archive", { id, archived }),
  exportThread: (id: string, format: "markdown" | "json" | "pdf", messageId?: string) =>
    call(z.string().nullable(), "thread_export", { id, format, messageId }),

  settings: () => call(UiSettings, "settings_get"),
  saveSettings: (settings: UiSettings) => call(UiSettings, "settings_save", { settings }),
  keyStatus: (name: string) => call(z.string().nullable(), "key_status", { name }),
  setKey: (name: string, value: string) => call(z.string(), "key_set", { name, value }),
  deleteKey: (name: string) => call(Void, "key_delete", { name }),
};

function channel(onEvent: (e: AgentEvent) => void): Channel<unknown> {
  const ch = new Channel<unknown>();
  ch.onmessage = (raw) => {
    const parsed = AgentEvent.safeParse(raw);
    if (parsed.success) onEvent(parsed.data);
    else console.warn("unexpected agent event", parsed.error.issues[0]);
  };
  return ch;
}

/** Ingestion progress of every job. */
export function onIngestProgress(cb: (e: IngestEvent) => void): Promise<UnlistenFn> {
  return listen<unknown>("ingest-progress", (ev) => {
    const parsed = IngestEvent.safeParse(ev.payload);
    if (parsed.success) cb(parsed.data);
  });
}

/** Documents were added, removed, enabled or disabled. */
export function onLibraryChanged(cb: () => void): Promise<UnlistenFn> {
  return listen("library-changed", () => cb());
}

/** Files dropped anywhere on the window (real paths, from the shell). */
export function onFileDrop(cb: (paths: string[]) => void, hover: (over: boolean) => void): Promise<UnlistenFn> {
  return getCurrentWebview().onDragDropEvent((event) => {
    const p = event.payload;
    if (p.type === "enter" || p.type === "over") hover(true);
    else if (p.type === "leave") hover(false);
    else if (p.type === "drop") {
      hover(false);
      cb(p.paths);
    }
  });
}

export const isTauri = () => typeof window !== "undefined" && "__TAURI_INTERNALS__" in window;

/** A random id (RFC 4122 v4). `crypto.randomUUID` needs a secure context, which a custom
 * protocol may not be, so the id is built from `getRandomValues`, available everywhere. */
export function uid(): string {
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = [...b].map((x) => x.toString(16).padStart(2, "0")).join("");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** Copies text; falls back to a hidden textarea where the async clipboard API is unavailable. */
export async function copyText(text: string): Promise<void> {
  if (navigator.clipboard?.writeText) {
    try {
      await navigator.clipboard.writeText(text);
      return;
    } catch {
      // fall through to the textarea
    }
  }
  const t = document.createElement("textarea");
  t.value = text;
  t.style.position = "fixed";
  t.style.opacity = "0";
  document.body.appendChild(t);
  t.select();
  document.execCommand("copy");
  t.remove();
}
