// Unit files the real-systemd peers install, shared by the user-manager and nspawn peers.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** The units every peer provides, by role (the contract suite refers to them through this map). */
export const PEER_UNITS = {
  running: "hg-sleep.service",
  reloadable: "hg-sleep.service",
  withDropIn: "hg-sleep.service",
  installable: "hg-sleep.service",
  oneshot: "hg-oneshot.service",
  timer: "hg-tick.timer",
  escaped: "hg-dash\\x2dname.service",
  secret: "s3cret-value",
  /** In a 0600 drop-in, in a shape no redaction pattern knows: only the mode keeps it from the model. */
  privateValue: "hg-unpatterned-7f3a9c",
} as const;

/** Files written with mode 0600 (the rest 0644). */
const PRIVATE = new Set(["hg-sleep.service.d/private.conf"]);

const FILES: Record<string, string> = {
  "hg-sleep.service": "[Unit]\nDescription=hostgate test sleeper\n\n[Service]\nExecStart=/bin/sleep infinity\nExecReload=/bin/true\n\n[Install]\nWantedBy=default.target multi-user.target\n",
  "hg-sleep.service.d/override.conf": "[Service]\nEnvironment=HG_API_TOKEN=s3cret-value MODE=test\n",
  "hg-sleep.service.d/private.conf": "[Service]\nEnvironment=HG_DSN=hg-unpatterned-7f3a9c\n",
  "hg-oneshot.service": "[Unit]\nDescription=hostgate test oneshot\n\n[Service]\nType=oneshot\nExecStart=/bin/true\nRemainAfterExit=yes\n",
  "hg-tick.timer": "[Unit]\nDescription=hostgate test timer\n\n[Timer]\nOnCalendar=*-*-* 03:00:00\nUnit=hg-oneshot.service\n\n[Install]\nWantedBy=timers.target\n",
  "hg-slow.service": "[Unit]\nDescription=hostgate test unit that takes 4 s to stop\n\n[Service]\nExecStart=/bin/sleep infinity\nExecStop=/bin/sleep 4\n",
  "hg-dash\\x2dname.service": "[Unit]\nDescription=hostgate escaped name\n\n[Service]\nExecStart=/bin/sleep infinity\n",
};

/** Writes the test units into `dir` (a systemd unit search directory). */
export function writePeerUnits(dir: string): void {
  for (const [rel, text] of Object.entries(FILES)) {
    const path = join(dir, rel);
    mkdirSync(join(path, ".."), { recursive: true });
    writeFileSync(path, text, { mode: PRIVATE.has(rel) ? 0o600 : 0o644 });
  }
}

/** Units to start right after boot so the peer has something running. */
export const PEER_STARTED = ["hg-sleep.service", "hg-dash\\x2dname.service", "hg-tick.timer"];
