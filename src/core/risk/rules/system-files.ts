import type { Cmd } from "../command.ts";
import { fileWrites } from "../effects.ts";
import { isBlockDevice, normalisePath, writeSeverity } from "../paths.ts";
import type { Rule } from "../rule.ts";

function writeLevels(cmd: Cmd): { level: ReturnType<typeof writeSeverity>; dynamic: boolean }[] {
  return fileWrites(cmd).map((a) => ({ level: a.dynamic && a.text === "" ? null : writeSeverity(normalisePath(a.text, cmd.cwd)), dynamic: a.dynamic }));
}

/** Writing files: account, sudo, cron, login and boot files are critical; the rest of /etc is high. */
export const SYSTEM_FILE_RULES: readonly Rule[] = [
  {
    id: "write_critical_file", severity: "critical",
    reason: "overwrites or appends to a file that controls accounts, sudo, cron jobs, logins or boot (root or persistence)",
    commands: ["*"],
    test: (cmd) => fileWrites(cmd).some((a) => {
      const p = normalisePath(a.text, cmd.cwd);
      return !isBlockDevice(p) && writeSeverity(p) === "critical";
    }),
    examples: {
      match: ["echo 'x:x:0:0::/root:/bin/bash' >> /etc/passwd", "cat > /etc/sudoers.d/agent <<'EOF'\nagent ALL=(ALL) NOPASSWD:ALL\nEOF", "base64 -d -o /etc/cron.d/job p.b64",
        "sed -e '/x/w /root/.ssh/authorized_keys' n.txt", "find /var/log -name x -fprintf /etc/cron.d/job 'x'", "echo x | tee -a ~/.bashrc"],
      noMatch: ["cat /etc/passwd", "echo hi > notes.txt", "sed -n '1,20p' /etc/ssh/sshd_config"],
    },
  },
  {
    id: "write_system_file", severity: "high",
    reason: "changes a system configuration file or kernel setting",
    commands: ["*"],
    test: (cmd) => writeLevels(cmd).some((w) => w.level === "high"),
    examples: {
      match: ["printf 'nameserver 1.1.1.1\\n' | tee /etc/resolv.conf", "sed -i 's/a/b/' /etc/ssh/sshd_config", "sed -i -e 's/x/y/' /etc/fstab notes.txt", "echo 1 > /proc/sys/net/ipv4/ip_forward"],
      noMatch: ["sed -i 's/a/b/' notes.txt", "tee out.log"],
    },
  },
  {
    id: "write_unresolved_file", severity: "high",
    reason: "writes to a file whose name is only known at run time",
    commands: ["*"],
    test: (cmd) => writeLevels(cmd).some((w) => w.dynamic && w.level === null),
    examples: { match: ["echo x > \"$OUT\"", "echo hi > $(mktemp)"], noMatch: ["echo x > out.txt"] },
  },
  {
    id: "write_file", severity: "medium",
    reason: "creates or changes a file",
    commands: ["*"],
    test: (cmd) => writeLevels(cmd).some((w) => w.level === "medium"),
    examples: { match: ["npm install > install.log 2>&1", "echo x > notes.txt"], noMatch: ["ls 2>/dev/null", "ls 2>&1"] },
  },
];
