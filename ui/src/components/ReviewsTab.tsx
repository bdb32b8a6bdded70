// The review inbox: questions escalated with "Ask an expert", oldest first with their age. A
// reviewer profile answers them here (its citations are verified on their pages before the
// answer reaches the asker's conversation); any request can be exported as a file for a colleague
// and their filled-in reply imported; the asker can withdraw its own.
import * as Dialog from "@radix-ui/react-dialog";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { api, type AppInfo, type ExpertCitation, type ReviewSummary } from "../ipc";
import { useToast } from "../toast";

export function age(secs: number): string {
  if (secs < 3600) return `${Math.floor(secs / 60)} min`;
  if (secs < 86400) return `${Math.floor(secs / 3600)} h`;
  return `${Math.floor(secs / 86400)} d`;
}

export function ReviewsTab({ info, onOpenThread }: { info: AppInfo; onOpenThread: (id: string) => void }) {
  const qc = useQueryClient();
  const toast = useToast();
  const [all, setAll] = useState(false);
  const [open, setOpen] = useState<ReviewSummary | null>(null);
  const list = useQuery({ queryKey: ["reviews", info.profile.id, all], queryFn: () => api.reviews(all), refetchInterval: 30_000 });
  const importReply = useMutation({
    mutationFn: api.importReview,
    onSuccess: (turn) => {
      if (!turn) return;
      toast.info("The expert's reply was imported into the conversation.");
      void qc.invalidateQueries();
    },
    onError: toast.error,
  });
  return (
    <div className="px-2 py-2 text-sm" data-testid="reviews">
      <div className="mb-2 flex items-center gap-2 px-2 text-xs text-slate-600">
        <label className="flex items-center gap-1">
          <input type="checkbox" checked={all} onChange={(e) => setAll(e.target.checked)} /> Answered too
        </label>
        <button className="ml-auto rounded border px-2 py-0.5 hover:bg-white" onClick={() => importReply.mutate()}>
          Import reply…
        </button>
      </div>
      {list.data?.length === 0 && (
        <p className="px-2 py-4 text-center text-xs text-slate-500">
          {info.profile.reviewer
            ? "No question is waiting for an expert."
            : "Questions you send with “Ask an expert” wait here. To answer other profiles' questions, mark this profile as a reviewer in Settings."}
        </p>
      )}
      <ul>
        {list.data?.map((r) => (
          <li key={r.id}>
            <button className="w-full rounded-md px-2 py-2 text-left hover:bg-white" onClick={() => setOpen(r)} data-review={r.id}>
              <div className="line-clamp-2 text-slate-800">{r.question}</div>
              <div className="mt-0.5 text-xs text-slate-500">
                {r.asked_by} · {age(r.age_secs)} ago · {r.status === "pending" ? "waiting" : r.status}
                {r.reviewer ? ` · ${r.reviewer}` : ""}
              </div>
            </button>
          </li>
        ))}
      </ul>
      {open && (
        <ReviewDialog
          review={open}
          info={info}
          onClose={() => setOpen(null)}
          onDone={(threadId) => {
            setOpen(null);
            void qc.invalidateQueries();
            if (threadId) onOpenThread(threadId);
          }}
        />
      )}
    </div>
  );
}

function ReviewDialog(props: { review: ReviewSummary; info: AppInfo; onClose: () => void; onDone: (threadId: string | null) => void }) {
  const { review: r, info } = props;
  const toast = useToast();
  const [answer, setAnswer] = useState("");
  const [cites, setCites] = useState<ExpertCitation[]>([]);
  const own = r.asked_by === info.profile.name;
  const canAnswer = info.profile.reviewer && r.status === "pending";
  const send = useMutation({
    mutationFn: () => api.answerReview(r.id, answer, cites),
    onSuccess: (turn) => {
      toast.info(`Answer sent to ${r.asked_by}.`);
      props.onDone(own ? turn.thread_id : null);
    },
    onError: toast.error,
  });
  const withdraw = useMutation({ mutationFn: () => api.withdrawReview(r.id), onSuccess: (t) => props.onDone(t.thread_id), onError: toast.error });
  const exportFile = useMutation({
    mutationFn: () => api.exportReview(r.id),
    onSuccess: (path) => path && toast.info(`Exported to ${path}`),
    onError: toast.error,
  });
  const firstSentence = (t: string) => (t.match(/^[\s\S]{20,300}?[.;:](\s|$)/)?.[0] ?? t.slice(0, 200)).trim();
  return (
    <Dialog.Root open onOpenChange={(o) => !o && props.onClose()}>
      <Dialog.Portal>
        <Dialog.Overlay className="fixed inset-0 z-40 bg-slate-900/40" />
        <Dialog.Content className="fixed top-1/2 left-1/2 z-50 flex max-h-[85vh] w-[720px] -translate-x-1/2 -translate-y-1/2 flex-col rounded-xl bg-white shadow-xl">
          <div className="border-b px-5 py-3">
            <Dialog.Title className="font-semibold text-slate-800">Question for an expert</Dialog.Title>
            <Dialog.Description className="text-xs text-slate-500">
              Asked by {r.asked_by}, {age(r.age_secs)} ago · request {r.id.slice(0, 8)}
            </Dialog.Description>
          </div>
          <div className="min-h-0 flex-1 space-y-3 overflow-y-auto px-5 py-3 text-sm">
            <p className="font-medium text-slate-800">{r.question}</p>
            {r.draft && (
              <details>
                <summary className="cursor-pointer text-xs text-slate-500">PolicyPal's draft (not shown to the asker: the evidence was too weak)</summary>
                <p className="mt-1 whitespace-pre-wrap text-xs text-slate-600">{r.draft}</p>
              </details>
            )}
            <div>
              <h4 className="mb-1 text-xs font-semibold text-slate-600 uppercase">Candidate evidence</h4>
              {r.evidence.length === 0 && <p className="text-xs text-slate-500">No passage of the asker's documents came close.</p>}
              <ul className="space-y-2">
                {r.evidence.map((e, i) => (
                  <li key={i} className="rounded border border-slate-200 p-2">
                    <div className="mb-1 flex items-center text-xs text-slate-500">
                      {e.document} · page {e.page}
                      {canAnswer && (
                        <button
                          className="ml-auto rounded border px-2 py-0.5 hover:bg-slate-50"
                          onClick={() => setCites((c) => [...c, { document_id: e.document_id, page: e.page, quote: firstSentence(e.text) }])}
                        >
                          Cite
                        </button>
                      )}
                    </div>
                    <p className="line-clamp-4 text-xs whitespace-pre-wrap text-slate-700">{e.text}</p>
                  </li>
                ))}
              </ul>
            </div>
            {canAnswer && (
              <div className="space-y-2">
                <label htmlFor="expert-answer" className="block text-xs font-semibold text-slate-600 uppercase">
                  Your answer
                </label>
                <textarea id="expert-answer" className="h-24 w-full rounded border px-2 py-1" value={answer} onChange={(e) => setAnswer(e.target.value)} />
                {cites.map((c, i) => (
                  <div key={i} className="rounded border border-blue-200 bg-blue-50/50 p-2 text-xs">
                    <div className="mb-1 flex text-slate-600">
                      Citation {i + 1}: page {c.page} (the words exactly as printed there)
                      <button className="ml-auto text-slate-500 hover:text-red-600" onClick={() => setCites((cs) => cs.filter((_, j) => j !== i))} aria-label={`Remove citation ${i + 1}`}>
                        ✕
                      </button>
                    </div>
                    <textarea
                      className="h-12 w-full rounded border px-2 py-1"
                      value={c.quote}
                      aria-label={`Quote of citation ${i + 1}`}
                      onChange={(e) => setCites((cs) => cs.map((x, j) => (j === i ? { ...x, quote: e.target.value } : x)))}
                    />
                  </div>
                ))}
              </div>
            )}
            {!info.profile.reviewer && r.status === "pending" && (
              <p className="text-xs text-slate-500">
                This profile is not a reviewer: export the request for a colleague, then import their reply, or answer it from a reviewer profile.
              </p>
            )}
          </div>
          <div className="flex items-center gap-2 border-t px-5 py-3">
            <button className="rounded-md border px-3 py-1.5 hover:bg-slate-50" onClick={() => exportFile.mutate()}>
              Export for a colleague…
            </button>
            {own && r.status === "pending" && (
              <button className="rounded-md border px-3 py-1.5 text-red-700 hover:bg-red-50" onClick={() => withdraw.mutate()}>
                Withdraw
              </button>
            )}
            <Dialog.Close className="ml-auto rounded-md border px-3 py-1.5 hover:bg-slate-50">Close</Dialog.Close>
            {canAnswer && (
              <button
                className="rounded-md bg-blue-600 px-4 py-1.5 text-white hover:bg-blue-700 disabled:opacity-50"
                disabled={!answer.trim() || send.isPending}
                onClick={() => send.mutate()}
              >
                Send answer
              </button>
            )}
          </div>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
