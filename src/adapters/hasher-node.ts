import { createHash } from "node:crypto";
import type { Hasher } from "../ports/hasher.ts";

/** The Hasher backed by node:crypto. */
export const nodeHasher: Hasher = {
  sha256Hex(data: string): string {
    return createHash("sha256").update(data, "utf8").digest("hex");
  },
};
