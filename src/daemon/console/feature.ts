/**
 * The approval console as a feature of the composed daemon (issue 23): started at compose time when
 * `console.enabled`, otherwise on the first `hostgate console` (admin socket: the `console_link` method);
 * closed with the daemon. Also builds the webhook notifier of `console.notify`.
 */
import type { DaemonDeps } from "../../app/deps.ts";
import type { Config } from "../../config/schema.ts";
import type { ApprovalConsole } from "../../ports/approval-console.ts";
import type { PlanNotifier } from "../../ports/plan-notifier.ts";
import { webhookNotifier } from "../../adapters/webhook-notifier.ts";
import type { DaemonFeature, Finding } from "../feature.ts";
import type { PasskeyListing } from "../../app/passkeys.ts";
import { visible } from "../../core/visible-text.ts";
import type { PasskeyBackend } from "./passkey-backend.ts";
import type { ConsoleServer } from "./server.ts";

/** The console feature: the port the use cases call, the daemon feature (close, doctor), the notifier. */
export interface ConsoleFeature {
  control: ApprovalConsole;
  feature: DaemonFeature;
  notifier: PlanNotifier | undefined;
  /** Starts the console now when `console.enabled` (call once deps exist). */
  autostart(): Promise<void>;
}

/**
 * Builds the console feature. `deps` is read late (the console needs the composed DaemonDeps, which need the
 * console). `passkeys`: the backend (app/passkeys.ts) or null when this build has none.
 */
export function composeConsoleFeature(config: Config, opts: { mode: "embedded" | "system"; deps: () => DaemonDeps; passkeys: PasskeyBackend | null; announce: (line: string) => void }): ConsoleFeature {
  let server: ConsoleServer | null = null;
  let starting: Promise<ConsoleServer> | null = null;
  const start = async (): Promise<ConsoleServer> => {
    if (server) return server;
    starting ??= (async () => {
      const { startConsole } = await import("./server.ts");
      const s = await startConsole(opts.deps(), { port: config.console.port, idleMs: config.console.session_idle_minutes * 60_000, mode: opts.mode, passkeys: opts.passkeys });
      server = s;
      opts.announce(`approval console at ${s.origin} (loopback only; log in with the link \`hostgate console\` prints)`);
      return s;
    })().finally(() => { starting = null; });
    return starting;
  };
  const control: ApprovalConsole = {
    origin: () => server?.origin ?? null,
    start: async () => (await start()).origin,
    link: async (purpose, by) => (await start()).mintLink(purpose, by),
  };
  return {
    control,
    notifier: config.console.notify ? webhookNotifier(config.console.notify) : undefined,
    autostart: async () => { if (config.console.enabled) await start(); },
    feature: {
      name: "console",
      doctor: () => Promise.resolve([
        { level: "ok" as const, check: "approval console", message: server ? `serving ${server.origin} (loopback only)` : config.console.enabled ? "enabled but not running" : "off (`hostgate console` starts it; console.enabled starts it with the daemon)" },
        ...passkeyFindings(opts.passkeys === null ? null : opts.passkeys.listPasskeys(opts.deps())),
      ]),
      close: async () => {
        const s = server ?? (starting ? await starting.catch(() => null) : null);
        server = null;
        await s?.close();
      },
    },
  };
}

/**
 * Doctor's passkey findings (issue 23): each active passkey with its name, when and by whom it was enrolled (the
 * audit chain's `passkey.enrolled` entry), so a human spots one they did not make; `warn` for one the chain has
 * no enrollment entry for. None when this daemon has no passkey backend.
 */
export function passkeyFindings(list: PasskeyListing[] | null): Finding[] {
  if (list === null) return [];
  if (list.length === 0) return [{ level: "ok", check: "passkeys", message: "none enrolled (`hostgate console enroll` prints a one-time enrollment link)" }];
  return list.map((p) => p.enrolled_by === null
    ? { level: "warn" as const, check: "passkeys", message: `${visible(p.name)} (${p.credential_id}) has no enrollment entry in the audit chain: revoke it unless you know where it came from (hostgate console revoke ${p.credential_id})` }
    : { level: "ok" as const, check: "passkeys", message: `${visible(p.name)} (${p.credential_id}) enrolled ${p.created_at} by ${p.enrolled_by} (audit seq ${p.enrolled_seq ?? "?"}); not yours? hostgate console revoke ${p.credential_id}` });
}
