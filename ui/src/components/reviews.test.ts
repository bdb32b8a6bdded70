import { describe, expect, it } from "vitest";
import { age } from "./ReviewsTab";

describe("the age of a review request", () => {
  it("reads in minutes, hours, then days", () => {
    expect(age(59)).toBe("0 min");
    expect(age(150)).toBe("2 min");
    expect(age(2 * 3600 + 5)).toBe("2 h");
    expect(age(3 * 86400)).toBe("3 d");
  });
});
