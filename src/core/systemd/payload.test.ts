import { describe, expect, it } from "vitest";
import { redactUnitText, usecToIso } from "./payload.ts";

describe("payload helpers", () => {
  it("converts µs timestamps", () => {
    expect(usecToIso(0n)).toBeNull();
    expect(usecToIso(0xffffffffffffffffn)).toBeNull();
    expect(usecToIso(1_764_460_800_000_000n)).toBe("2025-11-30T00:00:00.000Z");
  });

  it("redacts secrets and keeps the rest", () => {
    const text = "[Service]\nEnvironment=DB_PASSWORD=hunter2 MODE=prod\nEnvironment=\"API_TOKEN=x y\"\nSetCredential=db:secret\nExecStart=/bin/x --key-file /k\n";
    const { text: out, redactions } = redactUnitText(text);
    expect(redactions).toBe(3);
    expect(out).not.toContain("hunter2");
    expect(out).not.toContain("db:secret");
    expect(out).toContain("DB_PASSWORD=[redacted:unit_secret]");
    expect(out).toContain("MODE=prod");
    expect(out).toContain("SetCredential=db:[redacted:unit_secret]");
    expect(out).toContain("ExecStart=/bin/x --key-file /k");
    expect(out).not.toContain("API_TOKEN=x");
  });
});
