import { describe, expect, it } from "vitest";
import { parseStatLine } from "./host-ssh-preview.ts";

describe("parseStatLine (GNU stat -c STAT_FORMAT, as SshPreviewProbe.stat reads it)", () => {
  it("reads type, permission bits, size, mtime, device, inode, links, owner and blocks", () => {
    // A regular file 0640 (raw mode 0x81a0), 18 bytes, 2 links, uid 1000, 8 blocks of 512 bytes.
    expect(parseStatLine("81a0 18 1767225600 2049 131075 2 1000 8 512\n")).toEqual({
      size: 18, mtime_ms: 1767225600000, is_file: true, is_directory: false, is_symlink: false,
      mode: 0o640, dev: 2049, ino: 131075, nlink: 2, uid: 1000, blocks_bytes: 4096,
    });
    expect(parseStatLine("41c0 4096 1 2049 7 2 0 8 512")).toMatchObject({ is_directory: true, is_file: false, mode: 0o700 });
    expect(parseStatLine("a1ff 15 1 2049 8 1 0 0 512")).toMatchObject({ is_symlink: true, is_file: false, mode: 0o777 });
    // A socket with the sticky bit (0o141755): neither file, directory nor link; the sticky bit kept.
    expect(parseStatLine("c3ed 0 1 2049 9 1 0 0 512")).toMatchObject({ is_file: false, is_directory: false, is_symlink: false, mode: 0o1755 });
  });

  it("answers null for anything else (a BSD stat, an error text, missing or extra fields), so the probe says GNU stat is needed", () => {
    for (const line of ["", "stat: cannot statx 'x': No such file or directory", "81a0 18 1767225600 2049 131075 2 1000 8", "81a0 18 1767225600 2049 131075 2 1000 8 512 9", "zz 18 1 2 3 4 5 6 7", "81a0 -1 1 2 3 4 5 6 7", "81a0 1.5 1 2 3 4 5 6 7"]) {
      expect(parseStatLine(line), line).toBeNull();
    }
  });
});
