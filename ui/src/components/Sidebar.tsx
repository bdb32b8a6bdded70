import * as Tabs from "@radix-ui/react-tabs";
import type { AppInfo } from "../ipc";
import { ChatsTab } from "./ChatsTab";
import { DocumentsTab } from "./DocumentsTab";
import { ReviewsTab } from "./ReviewsTab";

export type SidebarTab = "chats" | "documents" | "reviews";

export function initials(name: string): string {
  const parts = name.trim().split(/[\s._-]+/).filter(Boolean);
  return ((parts[0]?.[0] ?? "?") + (parts[1]?.[0] ?? "")).toUpperCase();
}

export function Sidebar(props: {
  info: AppInfo;
  tab: SidebarTab;
  onTab: (t: SidebarTab) => void;
  threadId: string | null;
  onOpenThread: (id: string) => void;
  onNewChat: () => void;
  onAddFiles: () => void;
  onSettings: () => void;
}) {
  const { info, tab } = props;
  return (
    <aside className="flex w-80 shrink-0 flex-col bg-slate-50" aria-label="Library and conversations">
      <div className="flex items-center gap-2 px-4 pt-4 pb-2">
        <span className="text-lg font-semibold tracking-tight text-slate-800">PolicyPal</span>
        <button
          className="ml-auto rounded-md bg-blue-600 px-2.5 py-1 text-sm font-medium text-white hover:bg-blue-700"
          onClick={tab === "documents" ? props.onAddFiles : props.onNewChat}
          title={tab === "documents" ? "Add PDFs" : "New chat"}
        >
          + {tab === "documents" ? "Add PDFs" : "New chat"}
        </button>
      </div>
      <Tabs.Root value={tab} onValueChange={(v) => props.onTab(v as SidebarTab)} className="flex min-h-0 flex-1 flex-col">
        <Tabs.List className="mx-4 flex rounded-lg bg-slate-200 p-0.5 text-sm" aria-label="Sidebar">
          {(["chats", "documents", "reviews"] as const).map((t) => (
            <Tabs.Trigger
              key={t}
              value={t}
              className="flex-1 rounded-md px-3 py-1 capitalize text-slate-600 data-[state=active]:bg-white data-[state=active]:text-slate-900 data-[state=active]:shadow-sm"
            >
              {t}
            </Tabs.Trigger>
          ))}
        </Tabs.List>
        <Tabs.Content value="chats" className="min-h-0 flex-1 overflow-y-auto">
          <ChatsTab threadId={props.threadId} onOpen={props.onOpenThread} profileId={info.profile.id} />
        </Tabs.Content>
        <Tabs.Content value="documents" className="min-h-0 flex-1 overflow-y-auto">
          <DocumentsTab onAddFiles={props.onAddFiles} />
        </Tabs.Content>
        <Tabs.Content value="reviews" className="min-h-0 flex-1 overflow-y-auto">
          <ReviewsTab info={info} onOpenThread={props.onOpenThread} />
        </Tabs.Content>
      </Tabs.Root>
      <div className="flex items-center gap-3 border-t border-slate-200 px-4 py-3">
        <div className="flex h-9 w-9 items-center justify-center rounded-full bg-slate-700 text-sm font-semibold text-white" aria-hidden>
          {initials(info.profile.name)}
        </div>
        <div className="min-w-0">
          <div className="truncate text-sm font-medium">{info.profile.name}</div>
          <div className="truncate text-xs text-slate-500">
            {[info.profile.organisation, info.profile.industry, info.profile.location].filter(Boolean).join(" · ") || "No organisation, industry or country set"}
          </div>
        </div>
        <button className="ml-auto rounded p-1.5 text-slate-500 hover:bg-slate-200" onClick={props.onSettings} aria-label="Settings" title="Settings">
          ⚙
        </button>
      </div>
    </aside>
  );
}
