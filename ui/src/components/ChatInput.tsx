// The message box: TipTap with an @ menu (actions, sets, documents, web) whose choices become
// pills carrying ids. Enter sends, Shift+Enter starts a new line.
import { Extension, type Editor } from "@tiptap/core";
import Mention from "@tiptap/extension-mention";
import { Placeholder } from "@tiptap/extensions";
import { EditorContent, ReactRenderer, useEditor } from "@tiptap/react";
import StarterKit from "@tiptap/starter-kit";
import type { SuggestionKeyDownProps, SuggestionProps } from "@tiptap/suggestion";
import { forwardRef, useEffect, useImperativeHandle, useRef, useState } from "react";
import type { DocSet, Document } from "../ipc";
import { MAX_DOCUMENTS, categoryOf, mentionItems, pillsOf, type MentionItem, type Pills } from "../mentions";

type ListProps = SuggestionProps<MentionItem> & { onWarn: (w: string) => void };
type ListRef = { onKeyDown: (e: KeyboardEvent) => boolean };

const MentionList = forwardRef<ListRef, ListProps>(function MentionList(props, ref) {
  const [index, setIndex] = useState(0);
  const items = props.items;
  useEffect(() => setIndex(0), [items]);
  const choose = (item: MentionItem | undefined) => {
    if (!item || item.disabled) return;
    if (item.kind === "doc") {
      const docs = pillsOf(props.editor.getJSON()).documents;
      if (docs.length >= MAX_DOCUMENTS) {
        props.onWarn(`At most ${MAX_DOCUMENTS} documents per message.`);
        return;
      }
    }
    props.command({ id: item.id, label: item.label });
  };
  useImperativeHandle(ref, () => ({
    onKeyDown: (e) => {
      if (items.length === 0) return false;
      if (e.key === "ArrowDown") {
        setIndex((i) => (i + 1) % items.length);
        return true;
      }
      if (e.key === "ArrowUp") {
        setIndex((i) => (i + items.length - 1) % items.length);
        return true;
      }
      if (e.key === "Enter" || e.key === "Tab") {
        choose(items[index]);
        return true;
      }
      return false;
    },
  }));
  if (items.length === 0) {
    return <div className="rounded-lg border border-slate-200 bg-white px-3 py-2 text-sm text-slate-500 shadow-lg">No match</div>;
  }
  let last = "";
  return (
    <div role="listbox" className="max-h-80 w-80 overflow-y-auto rounded-lg border border-slate-200 bg-white py-1 text-sm shadow-lg">
      {items.map((item, i) => {
        const head = categoryOf(item.kind) !== last ? categoryOf(item.kind) : null;
        last = categoryOf(item.kind);
        return (
          <div key={item.id}>
            {head && <div className="px-3 pt-2 pb-0.5 text-[11px] font-semibold tracking-wide text-slate-400 uppercase">{head}</div>}
            <button
              role="option"
              aria-selected={i === index}
              aria-disabled={item.disabled}
              className={`flex w-full items-baseline gap-2 px-3 py-1 text-left ${i === index ? "bg-blue-50" : ""} ${item.disabled ? "cursor-not-allowed opacity-50" : ""}`}
              onMouseEnter={() => setIndex(i)}
              onMouseDown={(e) => {
                e.preventDefault();
                choose(item);
              }}
            >
              <span className="truncate">{item.kind === "action" ? `@${item.label}` : item.label}</span>
              {item.hint && <span className="ml-auto shrink-0 text-xs text-slate-400">{item.hint}</span>}
            </button>
          </div>
        );
      })}
    </div>
  );
});

export type Outgoing = Pills & { text: string };

export function ChatInput(props: {
  docs: Document[];
  sets: DocSet[];
  busy: boolean;
  onSend: (m: Outgoing) => void;
  onStop: () => void;
  focusSignal: number;
  /** Web search is switched on: the @web pill can be chosen. */
  webEnabled?: boolean;
}) {
  const data = useRef({ docs: props.docs, sets: props.sets, web: props.webEnabled ?? false });
  data.current = { docs: props.docs, sets: props.sets, web: props.webEnabled ?? false };
  const menuOpen = useRef(false);
  const send = useRef<() => void>(() => {});
  const [warning, setWarning] = useState<string | null>(null);

  const editor = useEditor({
    extensions: [
      StarterKit.configure({ heading: false, codeBlock: false, horizontalRule: false, blockquote: false, link: false }),
      Placeholder.configure({ placeholder: "Ask about your library… type @ to pick documents, sets or an action" }),
      Mention.configure({
        HTMLAttributes: { class: "mention" },
        renderText: ({ node }) => (String(node.attrs.id ?? "").startsWith("action:") ? `@${node.attrs.label}` : String(node.attrs.label ?? "")),
        renderHTML: ({ node }) => [
          "span",
          { class: "mention", "data-type": "mention", "data-id": node.attrs.id },
          String(node.attrs.id ?? "").startsWith("action:") ? `@${node.attrs.label}` : `📄 ${node.attrs.label}`,
        ],
        suggestion: {
          char: "@",
          items: ({ query }) => mentionItems(query, data.current.docs, data.current.sets, data.current.web),
          render: () => {
            let component: ReactRenderer<ListRef, ListProps> | null = null;
            const place = (rect: (() => DOMRect | null) | null | undefined) => {
              const r = rect?.();
              const el = component?.element as HTMLElement | undefined;
              if (!r || !el) return;
              el.style.position = "fixed";
              el.style.zIndex = "50";
              el.style.left = `${r.left}px`;
              el.style.bottom = `${window.innerHeight - r.top + 6}px`;
            };
            return {
              onStart: (p: SuggestionProps<MentionItem>) => {
                menuOpen.current = true;
                component = new ReactRenderer(MentionList, { props: { ...p, onWarn: setWarning }, editor: p.editor });
                document.body.appendChild(component.element);
                place(p.clientRect);
              },
              onUpdate: (p: SuggestionProps<MentionItem>) => {
                component?.updateProps({ ...p, onWarn: setWarning });
                place(p.clientRect);
              },
              onKeyDown: (p: SuggestionKeyDownProps) => {
                if (p.event.key === "Escape") {
                  component?.element.remove();
                  return true;
                }
                return component?.ref?.onKeyDown(p.event) ?? false;
              },
              onExit: () => {
                menuOpen.current = false;
                component?.element.remove();
                component?.destroy();
                component = null;
              },
            };
          },
        },
      }),
      Extension.create({
        name: "sendOnEnter",
        addKeyboardShortcuts() {
          return {
            Enter: () => {
              if (menuOpen.current) return false;
              send.current();
              return true;
            },
          };
        },
      }),
    ],
    editorProps: { attributes: { "aria-label": "Message", class: "tiptap text-sm" } },
  });

  send.current = () => {
    if (!editor || props.busy) return;
    const text = editor.getText({ blockSeparator: "\n" }).trim();
    if (!text) return;
    props.onSend({ ...pillsOf(editor.getJSON()), text });
    editor.commands.clearContent();
    setWarning(null);
  };

  useEffect(() => {
    if (props.focusSignal > 0 && editor) {
      editor.chain().focus("end").insertContent("@").run();
    }
  }, [props.focusSignal, editor]);

  return (
    <div className="border-t border-slate-200 bg-white px-6 py-3">
      {warning && <p className="mb-1 text-xs text-amber-700">{warning}</p>}
      <div className="flex items-end gap-2 rounded-xl border border-slate-300 px-3 py-2 focus-within:border-blue-500 focus-within:ring-2 focus-within:ring-blue-100">
        <EditorContent editor={editor} className="min-w-0 flex-1" />
        {props.busy ? (
          <button className="rounded-lg bg-slate-700 px-3 py-1.5 text-sm text-white hover:bg-slate-800" onClick={props.onStop}>
            ■ Stop
          </button>
        ) : (
          <button className="rounded-lg bg-blue-600 px-3 py-1.5 text-sm text-white hover:bg-blue-700" onClick={() => send.current()} aria-label="Send">
            Send
          </button>
        )}
      </div>
      <p className="mt-1 text-[11px] text-slate-400">Enter to send · Shift+Enter for a new line · @ for documents, sets and actions</p>
    </div>
  );
}

export type { Editor };
