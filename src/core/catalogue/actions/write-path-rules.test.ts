import { describe, expect, it } from "vitest";
import { HostgateError } from "../../errors.ts";
import { checkWritePath, forbiddenReason } from "./write-path-rules.ts";

function codeOf(path: string): string | null {
  try {
    checkWritePath(path);
    return null;
  } catch (err) {
    return (err as HostgateError).code;
  }
}

describe("checkWritePath", () => {
  it.each([
    "/etc/shadow", "/etc/gshadow", "/etc/sudoers", "/etc/passwd", "/etc/group", "/etc/shadow-",
    "/etc/sudoers.d/90-cloud", "/boot/grub/grub.cfg", "/boot", "/proc/sys/kernel/panic", "/sys/class/x", "/dev/sda",
    "/root/.ssh/id_rsa", "/home/ann/.ssh/id_ed25519", "/etc/ssl/private/site.key", "/opt/app/cert.pem",
    "/etc/ssh/ssh_host_ed25519_key",
  ])("refuses %s as forbidden_path", (path) => {
    expect(codeOf(path)).toBe("forbidden_path");
  });

  it.each([
    ["relative", "etc/motd"],
    ["dot-dot", "/etc/../etc/shadow"],
    ["dot segment", "/etc/./motd"],
    ["double slash", "/etc//motd"],
    ["trailing slash", "/etc/motd/"],
    ["NUL", "/tmp/a\0b"],
    ["over 1 KiB", `/tmp/${"a".repeat(1100)}`],
  ])("refuses a %s path as invalid_params", (_why, path) => {
    expect(codeOf(path)).toBe("invalid_params");
  });

  it.each(["/etc/motd", "/etc/nginx/sites-available/default", "/etc/shadowsocks.json", "/booty/x", "/home/ann/.ssh/authorized_keys", "/home/ann/id_notes.txt", "/device/x"])(
    "allows %s",
    (path) => {
      expect(codeOf(path)).toBeNull();
    },
  );

  it("explains the reason", () => {
    expect(forbiddenReason("/dev/null")).toContain("/dev");
    expect(forbiddenReason("/etc/passwd")).toContain("account");
  });
});
