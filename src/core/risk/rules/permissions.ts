import type { Cmd } from "../command.ts";
import { isCoreRoot, isSystemPath, writeSeverity } from "../paths.ts";
import { programOf } from "../programs/index.ts";
import type { Rule } from "../rule.ts";
import { INTERPRETERS, SHELLS } from "../table.ts";
import { SPECS, operands, recursive, targetPath } from "./util.ts";

const spec = (cmd: Cmd): typeof SPECS.chmod => (cmd.name === "chmod" ? SPECS.chmod : SPECS.chown);
/** Paths after the mode/owner operand (or all operands with --reference). */
const paths = (cmd: Cmd): string[] => {
  const ops = operands(cmd, spec(cmd));
  // chattr's attributes (`+i`) and setfacl's ACL specs are not paths; setfacl's -m/-x values may come first.
  if (cmd.name === "setfacl") return ops.filter((a) => /^[/~.]/.test(a.text)).map((a) => targetPath(cmd, a));
  const hasRef = cmd.args.some((a) => a.text.startsWith("--reference"));
  return ops.slice(hasRef ? 0 : 1).map((a) => targetPath(cmd, a));
};
/** The mode given: chmod's first operand, or install/mkdir/mknod's -m/--mode value (programs/table.ts for install). */
const mode = (cmd: Cmd): string => {
  if (cmd.name === "chmod") return operands(cmd, SPECS.chmod)[0]?.text ?? "";
  if (cmd.name === "install") return programOf(cmd)?.flags.get("--mode")?.at(-1)?.text ?? "";
  return "";
};
/** Files whose mode is set: chmod's paths, or install's sources (the copies keep their program). */
const modeTargets = (cmd: Cmd): string[] => {
  if (cmd.name !== "install") return paths(cmd);
  const ops = programOf(cmd)?.operands ?? [];
  return ops.map((a) => targetPath(cmd, a));
};
const worldWritable = (m: string): boolean => /^0*[0-7]?[0-7][0-7][2367]$/.test(m) || /(^|,)(o|a)?[+=][rwxXst]*w/.test(m) && !/^[ug]+[+=]/.test(m);
const setid = (m: string): boolean => /^0*[2-7][0-7]{3}$/.test(m) || /[+=][rwxXt]*s/.test(m);
/** Programs that give a shell or arbitrary file access when setuid (GTFOBins "SUID" list, abridged). */
const SHELL_LIKE = new Set([...SHELLS, ...INTERPRETERS, "find", "vim", "vi", "less", "more", "env", "awk", "gawk", "cp", "tee", "dd", "nano", "ed", "tar", "zip", "nmap", "busybox", "sudo", "su", "chmod", "chown"]);

/** Permission and ownership changes: recursive on system trees, world-writable, setuid. */
export const PERMISSION_RULES: readonly Rule[] = [
  {
    id: "recursive_perm_core", severity: "critical",
    reason: "recursively changes permissions or owner of the root or a core system directory",
    commands: ["chmod", "chown", "chgrp", "chattr", "setfacl"],
    test: (cmd) => recursive(cmd, spec(cmd)) && paths(cmd).some(isCoreRoot),
    examples: { match: ["chmod -R 777 /", "chown -R nobody /etc", "find / -type f -exec chmod 666 {} \\;", "chattr -R +i /", "setfacl -R -m u:eve:rwx /etc"], noMatch: ["chmod -R 755 ./dist", "chown -R root /srv", "chattr +i ./notes"] },
  },
  {
    id: "recursive_perm_system", severity: "high",
    reason: "recursively changes permissions or owner inside the system tree or a home directory",
    commands: ["chmod", "chown", "chgrp", "chattr", "setfacl"],
    test: (cmd) => recursive(cmd, spec(cmd)) && paths(cmd).some((p) => isSystemPath(p) && !isCoreRoot(p)),
    examples: { match: ["chown --recurs root /srv", "chown -Rh root /var/lib", "chmod -v -R 777 ~"], noMatch: ["chown -R \"$USER:$USER\" ./project", "chmod -R 777 /"] },
  },
  {
    id: "recursive_world_writable", severity: "high",
    reason: "makes a whole tree world-writable",
    commands: ["chmod"],
    test: (cmd) => recursive(cmd, SPECS.chmod) && worldWritable(mode(cmd)),
    examples: { match: ["chmod -Rf 0777 /var/www", "chmod -R o+w ./shared"], noMatch: ["chmod -R 755 ./bin", "chmod 777 x"] },
  },
  {
    id: "world_writable_system", severity: "high",
    reason: "makes a system directory or file world-writable: any user can then replace what is in it (a directory without the sticky bit lets anyone rename or delete its files)",
    commands: ["chmod"],
    test: (cmd) => worldWritable(mode(cmd)) && paths(cmd).some((p) => isSystemPath(p) && p !== "/tmp"),
    examples: { match: ["chmod 777 /etc", "chmod o+w /usr/local/bin", "chmod a+rw /etc/ssh/sshd_config", "chmod 0777 ~"], noMatch: ["chmod 777 ./x", "chmod 755 /etc/nginx", "chmod 1777 /tmp", "chmod 666 /tmp/x.sock"] },
  },
  {
    id: "setuid_shell", severity: "critical",
    reason: "sets setuid/setgid on a shell or a program that spawns one: root for any user",
    commands: ["chmod", "install"],
    test: (cmd) => setid(mode(cmd)) && modeTargets(cmd).some((p) => SHELL_LIKE.has(p.slice(p.lastIndexOf("/") + 1))),
    examples: { match: ["chmod 4755 /bin/bash", "chmod u+s /usr/bin/find", "install -m 4755 /bin/sh ./rootsh", "install --mode=u+s /usr/bin/python3 /tmp/py"], noMatch: ["chmod 755 /bin/tool", "chmod u+s ./mytool"] },
  },
  {
    id: "setuid", severity: "high",
    reason: "sets the setuid or setgid bit",
    commands: ["chmod", "install"],
    test: (cmd) => setid(mode(cmd)),
    examples: { match: ["chmod u+s ./mytool", "chmod 2755 dir", "install -m 4755 ./tool /usr/local/bin/tool", "install -Dm6755 a b"], noMatch: ["chmod +x deploy.sh", "chmod 0755 x", "install -m 0755 ./tool /usr/local/bin/tool"] },
  },
  {
    id: "perm_critical_file", severity: "high",
    reason: "changes permissions or owner of an account, sudo, cron or login file",
    commands: ["chmod", "chown", "chgrp", "chattr", "setfacl"],
    test: (cmd) => cmd.args.some((a) => writeSeverity(targetPath(cmd, a)) === "critical" && a.text.startsWith("/")),
    examples: { match: ["chmod 666 /etc/shadow", "chown me /etc/sudoers", "chmod 666 /var/run/docker.sock", "setfacl -m u:eve:rw /run/docker.sock"], noMatch: ["chmod 644 ./notes"] },
  },
];
