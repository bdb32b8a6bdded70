// Small notifications for errors and confirmations; errors stay until dismissed.
import { createContext, useCallback, useContext, useState, type ReactNode } from "react";
import { toIpcError } from "./ipc";

type Toast = { id: number; kind: "error" | "info"; text: string };
const Ctx = createContext<{ error: (e: unknown) => void; info: (t: string) => void }>({
  error: () => {},
  info: () => {},
});

export function ToastProvider({ children }: { children: ReactNode }) {
  const [toasts, setToasts] = useState<Toast[]>([]);
  const push = useCallback((kind: Toast["kind"], text: string) => {
    const id = Date.now() + Math.random();
    setToasts((t) => [...t.slice(-3), { id, kind, text }]);
    if (kind === "info") setTimeout(() => setToasts((t) => t.filter((x) => x.id !== id)), 4000);
  }, []);
  const error = useCallback((e: unknown) => push("error", toIpcError(e).message), [push]);
  const info = useCallback((t: string) => push("info", t), [push]);
  return (
    <Ctx.Provider value={{ error, info }}>
      {children}
      <div className="fixed bottom-4 left-1/2 z-50 flex -translate-x-1/2 flex-col gap-2" role="status" aria-live="polite">
        {toasts.map((t) => (
          <div
            key={t.id}
            className={`flex max-w-xl items-start gap-3 rounded-lg px-4 py-2 text-sm shadow-lg ${
              t.kind === "error" ? "bg-red-700 text-white" : "bg-slate-800 text-white"
            }`}
          >
            <span className="whitespace-pre-wrap">{t.text}</span>
            <button
              className="ml-auto opacity-80 hover:opacity-100"
              aria-label="Dismiss"
              onClick={() => setToasts((all) => all.filter((x) => x.id !== t.id))}
            >
              ✕
            </button>
          </div>
        ))}
      </div>
    </Ctx.Provider>
  );
}

export const useToast = () => useContext(Ctx);
