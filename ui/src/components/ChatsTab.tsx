import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { api, type Conversation } from "../ipc";
import { useToast } from "../toast";
import { showCells } from "../markdown";

export function relativeTime(iso: string, now = Date.now()): string {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return "";
  const s = Math.max(0, (now - t) / 1000);
  if (s < 60) return "just now";
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ago`;
  if (s < 7 * 86400) return `${Math.floor(s / 86400)} d ago`;
  return new Date(t).toLocaleDateString();
}

export function ChatsTab(props: { threadId: string | null; onOpen: (id: string) => void; profileId: string }) {
  const [query, setQuery] = useState("");
  const [archived, setArchived] = useState(false);
  const threads = useQuery({
    queryKey: ["threads", props.profileId, archived, query],
    queryFn: () => api.threads(archived, query || undefined),
  });
  return (
    <div className="px-2 py-2">
      <div className="flex items-center gap-2 px-2 pb-2">
        <input
          className="w-full rounded-md border border-slate-300 bg-white px-2 py-1 text-sm"
          placeholder="Search conversations"
          value={query}
          onChange={(e) => setQuery(e.target.value)}
          aria-label="Search conversations"
        />
        <label className="flex shrink-0 items-center gap-1 text-xs text-slate-500">
          <input type="checkbox" checked={archived} onChange={(e) => setArchived(e.target.checked)} /> Archived
        </label>
      </div>
      {threads.data?.length === 0 && (
        <p className="px-3 py-6 text-center text-sm text-slate-500">
          {query ? "No conversation matches." : "No conversations yet. Ask a question to start one."}
        </p>
      )}
      <ul className="space-y-0.5">
        {threads.data?.map((c) => (
          <ThreadRow key={c.id} c={c} active={c.id === props.threadId} onOpen={() => props.onOpen(c.id)} />
        ))}
      </ul>
    </div>
  );
}

function ThreadRow({ c, active, onOpen }: { c: Conversation; active: boolean; onOpen: () => void }) {
  const qc = useQueryClient();
  const toast = useToast();
  const [editing, setEditing] = useState(false);
  const [title, setTitle] = useState(c.title);
  const [menu, setMenu] = useState(false);
  const refresh = () => void qc.invalidateQueries({ queryKey: ["threads"] });
  const rename = useMutation({
    mutationFn: () => api.renameThread(c.id, title),
    onSuccess: () => {
      setEditing(false);
      refresh();
      void qc.invalidateQueries({ queryKey: ["thread", c.id] });
    },
    onError: toast.error,
  });
  const archive = useMutation({ mutationFn: () => api.archiveThread(c.id, !c.archived), onSuccess: refresh, onError: toast.error });
  const exportAs = async (format: "markdown" | "json" | "pdf") => {
    setMenu(false);
    try {
      const path = await api.exportThread(c.id, format);
      if (path) toast.info(`Exported to ${path}`);
    } catch (e) {
      toast.error(e);
    }
  };
  return (
    <li className={`group relative rounded-md ${active ? "bg-blue-100" : "hover:bg-slate-200/70"}`}>
      {editing ? (
        <form
          className="flex gap-1 p-2"
          onSubmit={(e) => {
            e.preventDefault();
            rename.mutate();
          }}
        >
          <input autoFocus className="w-full rounded border px-1 text-sm" value={title} onChange={(e) => setTitle(e.target.value)} aria-label="Title" />
          <button className="text-sm text-blue-700" type="submit">Save</button>
          <button className="text-sm text-slate-500" type="button" onClick={() => setEditing(false)}>Cancel</button>
        </form>
      ) : (
        <button className="block w-full px-3 py-2 text-left" onClick={onOpen}>
          <div className="flex items-baseline gap-2">
            <span className="truncate text-sm font-medium text-slate-800">{c.title || "Untitled"}</span>
            <span className="ml-auto shrink-0 text-xs text-slate-400">{relativeTime(c.updated_at)}</span>
          </div>
          {c.preview && <div className="truncate text-xs text-slate-500">{showCells(c.preview)}</div>}
          {c.archived && <div className="text-xs text-amber-700">Archived</div>}
        </button>
      )}
      {!editing && (
        <button
          className="absolute top-2 right-1 hidden rounded px-1 text-slate-500 group-hover:block hover:bg-slate-300"
          aria-label="Conversation actions"
          onClick={() => setMenu((m) => !m)}
        >
          ⋯
        </button>
      )}
      {menu && (
        <div className="absolute top-8 right-1 z-20 w-44 rounded-md border border-slate-200 bg-white py-1 text-sm shadow-lg" onMouseLeave={() => setMenu(false)}>
          <MenuItem onClick={() => { setMenu(false); setEditing(true); }}>Rename</MenuItem>
          <MenuItem onClick={() => { setMenu(false); archive.mutate(); }}>{c.archived ? "Restore" : "Archive"}</MenuItem>
          <MenuItem onClick={() => void exportAs("markdown")}>Export as Markdown</MenuItem>
          <MenuItem onClick={() => void exportAs("json")}>Export as JSON</MenuItem>
          <MenuItem onClick={() => void exportAs("pdf")}>Export as PDF report</MenuItem>
        </div>
      )}
    </li>
  );
}

export function MenuItem(props: { onClick: () => void; children: React.ReactNode; danger?: boolean }) {
  return (
    <button className={`block w-full px-3 py-1.5 text-left hover:bg-slate-100 ${props.danger ? "text-red-700" : ""}`} onClick={props.onClick}>
      {props.children}
    </button>
  );
}
