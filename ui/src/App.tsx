// The window: left sidebar (Chats | Documents), the chat, and the sources panel on the right.
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useCallback, useEffect, useState } from "react";
import { ChatView } from "./components/ChatView";
import { SettingsDialog } from "./components/SettingsDialog";
import { Sidebar, type SidebarTab } from "./components/Sidebar";
import { SourcesPanel, type SourcesState } from "./components/SourcesPanel";
import { UploadDialog } from "./components/UploadDialog";
import { Welcome } from "./components/Welcome";
import { api, isTauri, onFileDrop, toIpcError, type Citation } from "./ipc";
import { useToast } from "./toast";

export default function App() {
  const info = useQuery({ queryKey: ["info"], queryFn: api.appInfo, enabled: isTauri() });
  const qc = useQueryClient();
  const toast = useToast();
  const [tab, setTab] = useState<SidebarTab>("chats");
  const [threadId, setThreadId] = useState<string | null>(null);
  const [sources, setSources] = useState<SourcesState>({ citations: [], focus: null });
  const [sourcesOpen, setSourcesOpen] = useState(true);
  const [upload, setUpload] = useState<string[] | null>(null);
  const [dragging, setDragging] = useState(false);
  const [settingsOpen, setSettingsOpen] = useState(false);
  /** A question to offer in an empty chat (the sample document's, after the first run). */
  const [suggestion, setSuggestion] = useState<string | null>(null);

  /** Files dropped on the window or opened with the app: the PDFs go to the upload dialog. */
  const offerFiles = useCallback(
    (paths: string[]) => {
      const pdfs = paths.filter((p) => p.toLowerCase().endsWith(".pdf"));
      if (pdfs.length < paths.length) toast.error(`Only PDF files can be added (${paths.length - pdfs.length} skipped).`);
      if (pdfs.length > 0) setUpload((cur) => [...(cur ?? []), ...pdfs]);
    },
    [toast],
  );

  useEffect(() => {
    if (!isTauri()) return;
    const un = onFileDrop(offerFiles, setDragging);
    return () => void un.then((f) => f());
  }, [offerFiles]);

  // Files the app was started with ("Open with PolicyPal" on a PDF) go to the upload dialog,
  // once the library is open and the first-run onboarding is done.
  const ready = !!info.data && !info.data.first_run;
  useEffect(() => {
    if (!ready) return;
    api
      .openedFiles()
      .then(offerFiles)
      .catch((e) => toast.error(e));
  }, [ready, offerFiles, toast]);

  const showSources = useCallback((citations: Citation[], focus: number | null) => {
    setSources({ citations, focus });
    if (focus !== null) setSourcesOpen(true);
  }, []);

  const pickFiles = useCallback(async () => {
    try {
      const paths = await api.pickPdfs();
      if (paths.length > 0) setUpload(paths);
    } catch (e) {
      toast.error(e);
    }
  }, [toast]);

  const profileChanged = useCallback(() => {
    setThreadId(null);
    setSources({ citations: [], focus: null });
    void qc.invalidateQueries();
  }, [qc]);

  if (!isTauri()) {
    return <div className="p-8 text-slate-600">PolicyPal's interface runs inside the desktop app.</div>;
  }
  if (info.isError) {
    const e = toIpcError(info.error);
    return (
      <div className="flex h-full items-center justify-center p-8">
        <div className="max-w-lg rounded-xl border border-red-200 bg-white p-6 shadow">
          <h1 className="mb-2 text-lg font-semibold text-red-700">PolicyPal cannot start</h1>
          <p className="whitespace-pre-wrap text-sm text-slate-700">{e.message}</p>
          <button className="mt-4 rounded bg-slate-800 px-3 py-1.5 text-sm text-white" onClick={() => void info.refetch()}>
            Try again
          </button>
        </div>
      </div>
    );
  }
  if (!info.data) return <div className="p-8 text-slate-500">Opening the library…</div>;

  return (
    <div className="flex h-full overflow-hidden">
      <Sidebar
        info={info.data}
        tab={tab}
        onTab={setTab}
        threadId={threadId}
        onOpenThread={(id) => {
          setThreadId(id);
          setTab("chats");
          setSources({ citations: [], focus: null });
        }}
        onNewChat={() => {
          setThreadId(null);
          setSources({ citations: [], focus: null });
          setTab("chats");
        }}
        onAddFiles={pickFiles}
        onSettings={() => setSettingsOpen(true)}
      />
      <main className="flex min-w-0 flex-1 flex-col border-x border-slate-200 bg-white">
        <ChatView
          key={threadId ?? "new"}
          threadId={threadId}
          onThreadStarted={setThreadId}
          onSources={showSources}
          onAddFiles={pickFiles}
          modelInstalled={info.data.model_installed}
          modelDir={info.data.model_dir}
          webEnabled={info.data.web_enabled}
          suggestion={suggestion}
        />
      </main>
      <SourcesPanel open={sourcesOpen} onToggle={() => setSourcesOpen((o) => !o)} state={sources} />
      {upload && <UploadDialog paths={upload} onClose={() => setUpload(null)} onDone={() => setTab("documents")} />}
      {info.data.first_run && (
        <Welcome
          info={info.data}
          onDone={(q) => {
            setSuggestion(q);
            void qc.invalidateQueries({ queryKey: ["info"] });
          }}
        />
      )}
      <SettingsDialog open={settingsOpen} onOpenChange={setSettingsOpen} info={info.data} onProfileChanged={profileChanged} />
      {dragging && (
        <div className="pointer-events-none fixed inset-0 z-40 flex items-center justify-center bg-blue-600/10 ring-4 ring-inset ring-blue-500">
          <div className="rounded-xl bg-white px-6 py-4 text-lg font-medium text-blue-700 shadow-lg">Drop PDFs to add them to the library</div>
        </div>
      )}
    </div>
  );
}
