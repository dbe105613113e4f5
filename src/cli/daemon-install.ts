import type { Command } from "commander";
import { EXIT } from "./common.ts";

/** Prints what to do after an install: add users to the group, point clients at the socket. */
export const AFTER_INSTALL = [
  "",
  "Next:",
  "  sudo usermod -aG hostgate <user>        # who may use the agent socket (log out and in again afterwards)",
  "  hostgate setup --socket /run/hostgate/agent.sock   # as that user: point the AI clients at the daemon",
  "  sudo hostgate approve <plan_id>         # approvals need root at a terminal (admin socket, mode 0600)",
].join("\n");

/**
 * What install says when a non-root user could change what the root service runs (adapters/install-tree.ts):
 * the paths and why, and the fix. `forced`: --force was given, so it is a loud warning, not a refusal.
 */
export function treeWarning(tree: { findings: { path: string; why: string }[]; total: number }, root: string, forced: boolean): string {
  const lines = tree.findings.map((f) => `  ${f.path}: ${f.why}`);
  if (tree.total > tree.findings.length) lines.push(`  … and ${tree.total - tree.findings.length} more`);
  return [
    `hostgate: ${forced ? "WARNING" : "refusing to install"}: the daemon runs as root, and a non-root user could change what it runs (${tree.total} ${tree.total === 1 ? "path" : "paths"}):`,
    ...lines,
    forced
      ? "hostgate: installing anyway (--force): whoever can write those paths can run code as root."
      : `Install hostgate where only root can write (\`sudo npm install -g hostgate\`), or make this tree root's: \`sudo chown -R root:root ${root} && sudo chmod -R go-w ${root}\` (and the same for each directory listed above it). --force installs anyway.`,
  ].join("\n");
}

/**
 * `hostgate daemon install|uninstall` (root): the daemon as a hardened systemd service with the `hostgate`
 * group for its agent socket; `--vsock PORT` adds a vsock listener for a daemon in a VM.
 */
export function registerDaemonInstallCommands(program: Command): void {
  const daemon = program.commands.find((c) => c.name() === "daemon");
  if (!daemon) throw new Error("the daemon command must be registered first");
  daemon
    .command("install")
    .description("Install the daemon as a hardened systemd service (root): units, the hostgate group, enable and start.")
    .option("--vsock <port>", "also listen on this vsock port (for the hypervisor host), forwarded to the agent socket")
    .option("--unit-dir <dir>", "where unit files go", "/etc/systemd/system")
    .option("--no-start", "write and verify the units only")
    .option("--dry-run", "print the units and write nothing")
    .option("--force", "install even when a non-root user could change node or hostgate's files (root would run their code)")
    .action(async (opts: { vsock?: string; unitDir: string; start: boolean; dryRun?: boolean; force?: boolean }) => {
      const [{ installService, installSummary, renderUnits, checkInstallTree }, { parseVsockPort }, { launcher, packageRoot }, { VERSION }] = await Promise.all([
        import("../adapters/service-install.ts"), import("../core/service/units.ts"), import("./install-paths.ts"), import("../version.ts"),
      ]);
      let vsockPort: number | undefined;
      if (opts.vsock !== undefined) {
        const p = parseVsockPort(opts.vsock);
        if (p === null) {
          process.stderr.write(`hostgate: --vsock ${opts.vsock}: expected a port number from 1 to 4294967294.\n`);
          process.exit(EXIT.usage);
        }
        vsockPort = p;
      }
      const l = launcher();
      if (l.warning) process.stderr.write(`hostgate: ${l.warning}\n`);
      const tree = checkInstallTree(l.node, packageRoot(l.script));
      if (tree.total > 0) {
        process.stderr.write(`${treeWarning(tree, packageRoot(l.script), opts.force === true)}\n`);
        if (opts.force !== true) process.exit(EXIT.failure);
      }
      const inputs = { node: l.node, script: l.script, version: VERSION, vsockPort };
      if (opts.dryRun) {
        for (const [name, text] of Object.entries(renderUnits(inputs))) process.stdout.write(`# ${opts.unitDir}/${name}\n${text}\n`);
        process.exit(EXIT.ok);
      }
      const r = installService({ ...inputs, unitDir: opts.unitDir, noStart: !opts.start });
      process.stdout.write(`${installSummary(r)}\n`);
      if (r.ok) process.stdout.write(`${AFTER_INSTALL}\n`);
      process.exit(r.ok ? EXIT.ok : EXIT.failure);
    });
  daemon
    .command("uninstall")
    .description("Stop, disable and remove the service and the hostgate group (root); state in /var/lib/hostgate is kept.")
    .option("--unit-dir <dir>", "where unit files are", "/etc/systemd/system")
    .option("--keep-group", "keep the hostgate group")
    .action(async (opts: { unitDir: string; keepGroup?: boolean }) => {
      const { uninstallService, installSummary } = await import("../adapters/service-install.ts");
      const r = uninstallService({ unitDir: opts.unitDir, keepGroup: opts.keepGroup === true });
      process.stdout.write(`${installSummary(r)}\n`);
      process.exit(r.ok ? EXIT.ok : EXIT.failure);
    });
}
