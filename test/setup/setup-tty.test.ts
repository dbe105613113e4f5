// The wizard in a real terminal: tmux gives `hostgate setup` a pty; keys are sent and the screen is read back.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { REQUIRE_PEERS, waitFor, whichSync } from "../peers/proc.ts";
import { HOSTGATE_BIN } from "../helpers/hostgate.ts";
import { clientFile, freshHome } from "./fixtures.ts";

const missing = whichSync("tmux") === null ? "tmux is not installed (apt-get install tmux)" : null;
if (missing && REQUIRE_PEERS) throw new Error(missing);
if (missing) console.warn(`SKIP setup-tty: ${missing}`);

// One tmux server per test: kill-server returns before the old server is gone, and a new session on the same
// socket name can reach the dying server ("server exited unexpectedly").
let serverNo = 0;
const server = (): string => `hg-setup-${process.pid}-${serverNo}`;
const tmux = (...args: string[]) => spawnSync("tmux", ["-L", server(), ...args], { encoding: "utf8" });
const screen = () => tmux("capture-pane", "-p", "-t", "wiz").stdout;

async function waitScreen(re: RegExp): Promise<string> {
  let last = "";
  await waitFor(`the screen to show ${re}`, () => re.test((last = screen())), 20_000).catch((e: unknown) => { throw new Error(`${(e as Error).message}\n--- screen ---\n${last}`); });
  return last;
}

function start(env: Record<string, string | undefined>, cwd: string, exitFile: string): void {
  const vars = Object.entries(env).map(([k, v]) => `${k}=${JSON.stringify(v ?? "")}`).join(" ");
  const cmd = `cd ${JSON.stringify(cwd)} && env ${vars} ${JSON.stringify(process.execPath)} ${JSON.stringify(HOSTGATE_BIN)} setup; echo $? > ${JSON.stringify(exitFile)}; sleep 60`;
  const r = tmux("new-session", "-d", "-s", "wiz", "-x", "160", "-y", "60", "sh", "-c", cmd);
  if (r.status !== 0) throw new Error(`tmux new-session failed: ${r.stderr}`);
}

afterEach(() => { tmux("kill-server"); serverNo++; });

describe.skipIf(missing !== null)("hostgate setup in a terminal", () => {
  it("asks, shows the plan, writes the chosen client on confirmation", async () => {
    const { env, cwd, home } = freshHome("tty");
    mkdirSync(join(home, ".cursor"));
    const exitFile = join(home, "exit");
    start(env, cwd, exitFile);
    let s = await waitScreen(/Which AI clients/);
    expect(s).toMatch(/◼ Cursor.*installed/); // detected, so preselected
    tmux("send-keys", "-t", "wiz", "Enter");
    await waitScreen(/How should the clients reach hostgate/);
    tmux("send-keys", "-t", "wiz", "Enter"); // stdio
    s = await waitScreen(/Which daemon should hostgate use/);
    expect(s).toMatch(/admin socket belongs to your user/);
    tmux("send-keys", "-t", "wiz", "Enter"); // embedded
    await waitScreen(/Use an LLM/);
    tmux("send-keys", "-t", "wiz", "Enter"); // no
    s = await waitScreen(/Show the diff first/);
    expect(s).toMatch(/~ Cursor: .*mcp\.json: would be created/);
    tmux("send-keys", "-t", "wiz", "Right", "Enter"); // yes, show it
    s = await waitScreen(/Write 1 file/);
    expect(s).toMatch(/\+\s+"hostgate": \{/);
    tmux("send-keys", "-t", "wiz", "Enter");
    await waitFor("setup to exit", () => existsSync(exitFile) && readFileSync(exitFile, "utf8").trim() !== "", 20_000);
    expect(readFileSync(exitFile, "utf8").trim()).toBe("0");
    expect(screen()).toMatch(/✓ Cursor: .*created/);
    const entry = (JSON.parse(readFileSync(clientFile("cursor", home, cwd), "utf8")) as { mcpServers: { hostgate: { args: string[] } } }).mcpServers.hostgate;
    expect(entry.args).toContain("mcp");
  });

  it("Ctrl-C at a question writes nothing and exits 1", async () => {
    const { env, cwd, home } = freshHome("tty-cancel");
    const exitFile = join(home, "exit");
    start(env, cwd, exitFile);
    await waitScreen(/Which AI clients/);
    tmux("send-keys", "-t", "wiz", "Space", "Enter");
    await waitScreen(/Claude Code: where should the entry go/);
    tmux("send-keys", "-t", "wiz", "C-c");
    await waitFor("setup to exit", () => existsSync(exitFile) && readFileSync(exitFile, "utf8").trim() !== "", 20_000);
    expect(readFileSync(exitFile, "utf8").trim()).toBe("1");
    expect(screen()).toMatch(/Nothing was written/);
    expect(existsSync(join(home, ".claude.json"))).toBe(false);
  });
});
