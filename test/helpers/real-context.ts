import { nodeCrypto } from "../../src/adapters/crypto-node.ts";
import { nodeX509 } from "../../src/adapters/x509-node.ts";
import { LinuxHostProbe } from "../../src/adapters/host-linux.ts";
import { LinuxHostMutator } from "../../src/adapters/host-mutator-linux.ts";
import { createMockUnitManagers } from "../../src/adapters/systemd-mock.ts";
import { readHostIdentity } from "../../src/app/host-identity.ts";
import type { ActionContext } from "../../src/core/catalogue/action.ts";

/** An ActionContext on the real local host (real /proc, real files, real package tools). */
export async function realContext(overrides: Partial<ActionContext> = {}): Promise<ActionContext> {
  const host = new LinuxHostProbe();
  const { family } = await readHostIdentity(host);
  return { host, clock: { now: () => Date.now() }, family, units: createMockUnitManagers(), mutator: new LinuxHostMutator(host), hash: nodeCrypto, x509: nodeX509, self_pid: process.pid, protected_paths: [], logs_readable: { kind: "all" }, ...overrides };
}

/** Runs `f` and returns the HostgateError code it throws, or null when it does not throw. */
export async function errorCode(f: () => Promise<unknown>): Promise<string | null> {
  try {
    await f();
    return null;
  } catch (err) {
    return (err as { code?: string }).code ?? "untyped";
  }
}
