import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawIpc, startDaemon, type DaemonProcess } from "../helpers/daemon.ts";
import { runHostgateInPty } from "../helpers/hostgate.ts";

/**
 * A skill run ends, and sees only the documented environment (issue 21; corpus cases T3-28 and the setsid
 * item): a real `hostgate daemon` started with secrets in its environment, a local skills root it was given,
 * grants over the admin socket with the real CLI, runs over the agent socket.
 */

const root = mkdtempSync(join(tmpdir(), `skills-exec-ends-${process.pid}-`));
const skills = join(root, "skills");
const marker = `${4000 + (process.pid % 1000)}.${Date.now() % 1000}`;

function writeSkill(): void {
  const dir = join(skills, "run-ends");
  mkdirSync(join(dir, "scripts"), { recursive: true });
  mkdirSync(join(dir, "agents"), { recursive: true });
  writeFileSync(join(dir, "SKILL.md"), "---\nname: run-ends\ndescription: Entrypoints for the run-ends tests.\n---\n# run-ends\n");
  // Prints its environment's names, then the three probe values (empty when absent).
  writeFileSync(join(dir, "scripts", "env.sh"), 'env | cut -d= -f1 | sort | tr "\\n" " "; echo; echo "probe=[$HG_T3_PROBE] aws=[$AWS_SECRET_ACCESS_KEY] ssh=[$SSH_AUTH_SOCK]"; echo "home=$HOME tmp=$TMPDIR"\n');
  // Leaves a child in a new session holding stdout, then exits at once.
  writeFileSync(join(dir, "scripts", "escape.sh"), 'setsid sleep "$1" &\necho "left a child"\n');
  writeFileSync(join(dir, "agents", "hostgate.yaml"), [
    "entrypoints:",
    "  env: { run: scripts/env.sh, interpreter: bash, description: prints its environment }",
    "  escape: { run: scripts/escape.sh, interpreter: bash, description: leaves a setsid child, timeout_seconds: 60 }",
    "capabilities:",
    "  mcp:",
    "    exec: [env, escape]",
    "",
  ].join("\n"));
}


/** PIDs of live (non-zombie) processes whose command line is exactly `sleep <marker>`. */
function sleepers(): number[] {
  const out: number[] = [];
  for (const p of readdirSync("/proc")) {
    if (!/^\d+$/.test(p)) continue;
    try {
      if (readFileSync(`/proc/${p}/cmdline`, "utf8") !== `sleep\0${marker}\0`) continue;
      if (/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${p}/stat`, "utf8"))) continue;
      out.push(Number(p));
    } catch { /* gone */ }
  }
  return out;
}

type Envelope = { ok: boolean; data?: Record<string, unknown>; error?: { code: string; message: string } };
const envelopeOf = (r: Record<string, unknown>): Envelope => ((r.result as { value: Envelope }).value);

describe("a skill run ends and sees only the documented environment (real daemon)", () => {
  let daemon: DaemonProcess;
  let ref: string;
  beforeAll(async () => {
    writeSkill();
    daemon = await startDaemon(`skills:\n  allow_exec: true\n  roots: [${skills}]\n`, {
      env: { HG_T3_PROBE: "probe-value-t328", AWS_SECRET_ACCESS_KEY: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", SSH_AUTH_SOCK: "/tmp/ssh-agent-t328.sock" },
    });
    const resolved = envelopeOf(await rawIpc(daemon.agentSocket, "skills_resolve", { ref: "run-ends" }));
    ref = resolved.data!.pinned_ref as string;
    for (const ep of ["env", "escape"]) {
      const g = await runHostgateInPty(["skills", "grants", "add", ref, ep, "--socket", daemon.adminSocket, "--json"], { env: daemon.env });
      expect(g.code, g.output).toBe(0);
    }
  });
  afterAll(async () => {
    for (const p of sleepers()) { try { process.kill(p, "SIGKILL"); } catch { /* gone */ } }
    await daemon.stop();
    rmSync(daemon.dir, { recursive: true, force: true });
    rmSync(root, { recursive: true, force: true });
  });

  it("T3-28: only PATH, LANG, HOSTGATE_SKILL*, a private HOME and TMPDIR reach the script; none of the daemon's variables", async () => {
    const r = envelopeOf(await rawIpc(daemon.agentSocket, "skills_execute", { ref, entrypoint: "env" }));
    expect(r.ok, JSON.stringify(r)).toBe(true);
    const stdout = r.data!.stdout as string;
    const names = stdout.split("\n")[0]!.trim().split(" ").filter((n) => n !== "" && n !== "PWD" && n !== "SHLVL" && n !== "_" && n !== "OLDPWD");
    expect(names).toEqual(["HOME", "HOSTGATE_SKILL", "HOSTGATE_SKILL_DIGEST", "LANG", "PATH", "TMPDIR"]);
    expect(stdout).toContain("probe=[] aws=[] ssh=[]");
    expect(stdout).not.toMatch(/probe-value-t328|wJalrXUtnFEMI|ssh-agent-t328/);
    const home = /home=(\S+) tmp=(\S+)/.exec(stdout)!;
    expect(home[1]).toBe(home[2]);
    expect(home[1]).toMatch(/hostgate-skill-/);
  });

  it("a granted skill that leaves a setsid child returns when its main process exits; the child is killed; the next run is not exec_busy", async () => {
    const r = envelopeOf(await rawIpc(daemon.agentSocket, "skills_execute", { ref, entrypoint: "escape", args: [marker] }));
    expect(r.ok, JSON.stringify(r)).toBe(true);
    expect(r.data).toMatchObject({ exit_code: 0, timed_out: false, cancelled: false, confinement: "pid_namespace" });
    expect(r.data!.stdout).toContain("left a child");
    expect(sleepers()).toEqual([]);
    const next = envelopeOf(await rawIpc(daemon.agentSocket, "skills_execute", { ref, entrypoint: "env" }));
    expect(next.ok, JSON.stringify(next)).toBe(true);
  });
});

describe("the runner without a PID namespace (hosts that refuse one): the drain deadline still ends the run", () => {
  it("returns after the main process exits although a setsid child holds the pipes", async () => {
    const { processRunner } = await import("../../src/adapters/skills-exec.ts");
    const mark = `${marker}1`;
    const runner = processRunner({ pidNamespace: false, drainMs: 200 });
    try {
      const out = await runner.run({ argv: ["/bin/bash", "-c", `setsid sleep ${mark} & echo started`], env: { PATH: "/usr/bin:/bin" }, timeoutMs: 60_000, captureBytes: 1024 });
      expect(out).toMatchObject({ exit_code: 0, timed_out: false, confinement: "process_group" });
      expect(Buffer.from(out.stdout).toString()).toBe("started\n");
    } finally {
      // Without a namespace such a child is not followed (docs/skills.md says so): clean it up here.
      for (const p of readdirSync("/proc")) {
        try { if (readFileSync(`/proc/${p}/cmdline`, "utf8") === `sleep\0${mark}\0`) process.kill(Number(p), "SIGKILL"); } catch { /* gone */ }
      }
    }
  });
});
