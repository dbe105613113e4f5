import { cancel, confirm, intro, isCancel, log, multiselect, note, outro, password, select, text } from "@clack/prompts";
import { CLIENTS, clientById, type ClientId } from "../core/clients/catalog.ts";
import { SEPARATION_NOTE } from "./setup-command.ts";
import { DEFAULT_URL, clientContext, detectClients, renderDiff, renderSummary, type SetupChoices, type SetupPlan } from "./setup-run.ts";
import type { SetupFlags } from "./setup.ts";

/** The wizard's questions (only on a terminal). Flags already given are not asked again. Null = cancelled. */

class Cancelled extends Error {}

function answer<T>(v: T): Exclude<T, symbol> {
  if (isCancel(v)) throw new Cancelled();
  return v as Exclude<T, symbol>;
}

const SYSTEM_SOCKET = "/run/hostgate/agent.sock";

/** Asks what the flags left open; returns the completed choices or null when the user cancels. */
export async function askChoices(initial: SetupChoices, flags: SetupFlags, env: NodeJS.ProcessEnv, cwd: string): Promise<SetupChoices | null> {
  const c: SetupChoices = { ...initial };
  try {
    intro("hostgate setup");
    if (c.clients.length === 0) {
      const detected = new Set(detectClients(clientContext(env, cwd, c.claudeScope), env));
      c.clients = answer(await multiselect<ClientId>({
        message: "Which AI clients should use hostgate? (space to toggle, enter to confirm)",
        options: CLIENTS.map((d) => ({ value: d.id, label: d.label, hint: detected.has(d.id) ? "installed" : `--${d.id}` })),
        initialValues: [...detected],
        required: true,
      }));
    }
    if (c.clients.includes("claude") && flags.scope === undefined) {
      c.claudeScope = answer(await select({
        message: "Claude Code: where should the entry go?",
        options: [
          { value: "user" as const, label: "Your user (~/.claude.json)", hint: "every project" },
          { value: "project" as const, label: `This project (${cwd}/.mcp.json)`, hint: "shared with the repository unless gitignored" },
        ],
      }));
    }
    if (flags.transport === undefined) {
      c.transport = answer(await select({
        message: "How should the clients reach hostgate?",
        options: [
          { value: "stdio" as const, label: "stdio", hint: "the client starts `hostgate mcp` itself (recommended)" },
          { value: "http" as const, label: "HTTP", hint: "the client connects to a running `hostgate serve`" },
        ],
      }));
    }
    if (c.transport === "stdio" && flags.socket === undefined) {
      const isRoot = process.getuid?.() === 0;
      note(SEPARATION_NOTE, "Approvals and separation");
      const where = answer(await select({
        message: "Which daemon should hostgate use?",
        options: [
          { value: "embedded", label: "Embedded", hint: "zero setup, runs as you" },
          { value: "system", label: `The system daemon (${SYSTEM_SOCKET})`, hint: isRoot ? "can be installed now" : "installed with sudo hostgate daemon install" },
          { value: "other", label: "Another daemon", hint: "a socket path, tcp://HOST:PORT or vsock://CID:PORT" },
        ],
      }));
      if (where === "embedded") c.socket = null;
      else if (where === "system") {
        c.socket = SYSTEM_SOCKET;
        if (isRoot && answer(await confirm({ message: "Install and start the hostgate daemon as a systemd service now?", initialValue: true }))) {
          const [{ installService, installSummary }, { launcher }, { VERSION }] = await Promise.all([import("../adapters/service-install.ts"), import("./install-paths.ts"), import("../version.ts")]);
          const l = launcher(env);
          const r = installService({ node: l.node, script: l.script, version: VERSION });
          if (r.ok) log.success(installSummary(r));
          else log.error(`${installSummary(r)}\nThe clients will still point at ${SYSTEM_SOCKET}; fix the step above and run \`sudo hostgate daemon install\`.`);
        }
      } else {
        c.socket = answer(await text({
          message: "Daemon socket or URI",
          placeholder: "/tmp/hostgate-vm.sock, tcp://10.0.0.2:7420 or vsock://3:7420",
          validate: (v) => (v && (v.startsWith("/") || /^(tcp|vsock):\/\//.test(v)) ? undefined : "an absolute path, tcp://HOST:PORT or vsock://CID:PORT"),
        }));
      }
      if (c.socket !== null && c.socket.startsWith("tcp://") && (c.token === undefined || c.token.length < 32)) {
        c.token = answer(await password({ message: "The daemon's token (daemon.token, at least 32 characters)", validate: (v) => (v && v.length >= 32 ? undefined : "at least 32 characters") }));
      }
    }
    if (c.transport === "http") {
      if (flags.url === undefined) c.url = answer(await text({ message: "URL of hostgate serve", placeholder: DEFAULT_URL, defaultValue: DEFAULT_URL }));
      if (c.httpToken === undefined) {
        const t = answer(await password({ message: "Bearer token of the server (empty: none, for loopback)" }));
        c.httpToken = t ? t : undefined;
      }
    }
    if (c.planner === null && flags.plannerUrl === undefined) {
      if (answer(await confirm({ message: "Use an LLM to turn intents into plans? (plans are checked against the catalogue either way)", initialValue: false }))) {
        const base_url = answer(await text({ message: "OpenAI-compatible endpoint", placeholder: "http://127.0.0.1:8080/v1", validate: (v) => { try { new URL(v ?? ""); return undefined; } catch { return "a URL such as http://127.0.0.1:8080/v1"; } } }));
        const model = answer(await text({ message: "Model", validate: (v) => (v ? undefined : "a model name") }));
        const key = answer(await text({ message: "Environment variable holding its API key (empty: none)", placeholder: "OPENAI_API_KEY", validate: (v) => (!v || /^[A-Z_][A-Z0-9_]*$/.test(v) ? undefined : "a variable name in capitals") }));
        c.planner = { base_url, model, api_key_env: key ? key : undefined };
      }
    }
    return c;
  } catch (err) {
    if (err instanceof Cancelled) {
      cancel("Nothing was written.");
      return null;
    }
    throw err;
  }
}

/** Shows the planned changes and asks before writing. */
export async function confirmWrite(plan: SetupPlan): Promise<boolean> {
  const changes = plan.files.filter((f) => f.result.status === "created" || f.result.status === "updated" || f.tighten);
  process.stdout.write(renderSummary(plan, new Map(), true));
  if (changes.length === 0) {
    outro("Nothing to change.");
    return true;
  }
  const diff = renderDiff(plan);
  const show = await confirm({ message: "Show the diff first?", initialValue: false });
  if (isCancel(show)) { cancel("Nothing was written."); return false; }
  if (show) process.stdout.write(diff);
  const ok = await confirm({ message: `Write ${changes.length} file${changes.length === 1 ? "" : "s"} (each existing file is backed up first)?`, initialValue: true });
  if (isCancel(ok) || !ok) { cancel("Nothing was written."); return false; }
  outro(`Configured: ${[...new Set(changes.filter((f) => f.target !== "config").map((f) => clientById(f.target as ClientId).label))].join(", ") || "hostgate config"}`);
  return true;
}
