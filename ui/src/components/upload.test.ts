import { describe, expect, it } from "vitest";
import { jobProgress, type Job } from "../jobs";
import { groupBySet } from "./DocumentsTab";
import { titleFromFile, versionFromFile } from "./UploadDialog";
import type { Document } from "../ipc";

describe("upload dialog prefill", () => {
  it("derives a title and a version from the file name", () => {
    expect(titleFromFile("/home/a/bank-negara_capital 2024.pdf")).toBe("bank negara capital 2024");
    expect(versionFromFile("/x/bank-negara-2024.pdf")).toBe("2024");
    expect(versionFromFile("/x/policy v1.2.pdf")).toBe("1.2");
    expect(versionFromFile("/x/policy.pdf")).toBe("");
  });
});

describe("ingestion progress", () => {
  const job = (phase: Job["phase"], done = 0, total = 0): Job => ({ id: "j", file: "f.pdf", title: "f", phase, done, total });
  it("only moves forward through the stages", () => {
    const steps = [job("queued"), job("reading"), job("extracting", 5, 10), job("chunking"), job("embedding", 1, 4), job("embedding", 4, 4), job("indexing"), job("done")];
    const values = steps.map(jobProgress);
    for (let i = 1; i < values.length; i++) expect(values[i]).toBeGreaterThanOrEqual(values[i - 1]);
    expect(values[values.length - 1]).toBe(1);
  });
  it("only moves forward when scanned pages are recognised first", () => {
    const scanned = (phase: Job["phase"], done = 0, total = 0): Job => ({ ...job(phase, done, total), scanned: phase !== "reading" && phase !== "extracting" });
    const steps = [scanned("reading"), scanned("extracting"), scanned("recognising", 0, 8), scanned("recognising", 8, 8), scanned("chunking"), scanned("embedding", 2, 4), scanned("indexing"), scanned("done")];
    const values = steps.map(jobProgress);
    for (let i = 1; i < values.length; i++) expect(values[i]).toBeGreaterThanOrEqual(values[i - 1]);
    expect(values[values.length - 1]).toBe(1);
  });
});

describe("library grouping", () => {
  const d = (id: string, title: string, set: string | null): Document => ({
    id, title, version: "", doc_type: "policy", set_id: set, set_name: set, file_name: "x.pdf", page_count: 1, chunk_count: 1,
    empty_pages: [], status: "ready", error: null, supersedes: null, superseded_by: null, created_at: "", updated_at: "",
  });
  it("groups by set, sets by name, documents without a set last", () => {
    const groups = groupBySet([d("1", "B", null), d("2", "Z", "Bank"), d("3", "A", "Acme"), d("4", "A", "Bank")]);
    expect(groups.map(([k, ds]) => [k, ds.map((x) => x.id)])).toEqual([["Acme", ["3"]], ["Bank", ["4", "2"]], [null, ["1"]]]);
  });
});
