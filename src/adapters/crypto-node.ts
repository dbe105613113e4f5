import { createHash, randomBytes, randomUUID, timingSafeEqual } from "node:crypto";
import type { Crypto } from "../ports/crypto.ts";

/** The Crypto port over node:crypto. */
export const nodeCrypto: Crypto = {
  randomBase64Url: (bytes) => randomBytes(bytes).toString("base64url"),
  uuid: () => randomUUID(),
  sha256Hex: (text) => createHash("sha256").update(text, "utf8").digest("hex"),
  sha256HexBytes: (data) => createHash("sha256").update(data).digest("hex"),
  timingSafeEqual: (a, b) => {
    const x = Buffer.from(a, "utf8");
    const y = Buffer.from(b, "utf8");
    return x.length === y.length && timingSafeEqual(x, y);
  },
};
