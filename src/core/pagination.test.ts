import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { HostgateError } from "./errors.ts";
import { paginate } from "./pagination.ts";

function allPages<T>(items: readonly T[], limit: number, fp: string): T[][] {
  const pages: T[][] = [];
  let cursor: string | undefined;
  for (let guard = 0; guard <= items.length + 1; guard++) {
    const page = paginate(items, limit, cursor, fp);
    expect(page.total).toBe(items.length);
    pages.push(page.items);
    if (page.next_cursor === null) return pages;
    cursor = page.next_cursor;
  }
  throw new Error("pagination did not terminate");
}

function expectInvalid(fn: () => unknown): void {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(HostgateError);
    expect((err as HostgateError).code).toBe("invalid_params");
    expect((err as HostgateError).hint).toBeTruthy();
    return;
  }
  throw new Error("expected invalid_params");
}

describe("paginate", () => {
  const items = Array.from({ length: 7 }, (_, i) => i);

  it("splits into pages of at most limit items with a null cursor on the last", () => {
    expect(allPages(items, 3, "q")).toEqual([[0, 1, 2], [3, 4, 5], [6]]);
    expect(allPages(items, 7, "q")).toEqual([items]);
    expect(allPages(items, 100, "q")).toEqual([items]);
    expect(allPages([], 5, "q")).toEqual([[]]);
  });

  it("gives a next_cursor only while items remain", () => {
    const first = paginate(items, 3, undefined, "q");
    expect(first.next_cursor).toEqual(expect.any(String));
    expect(paginate(items, 7, undefined, "q").next_cursor).toBeNull();
  });

  it("covers every item exactly once for random sizes and limits", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 200 }), fc.integer({ min: 1, max: 50 }), fc.string(), (n, limit, fp) => {
        const xs = Array.from({ length: n }, (_, i) => i);
        const pages = allPages(xs, limit, fp);
        expect(pages.flat()).toEqual(xs);
        for (const p of pages) expect(p.length).toBeLessThanOrEqual(limit);
        expect(pages.length).toBe(Math.max(1, Math.ceil(n / limit)));
      }),
      { numRuns: 300 },
    );
  });

  it("accepts fingerprints with any Unicode (e.g. a user's filter text)", () => {
    expect(allPages(items, 2, "ps:日本語😀::cpu").flat()).toEqual(items);
  });

  it("rejects a cursor from another query with invalid_params", () => {
    const cursor = paginate(items, 2, undefined, "ps:a::cpu").next_cursor!;
    expectInvalid(() => paginate(items, 2, cursor, "ps:b::cpu"));
  });

  it.each(["", "!!!not base64!!!", "bm90IGpzb24", btoa(JSON.stringify({ offset: 2 })), btoa(JSON.stringify([-1, "q"])), btoa(JSON.stringify([1.5, "q"])), btoa(JSON.stringify(["2", "q"]))])(
    "rejects the bad cursor %j with invalid_params",
    (cursor) => {
      expectInvalid(() => paginate(items, 2, cursor, "q"));
    },
  );

  it("returns an empty last page for a cursor past the end", () => {
    const cursor = paginate(items, 6, undefined, "q").next_cursor!;
    const shrunk = items.slice(0, 3); // the list shrank between calls
    expect(paginate(shrunk, 6, cursor, "q")).toEqual({ items: [], total: 3, next_cursor: null });
  });
});

describe("cursor size", () => {
  it("stays short whatever the query fingerprint holds", () => {
    const page = paginate([1, 2, 3], 1, undefined, `ps:${"日本".repeat(200)}`);
    expect(page.next_cursor!.length).toBeLessThan(64);
    expect(paginate([1, 2, 3], 1, page.next_cursor!, `ps:${"日本".repeat(200)}`).items).toEqual([2]);
  });
});
