/**
 * A remote host's systemd over SSH (issue 20). Where `systemd-stdio-bridge` exists (what `systemctl -H` runs),
 * its stdin/stdout carry the host's own system bus over one SSH exec channel, and the local DbusUnitManager
 * speaks D-Bus through it: same decoding, same errors, same job handling as a local bus. Unit files
 * (FragmentPath, DropInPaths) are read on the remote host, never from this machine's file system.
 *
 * @jellybrick/dbus-next 0.11.3 takes a bus address, not a stream (TESTING-PEERS.md), so the channel is handed to
 * it through a Unix socket in a fresh 0700 directory of this process: the socket accepts exactly one
 * connection (the library's), then stops listening and is removed; bytes are piped both ways until either side
 * closes. Nothing but this process (and root) can open that directory.
 *
 * Each bridge's channel closes after KEPT_CHANNEL_IDLE_MS without a call (as the process table reader's does), so
 * it gives its pool slot back and an idle host's connection can close; the next call opens a new bridge.
 *
 * Reads go through a bridge run as the login user (reading units needs no privilege); jobs and unit-file
 * changes through a second bridge run as root (`sudo -n` when the host is `become: sudo`), opened only when a
 * change runs, so a host whose sudo wants a password still answers list_units and read_unit.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { MessageBus } from "@jellybrick/dbus-next";
import type { SFTPWrapper } from "ssh2";
import { becomePrefix, sudoFailure, type Become } from "../core/inventory/become.ts";
import { shellJoin } from "../core/inventory/target.ts";
import { HostgateError } from "../core/errors.ts";
import type { UnitManager } from "../ports/unit-manager.ts";
import { KEPT_CHANNEL_IDLE_MS } from "./exec-ssh/pool.ts";
import { runRemote, type OpenExec } from "./remote-exec.ts";
import { DbusUnitManager, notShownNote, type DbusModule, type UnitFileReader } from "./systemd-dbus.ts";
import { sftpUnitFileReader } from "./unit-file-sftp.ts";

/** Where a remote host's systemd is reached: the remote D-Bus (`dbus_bridge`), `systemctl` text, or not at all. */
export type RemoteSystemdKind = "dbus_bridge" | "systemctl" | "none";

/** What {@link detectRemoteSystemd} found: the kind, and a sentence for doctor/describe. */
export interface RemoteSystemd {
  kind: RemoteSystemdKind;
  detail: string;
}

const DETECT = `if [ -d /run/systemd/system ]; then
  if command -v systemd-stdio-bridge >/dev/null 2>&1; then echo dbus_bridge; else echo systemctl; fi
else echo none; fi
systemctl --version 2>/dev/null | head -n 1`;

/**
 * Asks a host (one round trip, as the login user) whether systemd is its init (`/run/systemd/system`, as
 * sd_booted does) and whether `systemd-stdio-bridge` is on its PATH. Rejects only when the host cannot be
 * reached or the probe does not answer.
 */
export async function detectRemoteSystemd(open: OpenExec, host: string): Promise<RemoteSystemd> {
  const r = await runRemote(open, shellJoin(["sh", "-c", DETECT]), { timeoutMs: 10_000, maxOutputBytes: 4096 });
  const [kind = "", version = ""] = r.stdout.toString().split("\n").map((l) => l.trim());
  if (r.exit_code !== 0 || !["dbus_bridge", "systemctl", "none"].includes(kind)) {
    throw new HostgateError("unavailable", `could not tell whether ${host} runs systemd (exit ${r.exit_code ?? r.signal ?? "unknown"}).`, { details: { host, stderr: r.stderr.toString().slice(0, 300) } });
  }
  const v = version ? ` (${version})` : "";
  if (kind === "dbus_bridge") return { kind, detail: `systemd${v} over its own D-Bus, carried by systemd-stdio-bridge over SSH` };
  if (kind === "systemctl") return { kind, detail: `systemd${v} without systemd-stdio-bridge: read through systemctl's text output` };
  return { kind: "none", detail: `PID 1 on ${host} is not systemd (no /run/systemd/system)` };
}

/**
 * Pipes one local socket and one channel together; each side's end or error closes the other. The channel is
 * left flowing once the socket is gone: its end (and so its `close`, which gives the pool's slot back) is only
 * emitted once what the bridge still sent has been read.
 */
function splice(sock: Socket, ch: Awaited<ReturnType<OpenExec>>): void {
  sock.pipe(ch);
  ch.pipe(sock);
  const end = (): void => {
    sock.destroy();
    ch.unpipe(sock);
    ch.resume();
    ch.close();
  };
  sock.on("close", end);
  sock.on("error", end);
  ch.on("close", end);
}

/**
 * Opens a D-Bus connection to a remote host's system bus: runs `systemd-stdio-bridge` (behind `prefix`, e.g.
 * `sudo -n --`) on one exec channel and hands it to dbus-next through a one-connection local socket (see the
 * module comment). Rejects with the sudo error when sudo refuses, `backend_error` when the bridge exits before
 * the bus answers (its stderr is in the message).
 */
export function bridgeBusOpener(open: OpenExec, prefix: readonly string[], host: string, login: string): (mod: DbusModule) => Promise<MessageBus> {
  return async (mod) => {
    const ch = await open(shellJoin([...prefix, "systemd-stdio-bridge"]));
    const dir = mkdtempSync(join(tmpdir(), "hostgate-bus-"));
    const path = join(dir, "bus");
    const stderr: Buffer[] = [];
    ch.stderr.on("data", (d: Buffer) => { if (stderr.length < 16) stderr.push(d); });
    const server = createServer((sock) => {
      server.close();
      rmSync(dir, { recursive: true, force: true });
      splice(sock, ch);
    });
    const cleanup = (): void => {
      server.close();
      rmSync(dir, { recursive: true, force: true });
    };
    try {
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(path, resolve);
      });
    } catch (e) {
      cleanup();
      ch.close();
      throw new HostgateError("backend_error", `cannot relay the bus of ${host}: ${(e as Error).message}`);
    }
    const bus = mod.sessionBus({ busAddress: `unix:path=${path}` });
    // The bridge exiting before the bus is up (sudo refused, no bridge, no bus) is reported with its own words.
    ch.once("exit", (code: number | null) => {
      cleanup();
      const text = Buffer.concat(stderr).toString();
      const e = prefix.length > 0 ? sudoFailure(text, code, host, login) : null;
      const events = bus as unknown as NodeJS.EventEmitter;
      if (events.listenerCount("error") === 0) return;
      events.emit("error", e ?? new HostgateError("backend_error", `systemd-stdio-bridge on ${host} exited (${code ?? "signal"}): ${text.trim().slice(0, 300) || "no message"}`, {
        hint: "Check that the host's system bus runs (dbus.service) and that the login may use it.", details: { host },
      }));
    });
    return bus;
  };
}

/**
 * Reads unit files on the remote host, as the login user, one exec per file: mode first, content only when
 * world-readable. The fallback when no SFTP channel is given ({@link unitFileReaderOf}).
 */
export function remoteUnitFileReader(open: OpenExec): UnitFileReader {
  const script = `m=$(stat -L -c %a -- "$1" 2>/dev/null) || { echo unreadable; exit 0; }
echo "$m"
case $m in *[4567]) exec head -c "$2" -- "$1";; esac`;
  return async (path, maxBytes) => {
    const r = await runRemote(open, shellJoin(["sh", "-c", script, "hostgate-unit-file", path, String(maxBytes + 1)]), { timeoutMs: 10_000, maxOutputBytes: maxBytes + 64 });
    const out = r.stdout;
    const nl = out.indexOf(10);
    const first = (nl < 0 ? out : out.subarray(0, nl)).toString();
    if (r.exit_code !== 0 || first === "unreadable" || !/^[0-7]{1,4}$/.test(first)) return "(unreadable: error)\n";
    const mode = parseInt(first, 8);
    if ((mode & 0o004) === 0) return notShownNote(mode);
    const body = out.subarray(nl + 1);
    const cut = body.length > maxBytes;
    return body.subarray(0, maxBytes).toString("utf8") + (cut ? `\n(truncated at ${maxBytes} bytes)\n` : "");
  };
}

/** Reads through one manager, changes through another (see the module comment). */
class ReadWriteUnitManager implements UnitManager {
  readonly ref = { scope: "system" } as const;
  constructor(private readonly reader: UnitManager, private readonly writer: UnitManager) {}
  listUnits: UnitManager["listUnits"] = (q) => this.reader.listUnits(q);
  getUnit: UnitManager["getUnit"] = (u) => this.reader.getUnit(u);
  getServiceStatus: UnitManager["getServiceStatus"] = (u) => this.reader.getServiceStatus(u);
  getDefinition: UnitManager["getDefinition"] = (u) => this.reader.getDefinition(u);
  properties: UnitManager["properties"] = (source) => (this.reader.properties ? this.reader.properties(source) : Promise.reject(new HostgateError("unavailable", "this host's systemd is not reached over D-Bus")));
  startUnit: UnitManager["startUnit"] = (u, o) => this.writer.startUnit(u, o);
  stopUnit: UnitManager["stopUnit"] = (u, o) => this.writer.stopUnit(u, o);
  restartUnit: UnitManager["restartUnit"] = (u, o) => this.writer.restartUnit(u, o);
  reloadUnit: UnitManager["reloadUnit"] = (u, o) => this.writer.reloadUnit(u, o);
  enableUnitFiles: UnitManager["enableUnitFiles"] = (u) => this.writer.enableUnitFiles(u);
  disableUnitFiles: UnitManager["disableUnitFiles"] = (u) => this.writer.disableUnitFiles(u);
  maskUnitFiles: UnitManager["maskUnitFiles"] = (u) => this.writer.maskUnitFiles(u);
  unmaskUnitFiles: UnitManager["unmaskUnitFiles"] = (u) => this.writer.unmaskUnitFiles(u);
  reloadManager: UnitManager["reloadManager"] = () => this.writer.reloadManager();
  unitsNeedingReload: UnitManager["unitsNeedingReload"] = () => this.reader.unitsNeedingReload();
  async close(): Promise<void> {
    await Promise.all([this.reader.close(), this.writer.close()]);
  }
}

/**
 * The unit file reader of a remote manager: through the connection's SFTP channel when `sftp` is given
 * (unit-file-sftp.ts: pipelined requests, no process on the host), else one exec per file.
 */
export function unitFileReaderOf(o: { open: OpenExec; sftp?: (() => Promise<SFTPWrapper>) | undefined }): UnitFileReader {
  return o.sftp ? sftpUnitFileReader(o.sftp) : remoteUnitFileReader(o.open);
}

/** Options of {@link bridgeUnitManager}. */
export interface BridgeUnitManagerOptions {
  open: OpenExec;
  /** The pooled connection's SFTP session (SshSession.sftp): unit files are read through it; absent, by exec. */
  sftp?: (() => Promise<SFTPWrapper>) | undefined;
  /** Inventory name (messages). */
  host: string;
  /** SSH login user. */
  login: string;
  become: Become;
  /** Per-call timeout, ms (default 10 000). */
  callTimeoutMs?: number;
  /** Close a bridge after this many ms without a call (default KEPT_CHANNEL_IDLE_MS, 20 000). */
  idleMs?: number;
}

/**
 * The system manager of a remote host over its own D-Bus (see the module comment). Connects lazily on first
 * use; `close()` ends the channels. Errors are DbusUnitManager's, plus the sudo ones for changes.
 */
export function bridgeUnitManager(o: BridgeUnitManagerOptions): UnitManager {
  const readUnitFile = unitFileReaderOf(o);
  const base = { busAddress: `ssh://${o.login}@${o.host} systemd-stdio-bridge`, readUnitFile, ...(o.callTimeoutMs ? { callTimeoutMs: o.callTimeoutMs } : {}), connectTimeoutMs: 10_000, idleMs: o.idleMs ?? KEPT_CHANNEL_IDLE_MS };
  const reader = new DbusUnitManager({ ...base, openBus: bridgeBusOpener(o.open, [], o.host, o.login) });
  if (o.login === "root" || o.become === "none") return reader;
  const writer = new DbusUnitManager({ ...base, busAddress: `ssh://${o.login}@${o.host} sudo systemd-stdio-bridge`, openBus: bridgeBusOpener(o.open, becomePrefix(o.become), o.host, o.login) });
  return new ReadWriteUnitManager(reader, writer);
}
