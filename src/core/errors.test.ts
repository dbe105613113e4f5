import { describe, expect, it } from "vitest";
import { ERROR_DETAILS_MAX_BYTES, errorBody, HostgateError } from "./errors.ts";

describe("errorBody: what an error carries over the daemon protocol", () => {
  it("keeps details as a JSON object, with secrets redacted", () => {
    const b = errorBody(new HostgateError("action_failed", "apt failed", { hint: "h", details: { exit_code: 100, stderr: "db password=hunter2 rejected" } }));
    expect(b).toEqual({ code: "action_failed", message: "apt failed", hint: "h", details: { exit_code: 100, stderr: "db password=[redacted:credential_assignment] rejected" } });
  });

  it("leaves out details that are not JSON or are too large, and keeps the rest of the error", () => {
    expect(errorBody(new HostgateError("refused", "no", { details: { n: 1n } }))).toEqual({ code: "refused", message: "no" });
    const big = { text: "x".repeat(ERROR_DETAILS_MAX_BYTES) };
    expect(errorBody(new HostgateError("refused", "no", { details: big }))).toEqual({ code: "refused", message: "no" });
    expect(errorBody(new Error("boom"))).toEqual({ code: "internal_error", message: "boom" });
  });
});
