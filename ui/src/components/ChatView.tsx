// The conversation: stored messages (restored offline from the database), the answer being
// streamed, clarification and low-confidence options that resume the run, and the input.
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useDocuments, useSets } from "../library";
import { useEffect, useRef, useState } from "react";
import { api, toIpcError, uid, type AgentEvent, type ChoiceOption, type Citation, type IpcError, type TurnResult } from "../ipc";
import { useToast } from "../toast";
import { ChatInput, type Outgoing } from "./ChatInput";
import { AssistantMessage, UserMessage, type AssistantView } from "./Message";

type Live = {
  runKey: string;
  /** Id of the user message this run answers (null for a resumed run). */
  messageId: string | null;
  question: string | null;
  /** The stored assistant message this run replaces (a resumed run). */
  replaces: string | null;
  status: string;
  text: string;
  citations: Citation[];
  confidence: AssistantView["confidence"];
  result: TurnResult | null;
  error: IpcError | null;
};

export function ChatView(props: {
  threadId: string | null;
  onThreadStarted: (id: string) => void;
  onSources: (c: Citation[], focus: number | null) => void;
  onAddFiles: () => void;
  modelInstalled: boolean;
  modelDir: string;
  webEnabled?: boolean;
  /** A question to offer while the chat is empty. */
  suggestion?: string | null;
}) {
  const qc = useQueryClient();
  const toast = useToast();
  const [threadId, setThreadId] = useState(props.threadId);
  const [live, setLive] = useState<Live | null>(null);
  const [focusSignal, setFocusSignal] = useState(0);
  const thread = useQuery({ queryKey: ["thread", threadId], queryFn: () => api.thread(threadId ?? ""), enabled: threadId !== null });
  const docs = useDocuments();
  const sets = useSets();
  const bottom = useRef<HTMLDivElement>(null);
  const messages = thread.data?.messages ?? [];

  useEffect(() => bottom.current?.scrollIntoView({ block: "end" }), [messages.length, live?.text, live?.status]);

  // The sources panel follows the latest answer unless a citation was clicked (also when an
  // answer changes in place: a waiting message that became the expert's answer).
  const lastAssistant = [...messages].reverse().find((m) => m.role === "assistant");
  useEffect(() => {
    if (lastAssistant && !live) props.onSources(lastAssistant.citations, null);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [lastAssistant?.id, lastAssistant?.status, live === null]);

  const onEvent = (e: AgentEvent) =>
    setLive((l) => {
      if (!l) return l;
      switch (e.type) {
        case "started":
          if (!threadId) {
            setThreadId(e.thread_id);
            props.onThreadStarted(e.thread_id);
          }
          return l;
        case "status":
          return { ...l, status: e.message };
        case "token":
          return { ...l, text: l.text + e.text };
        case "sources":
          props.onSources(e.citations, null);
          return { ...l, citations: e.citations };
        case "confidence":
          return { ...l, confidence: e.confidence };
        case "clarification":
          return { ...l, status: "" };
        case "done":
          return { ...l, result: e.message };
      }
    });

  const finish = async (run: Promise<TurnResult>, runKey: string) => {
    try {
      const result = await run;
      const tid = result.thread_id;
      await qc.invalidateQueries({ queryKey: ["threads"] });
      await qc.refetchQueries({ queryKey: ["thread", tid] });
      setLive((l) => (l?.runKey === runKey ? null : l));
      props.onSources(result.citations, null);
    } catch (err) {
      const e = toIpcError(err);
      if (threadId) void qc.refetchQueries({ queryKey: ["thread", threadId] });
      setLive((l) => (l?.runKey === runKey ? { ...l, error: e, status: "" } : l));
    }
  };

  const send = (m: Outgoing) => {
    const runKey = uid();
    const messageId = uid();
    setLive({ runKey, messageId, question: m.text, replaces: null, status: "Starting…", text: "", citations: [], confidence: null, result: null, error: null });
    void finish(
      api.ask(
        {
          run_key: runKey,
          thread_id: threadId ?? undefined,
          message_id: messageId,
          text: m.text,
          documents: m.documents,
          set: m.set,
          action: m.action,
          web: m.web,
        },
        onEvent,
      ),
      runKey,
    );
  };

  const choose = (messageId: string, o: ChoiceOption) => {
    if (!threadId) return;
    if (o.id === "tag_documents" || o.id === "rephrase") setFocusSignal((n) => n + 1);
    if (o.id === "rephrase") return;
    const last = messages[messages.length - 1];
    const resumes =
      last?.status === "needs_clarification" || last?.status === "waiting_for_expert" || ["web", "continue", "expert"].includes(o.id);
    if (!resumes) {
      // A refusal's options are about the next message, not this run (except the low-confidence
      // prompt's "search the web", "continue anyway" and "ask an expert", which resume it).
      return;
    }
    const runKey = uid();
    setLive({ runKey, messageId: null, question: null, replaces: messageId, status: "Continuing…", text: "", citations: [], confidence: null, result: null, error: null });
    void finish(api.resume(runKey, threadId, o.id, onEvent), runKey);
  };

  // A run that stopped before its answer (the app or the computer went down, or it failed):
  // continued from its last checkpoint, not asked again.
  const resumeUnfinished = () => {
    if (!threadId) return;
    const runKey = uid();
    setLive({ runKey, messageId: null, question: null, replaces: null, status: "Resuming…", text: "", citations: [], confidence: null, result: null, error: null });
    void finish(api.resume(runKey, threadId, null, onEvent), runKey);
  };

  const stop = () => {
    if (live) void api.cancelRun(live.runKey).catch(toast.error);
  };

  const busy = live !== null && live.error === null;
  const lastId = messages[messages.length - 1]?.id;
  const liveAnswer: AssistantView | null = live
    ? live.result
      ? { ...live.result }
      : { text: live.text, citations: live.citations, confidence: live.confidence, status: null, options: [], usage: null }
    : null;

  return (
    <>
      <header className="flex h-14 shrink-0 items-center border-b border-slate-200 px-6">
        <h1 className="truncate text-base font-semibold text-slate-800">{thread.data?.conversation.title || (threadId ? "…" : "New chat")}</h1>
      </header>
      <div className="min-h-0 flex-1 overflow-y-auto px-6 py-4">
        {!props.modelInstalled && (
          <div className="mb-4 rounded-lg border border-amber-300 bg-amber-50 p-3 text-sm text-amber-900">
            The embedding model is not installed at <code>{props.modelDir}</code>. Run the set-up command from the README, then restart PolicyPal.
          </div>
        )}
        {threadId === null && !live && (
          <EmptyChat
            hasDocs={(docs.data?.length ?? 0) > 0}
            onAddFiles={props.onAddFiles}
            suggestion={docs.data?.some((d) => d.status === "ready") ? (props.suggestion ?? null) : null}
            onAsk={(text) => send({ text, documents: [] })}
          />
        )}
        {thread.isError && <p className="text-sm text-red-700">{toIpcError(thread.error).message}</p>}
        <div className="mx-auto max-w-3xl space-y-4">
          {messages
            .filter((m) => m.id !== live?.replaces)
            .map((m) =>
              m.role === "user" ? (
                <UserMessage key={m.id} text={m.content} />
              ) : (
                <AssistantMessage
                  key={m.id}
                  m={{
                    text: m.content,
                    citations: m.citations,
                    confidence: m.confidence,
                    status: m.status,
                    options: m.options,
                    usage: m.usage,
                    audit: m.audit,
                    cached: Boolean(m.retrieval?.cached_from),
                    cachedAt: m.retrieval?.cached_from?.answered_at ?? null,
                  }}
                  optionsActive={!busy && m.id === lastId}
                  onChoose={(o) => choose(m.id, o)}
                  onCite={props.onSources}
                  onLink={(url) => void api.openLink(url).catch(toast.error)}
                  onExport={
                    threadId
                      ? (format) =>
                          void api
                            .exportThread(threadId, format, m.id)
                            .then((path) => path && toast.info(`Exported to ${path}`))
                            .catch(toast.error)
                      : undefined
                  }
                />
              ),
            )}
          {live?.question && !messages.some((m) => m.id === live.messageId) && (
            <UserMessage text={live.question} />
          )}
          {live && liveAnswer && !live.error && !(live.result && live.replaces === null && messages.some((m) => m.id === live.result?.message_id)) && (
            <AssistantMessage
              m={liveAnswer}
              streaming={live.result ? null : live.status || "Working…"}
              optionsActive={false}
              onChoose={() => {}}
              onCite={props.onSources}
              onLink={() => {}}
            />
          )}
          {thread.data?.unfinished && !live && (
            <div className="rounded-xl border border-amber-300 bg-amber-50 px-4 py-3 text-sm text-amber-900" role="status" data-testid="interrupted">
              This answer was interrupted before it finished.
              <button className="ml-3 rounded-md bg-amber-600 px-3 py-1 text-xs font-medium text-white hover:bg-amber-700" onClick={resumeUnfinished}>
                Resume
              </button>
            </div>
          )}
          {live?.error && (
            <div className="rounded-xl border border-red-200 bg-red-50 px-4 py-3 text-sm text-red-800" role="alert">
              {live.error.kind === "cancelled" ? "Stopped." : live.error.message}
              <button className="ml-3 text-xs underline" onClick={() => setLive(null)}>
                Dismiss
              </button>
            </div>
          )}
          <div ref={bottom} />
        </div>
      </div>
      <ChatInput docs={docs.data ?? []} sets={sets.data ?? []} webEnabled={props.webEnabled} busy={busy} onSend={send} onStop={stop} focusSignal={focusSignal} />
    </>
  );
}

function EmptyChat(props: { hasDocs: boolean; onAddFiles: () => void; suggestion: string | null; onAsk: (text: string) => void }) {
  const { hasDocs, onAddFiles, suggestion, onAsk } = props;
  return (
    <div className="mx-auto mt-16 max-w-lg text-center text-slate-600">
      {hasDocs ? (
        <>
          <h2 className="text-xl font-semibold text-slate-800">Ask your library</h2>
          <p className="mt-2 text-sm">
            Every answer quotes the exact page it comes from. Type <b>@</b> to pick documents, a set, or an action such as
            summarize or compare. Without a language model, answers are verbatim sentences from your documents.
          </p>
          {suggestion && (
            <button className="mt-4 rounded-md border border-blue-300 bg-blue-50 px-4 py-2 text-sm text-blue-800 hover:bg-blue-100" onClick={() => onAsk(suggestion)} data-testid="suggested-question">
              Try: “{suggestion}”
            </button>
          )}
        </>
      ) : (
        <>
          <h2 className="text-xl font-semibold text-slate-800">Start with your first PDF</h2>
          <p className="mt-2 text-sm">
            Drop regulatory or policy PDFs anywhere on this window. They stay on this computer; PolicyPal works without an
            internet connection or a language model.
          </p>
          <button className="mt-4 rounded-md bg-blue-600 px-4 py-2 text-sm text-white hover:bg-blue-700" onClick={onAddFiles}>
            Choose PDFs…
          </button>
        </>
      )}
    </div>
  );
}
