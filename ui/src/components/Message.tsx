import { useMemo, useState } from "react";
import { copyText, type AuditReport, type ChoiceOption, type Citation, type Confidence, type Severity, type Status, type Usage } from "../ipc";
import { renderAnswer, showCells } from "../markdown";
import { docLabel } from "./DocumentsTab";

export type AssistantView = {
  text: string;
  citations: Citation[];
  confidence: Confidence | null;
  status: Status | null;
  options: ChoiceOption[];
  usage: Usage | null;
  cached?: boolean;
  /** When the cached answer was first given. */
  cachedAt?: string | null;
  audit?: AuditReport | null;
};

const SEVERITY: Record<Severity, { label: string; cls: string }> = {
  critical: { label: "Critical", cls: "bg-red-700 text-white border-red-800" },
  high: { label: "High", cls: "bg-red-50 text-red-800 border-red-300" },
  medium: { label: "Medium", cls: "bg-amber-50 text-amber-800 border-amber-300" },
  low: { label: "Low", cls: "bg-slate-50 text-slate-700 border-slate-300" },
};

const VERDICT = {
  compliant: { icon: "✅", label: "Compliant", cls: "bg-emerald-50 text-emerald-800 border-emerald-300" },
  minor_issues: { icon: "⚠️", label: "Minor issues", cls: "bg-amber-50 text-amber-800 border-amber-300" },
  major_violations: { icon: "⛔", label: "Major violations", cls: "bg-red-50 text-red-800 border-red-300" },
} as const;

/** The audit's verdict and its findings as badges; a finding opens its clause in the sources panel. */
export function AuditPanel({ audit, onCite }: { audit: AuditReport; onCite: (c: Citation[], i: number | null) => void }) {
  const v = VERDICT[audit.overall_status];
  const counts = (["critical", "high", "medium", "low"] as Severity[])
    .map((sev) => [sev, audit.findings.filter((f) => f.severity === sev).length] as const)
    .filter(([, n]) => n > 0);
  const targets = audit.findings.map((f) => f.target);
  return (
    <div className="mb-3 rounded-lg border border-slate-200 bg-slate-50/60 p-2" data-testid="audit-panel">
      <div className="flex flex-wrap items-center gap-1.5">
        <span className={`inline-flex items-center gap-1 rounded-full border px-2 py-0.5 text-xs font-semibold ${v.cls}`}>
          <span aria-hidden>{v.icon}</span>
          {v.label}
        </span>
        {counts.map(([sev, n]) => (
          <span key={sev} className={`rounded-full border px-2 py-0.5 text-xs ${SEVERITY[sev].cls}`}>
            {n} {SEVERITY[sev].label.toLowerCase()}
          </span>
        ))}
        {audit.themes_analyzed != null && (
          <span className="text-xs text-slate-500">read by theme: {audit.themes_analyzed} themes</span>
        )}
      </div>
      {audit.findings.length > 0 && (
        <ul className="mt-2 space-y-1">
          {audit.findings.map((f, i) => (
            <li key={i} className="flex items-start gap-2 text-xs">
              <span className={`mt-0.5 shrink-0 rounded border px-1.5 font-semibold ${SEVERITY[f.severity].cls}`}>{SEVERITY[f.severity].label}</span>
              {f.theme && <span className="mt-0.5 shrink-0 rounded bg-slate-200/70 px-1.5 text-slate-700">{f.theme}</span>}
              <button className="text-left text-slate-700 hover:underline" title={f.target.quote} onClick={() => onCite(targets, i)}>
                {f.summary} <span className="text-slate-500">— {f.target_doc_title}, p. {f.target.page}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

const BADGE = {
  high: { icon: "✅", label: "High confidence", cls: "bg-emerald-50 text-emerald-800 border-emerald-200" },
  medium: { icon: "⚠️", label: "Medium confidence", cls: "bg-amber-50 text-amber-800 border-amber-200" },
  low: { icon: "🔴", label: "Low confidence", cls: "bg-red-50 text-red-800 border-red-200" },
} as const;

export function ConfidenceBadge({ c }: { c: Confidence }) {
  const b = BADGE[c.level];
  return (
    <span className={`inline-flex items-center gap-1 rounded-full border px-2 py-0.5 text-xs ${b.cls}`} title={`${c.reason} (score ${c.score.toFixed(2)})`}>
      <span aria-hidden>{b.icon}</span>
      {b.label}
      {c.level !== "high" && <span className="text-[11px] opacity-80">— {c.reason}</span>}
    </span>
  );
}

export function UserMessage({ text }: { text: string }) {
  return (
    <div className="flex justify-end">
      <div className="max-w-[75%] rounded-2xl rounded-br-sm bg-blue-600 px-4 py-2 text-sm whitespace-pre-wrap text-white">{text}</div>
    </div>
  );
}

export function AssistantMessage(props: {
  m: AssistantView;
  streaming?: string | null;
  optionsActive: boolean;
  onChoose: (o: ChoiceOption) => void;
  onCite: (citations: Citation[], index: number | null) => void;
  onLink: (url: string) => void;
  onExport?: (format: "markdown" | "json" | "pdf") => void;
}) {
  const { m } = props;
  const html = useMemo(() => renderAnswer(m.text, m.citations), [m.text, m.citations]);
  const [hover, setHover] = useState<{ i: number; x: number; y: number } | null>(null);
  const [more, setMore] = useState(false);
  const [copied, setCopied] = useState(false);
  const shown = more ? m.citations : m.citations.slice(0, 3);
  const tone =
    m.status === "refused"
      ? "border-amber-200 bg-amber-50/60"
      : m.status === "not_available"
        ? "border-slate-200 bg-slate-50"
        : m.status === "waiting_for_expert"
          ? "border-blue-200 bg-blue-50/60"
          : "border-slate-200 bg-white";
  return (
    <div className="flex">
      <div className={`relative max-w-[85%] rounded-2xl rounded-bl-sm border px-4 py-3 text-sm ${tone}`}>
        {props.streaming && <p className="mb-1 animate-pulse text-xs text-slate-500">{props.streaming}</p>}
        {props.streaming && m.text && (
          <p className="mb-1 text-xs font-medium text-amber-700" data-testid="draft">
            Draft: being checked against your documents; only what they support stays.
          </p>
        )}
        {m.audit && <AuditPanel audit={m.audit} onCite={props.onCite} />}
        <div
          className={`answer leading-relaxed ${props.streaming && m.text ? "text-slate-500" : "text-slate-800"}`}
          dangerouslySetInnerHTML={{ __html: html }}
          onClick={(e) => {
            const t = e.target as HTMLElement;
            const cite = t.closest("button.cite");
            if (cite) {
              props.onCite(m.citations, Number(cite.getAttribute("data-cite")));
              return;
            }
            // No link in an answer ever navigates the app window: external ones open in the
            // browser, anything else does nothing.
            const a = t.closest("a");
            if (a) {
              e.preventDefault();
              const href = a.getAttribute("href");
              if (href && a.hasAttribute("data-external")) props.onLink(href);
            }
          }}
          onMouseOver={(e) => {
            const cite = (e.target as HTMLElement).closest("button.cite");
            if (cite) {
              const r = cite.getBoundingClientRect();
              setHover({ i: Number(cite.getAttribute("data-cite")), x: r.left, y: r.bottom });
            }
          }}
          onMouseOut={(e) => {
            if ((e.target as HTMLElement).closest("button.cite")) setHover(null);
          }}
        />
        {hover && m.citations[hover.i] && (
          <div className="pointer-events-none fixed z-30 w-80 rounded-lg border border-slate-200 bg-white p-3 text-xs shadow-lg" style={{ left: Math.min(hover.x, window.innerWidth - 340), top: hover.y + 6 }}>
            <div className="font-semibold text-slate-700">
              {m.citations[hover.i].source_type === "web"
                ? `🌐 ${m.citations[hover.i].title} · ${m.citations[hover.i].url ?? ""}`
                : `${docLabel(m.citations[hover.i])} · page ${m.citations[hover.i].page}`}
            </div>
            <div className="mt-1 text-slate-600">“{showCells(m.citations[hover.i].quote)}”</div>
          </div>
        )}
        {m.options.length > 0 && (
          <div className="mt-3 flex flex-wrap gap-2">
            {m.options.map((o) => (
              <button
                key={o.id}
                disabled={!props.optionsActive}
                className="rounded-full border border-blue-300 bg-white px-3 py-1 text-xs text-blue-800 hover:bg-blue-50 disabled:cursor-not-allowed disabled:opacity-50"
                onClick={() => props.onChoose(o)}
              >
                {o.label}
              </button>
            ))}
          </div>
        )}
        {m.citations.length > 0 && (
          <div className="mt-3 flex flex-wrap items-center gap-1.5">
            {shown.map((c, i) => (
              <button
                key={i}
                className="max-w-[16rem] truncate rounded-md border border-slate-200 bg-slate-50 px-2 py-0.5 text-xs text-slate-700 hover:bg-slate-100"
                onClick={() => (c.source_type === "web" && c.url ? props.onLink(c.url) : props.onCite(m.citations, i))}
                title={c.source_type === "web" ? `${c.url ?? ""}\n“${c.quote}”` : c.quote}
              >
                {c.source_type === "web" ? `🌐 ${i + 1}. ${c.title}` : `📄 ${i + 1}. ${docLabel(c)} · p. ${c.page}`}
              </button>
            ))}
            {m.citations.length > 3 && (
              <button className="text-xs text-blue-700 hover:underline" onClick={() => setMore((v) => !v)}>
                {more ? "Fewer sources" : `Show more sources (${m.citations.length - 3})`}
              </button>
            )}
          </div>
        )}
        {!props.streaming && (
          <div className="mt-2 flex flex-wrap items-center gap-2 text-xs text-slate-500">
            {m.confidence && <ConfidenceBadge c={m.confidence} />}
            {m.cached && (
              <span className="rounded border border-sky-200 bg-sky-50 px-1.5 text-sky-800" title={m.cachedAt ? `The same question was answered on ${m.cachedAt}; the cited documents have not changed since.` : "Served from the answer cache"}>
                ⚡ cached answer
              </span>
            )}
            {m.usage && (
              <span title="Tokens and estimated cost of this answer">
                {(m.usage.prompt_tokens + m.usage.completion_tokens).toLocaleString()} tokens · ${m.usage.cost_usd.toFixed(4)} · {m.usage.model}
              </span>
            )}
            {props.onExport && m.audit && (
              <>
                <button className="ml-auto rounded px-1.5 hover:bg-slate-100" onClick={() => props.onExport?.("markdown")}>
                  Export audit (Markdown)
                </button>
                <button className="rounded px-1.5 hover:bg-slate-100" onClick={() => props.onExport?.("json")}>
                  JSON
                </button>
                <button className="rounded px-1.5 hover:bg-slate-100" onClick={() => props.onExport?.("pdf")}>
                  PDF
                </button>
              </>
            )}
            {props.onExport && !m.audit && (
              <button className="ml-auto rounded px-1.5 hover:bg-slate-100" title="This question and answer as a PDF report" onClick={() => props.onExport?.("pdf")}>
                Export PDF
              </button>
            )}
            <button
              className={`${props.onExport ? "" : "ml-auto "}rounded px-1.5 hover:bg-slate-100`}
              onClick={() => {
                void copyText(m.text).then(() => {
                  setCopied(true);
                  setTimeout(() => setCopied(false), 1500);
                });
              }}
            >
              {copied ? "Copied" : "Copy"}
            </button>
          </div>
        )}
      </div>
    </div>
  );
}
