import type { Command } from "commander";
import { EXIT, loadConfigOrExit } from "./common.ts";

/** `hostgate doctor`: the daemon's checks plus every configured client's entry. Exit 0 without failures, else 1. */
export function registerDoctorCommand(program: Command): void {
  program
    .command("doctor")
    .description("Check the daemon (the doctor tool's checks) and every AI client's hostgate entry; prints a fix for each problem.")
    .option("-c, --config <path>", "configuration file (must exist)")
    .option("--json", "print the checks as JSON")
    .option("--no-clients", "skip the client checks")
    .option("--hosts", "also dial every inventory host: reachable, host key, login, root (sudo -n), systemd path, distro family")
    .action(async (opts: { config?: string; json?: boolean; clients: boolean; hosts?: boolean }) => {
      const config = loadConfigOrExit(opts.config);
      const { daemonChecks, clientChecks, renderDoctor, tokenFileChecks } = await import("./doctor-checks.ts");
      const daemon = await daemonChecks(config, process.env);
      const lines = [...daemon.lines, ...(await tokenFileChecks(opts.config)), ...(opts.clients ? await clientChecks(process.env, process.cwd()) : [])];
      await daemon.close();
      let hosts: import("./doctor-hosts.ts").HostReport[] | undefined;
      if (opts.hosts === true) {
        const { checkHosts, hostLines } = await import("./doctor-hosts.ts");
        hosts = await checkHosts(config);
        lines.push(...hostLines(hosts));
      }
      process.stdout.write(opts.json ? `${JSON.stringify({ checks: lines, ...(hosts ? { hosts } : {}) }, null, 2)}\n` : renderDoctor(lines));
      process.exit(lines.some((l) => l.status === "fail") ? EXIT.failure : EXIT.ok);
    });
}

