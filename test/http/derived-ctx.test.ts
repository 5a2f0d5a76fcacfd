import { describe, expect, it } from "vitest";
import { derivedCtx } from "../../src/context.js";

describe("derivedCtx", () => {
  it("keeps the reader chosen at each use, as a spread would not (read replicas after a write)", () => {
    let choice = "replica";
    const base = {
      get reader() {
        return choice as never;
      },
      write: () => "base",
    };
    const derived = derivedCtx(base, { write: () => "wrapped" });
    expect(derived.write()).toBe("wrapped");
    expect(derived.reader).toBe("replica");
    choice = "primary";
    expect(derived.reader).toBe("primary");
    expect(derivedCtx(derived, {}).reader).toBe("primary");
  });
});
