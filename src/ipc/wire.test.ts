import { describe, expect, it } from "vitest";
import { lineReader, MAX_MESSAGE_BYTES } from "./wire.ts";

describe("lineReader", () => {
  it("keeps a UTF-8 character whole when a chunk boundary splits it", () => {
    const lines: string[] = [];
    const feed = lineReader((l) => lines.push(l), () => undefined);
    const bytes = Buffer.from('{"text":"é€😀"}\n');
    for (let i = 0; i < bytes.length; i++) feed(bytes.subarray(i, i + 1));
    expect(lines).toEqual(['{"text":"é€😀"}']);
  });

  it("reports an over-long line once, with its head, as soon as it crosses the limit, and reads the next line", () => {
    const lines: string[] = [];
    const heads: string[] = [];
    const feed = lineReader((l) => lines.push(l), (h) => heads.push(h));
    const piece = Buffer.alloc(1024 * 1024, "x");
    feed(Buffer.from('{"v":2,"id":41,"ok":true,"result":"'));
    for (let sent = 0; sent <= MAX_MESSAGE_BYTES; sent += piece.length) feed(piece);
    expect(heads).toHaveLength(1);
    expect(heads[0]).toMatch(/^\{"v":2,"id":41,/);
    for (let i = 0; i < 10; i++) feed(piece); // still the same line: not reported again
    feed(Buffer.from('"}\n{"v":2,"id":42}\n'));
    expect(heads).toHaveLength(1);
    expect(lines).toEqual(['{"v":2,"id":42}']);
  });
});
