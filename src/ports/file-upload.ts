import type { ExecEndpoint } from "./executor.ts";

/**
 * Puts one file on a host (implemented over SFTP by adapters/sftp-upload.ts), for the hostgate-confine
 * helper's per-login cache (core/sandbox/helper-cache.ts). Never decides what is trusted: the caller checks the
 * result over exec afterwards.
 */
export interface FileUploader {
  /**
   * Writes `bytes` to the absolute path `path` on the host reached by `target` (through `jumps`): the missing
   * directories of `dirs` (absolute, outermost first, each the parent of the next and the last `path`'s) are
   * made with mode 0700, the bytes go to a new temporary name beside `path` with mode `mode` (octal bits), which
   * then replaces `path` in one rename. Rejects with HostgateError: the executor's dial errors, `unavailable`
   * (no sftp subsystem), `backend_error` (a refused mkdir, write or rename, with the server's message).
   */
  put(route: { target: ExecEndpoint; jumps?: readonly ExecEndpoint[] | undefined }, dirs: readonly string[], path: string, bytes: Uint8Array, mode: number): Promise<void>;
}
