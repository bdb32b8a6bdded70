import { fireEvent, render, screen } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { AuditReport, type Citation } from "../ipc";
import { AuditPanel } from "./Message";

const cite = (page: number, quote: string): Citation => ({
  source_type: "document",
  document_id: "d1",
  title: "Capital Guidelines",
  version: "2024",
  file_name: "capital.pdf",
  page,
  chunk_id: "c",
  quote,
});

// The report as the core serialises it (extra fields are ignored by the schema; an extractive
// finding has no theme: null must parse — regression: the desktop showed no audit at all).
const raw = {
  overall_status: "major_violations",
  summary: "2 findings",
  targets_checked: 1,
  statements_checked: 3,
  checked: [],
  source: { kind: "message" },
  findings: [
    { target_doc_id: "d1", target_doc_title: "Capital Guidelines", theme: "ratio", severity: "high", rule: "out_of_range", summary: "6 per cent is below the required 8 per cent", consequence: "", source_quote: "6 per cent", target: cite(1, "at least 8 per cent"), suggestion: "", confidence_score: 0.9 },
    { target_doc_id: "d1", target_doc_title: "Capital Guidelines", theme: null, severity: "medium", rule: "out_of_range", summary: "30 days exceeds 14 days", consequence: "", source_quote: "30 days", target: cite(2, "within 14 days"), suggestion: "", confidence_score: 0.8 },
  ],
};

describe("audit panel", () => {
  it("shows the verdict, severity badges and opens a finding's clause", () => {
    const audit = AuditReport.parse(raw);
    const onCite = vi.fn();
    render(<AuditPanel audit={audit} onCite={onCite} />);
    expect(screen.getByText("Major violations")).toBeTruthy();
    expect(screen.getByText("1 high")).toBeTruthy();
    expect(screen.getByText("1 medium")).toBeTruthy();
    // A finding of a long source read by theme shows its theme.
    expect(screen.getByText("ratio")).toBeTruthy();
    fireEvent.click(screen.getByText(/30 days exceeds 14 days/));
    expect(onCite).toHaveBeenCalledWith([raw.findings[0].target, raw.findings[1].target], 1);
  });

  it("says how many themes a long source was read by", () => {
    const audit = AuditReport.parse({ ...raw, themes_analyzed: 4 });
    render(<AuditPanel audit={audit} onCite={() => {}} />);
    expect(screen.getByText("read by theme: 4 themes")).toBeTruthy();
  });

  it("says Compliant with no findings", () => {
    const audit = AuditReport.parse({ ...raw, overall_status: "compliant", findings: [] });
    render(<AuditPanel audit={audit} onCite={() => {}} />);
    expect(screen.getByText("Compliant")).toBeTruthy();
  });
});
