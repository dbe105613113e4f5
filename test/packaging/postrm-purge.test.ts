// The .deb's postrm purge (scripts/deb-files.ts POSTRM), run for real without a package or a container: in a
// private mount namespace where /var/lib, /var/log, /var/backups and /run are empty tmpfs mounts and /etc is an
// overlay whose upper layer is a temp directory, so this machine's state, logs, backups and groups never change
// (the machine has a `hostgate` group of its own, which purge would delete). tmpfs keeps file attributes
// (chattr +a) on this kernel; the test says so when it cannot. The full package test is test/packaging/deb.test.ts.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { AUDIT_BACKUP_DIR, POSTRM } from "../../scripts/deb-files.ts";
import { peerMissing } from "../helpers/peers.ts";
import { scratchPrereqs } from "../peers/scratch-mounts.ts";
import { whichSync } from "../peers/proc.ts";

const missing = peerMissing("the postrm purge test", scratchPrereqs() ?? (whichSync("chattr") && whichSync("lsattr") ? null : "no chattr/lsattr (e2fsprogs)"));

describe.skipIf(missing)("postrm purge keeps the audit chain", () => {
  const dir = mkdtempSync(join(tmpdir(), "hg-postrm-"));
  afterAll(() => { rmSync(dir, { recursive: true, force: true }); });

  /** Plants an installed hostgate's evidence, runs `postrm purge`, and prints what the kept checkpoint copy looks like. */
  function purge(): { status: number | null; stdout: string; stderr: string } {
    const script = join(dir, "postrm");
    writeFileSync(script, POSTRM, { mode: 0o755 });
    const setup = [
      "set -e",
      `mkdir -p ${dir}/u ${dir}/w`,
      `mount -t overlay overlay -o lowerdir=/etc,upperdir=${dir}/u,workdir=${dir}/w /etc`,
      "for d in /var/lib /var/log /var/backups /run; do mount -t tmpfs tmpfs $d; done",
      "mkdir -p /var/lib/hostgate/audit-keys /var/log/hostgate /etc/hostgate/audit-pins",
      "echo db > /var/lib/hostgate/audit.db; echo key > /var/lib/hostgate/audit-keys/current.key",
      "echo '{\"seq\":1}' > /var/log/hostgate/audit-checkpoints.jsonl; chattr +a /var/log/hostgate/audit-checkpoints.jsonl",
      "echo pin > /etc/hostgate/audit-pins/0123456789abcdef.pub",
      `sh ${script} purge`,
      `kept=$(ls -d ${AUDIT_BACKUP_DIR}/audit-*)`,
      "echo \"attrs: $(lsattr -d \"$kept/log/audit-checkpoints.jsonl\" | cut -d' ' -f1)\"",
      // append-only: appending works, rewriting does not
      "echo '{\"seq\":2}' >> \"$kept/log/audit-checkpoints.jsonl\" && echo append: ok || echo append: refused",
      "(: > \"$kept/log/audit-checkpoints.jsonl\") 2>/dev/null && echo truncate: ok || echo truncate: refused",
    ].join("\n");
    const r = spawnSync("unshare", ["--mount", "--propagation", "private", "sh", "-c", setup], { encoding: "utf8", timeout: 60_000 });
    return { status: r.status, stdout: r.stdout, stderr: r.stderr };
  }

  it("the kept checkpoint copy is append-only again (chattr +a), and the script says how to delete the backup", () => {
    const r = purge();
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/purge kept the audit chain .* in \/var\/backups\/hostgate\/audit-\d{8}T\d{6}Z$/m);
    expect(/^attrs: (\S+)$/m.exec(r.stdout)?.[1]).toMatch(/a/);
    expect(r.stdout).toContain("append: ok");
    expect(r.stdout).toContain("truncate: refused");
    expect(r.stdout).toMatch(/delete it when it is no longer needed \(chattr -R -a \/var\/backups\/hostgate\/audit-\S+ first\)/);
  });
});
