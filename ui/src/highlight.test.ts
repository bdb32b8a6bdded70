import { describe, expect, it } from "vitest";
import { findQuote } from "./highlight";

describe("findQuote", () => {
  it("finds a quote across line breaks and case", () => {
    const page = "Section 4\nBanks must maintain a minimum\ncapital ratio of 8 percent.";
    const r = findQuote(page, "banks must maintain a minimum capital ratio");
    expect(r).not.toBeNull();
    if (r) expect(page.slice(r[0], r[1])).toBe("Banks must maintain a minimum\ncapital ratio");
  });

  it("finds a word hyphenated at a line end", () => {
    const page = "records are re-\ntained for seven years";
    expect(findQuote(page, "records are retained for seven years")).not.toBeNull();
  });

  it("treats regex characters in the quote literally", () => {
    expect(findQuote("costs (a) + (b) apply", "(a) + (b)")).toEqual([6, 15]);
    expect(findQuote("nothing here", "(a) + (b)")).toBeNull();
  });
});
