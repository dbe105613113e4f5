/** Parses vsock://CID:PORT; null when it is not one. */
export function parseVsockUri(uri: string): { cid: number; port: number } | null {
  const m = /^vsock:\/\/(\d{1,10}):(\d{1,10})$/.exec(uri);
  if (!m) return null;
  const cid = Number(m[1]);
  const port = Number(m[2]);
  if (cid > 0xffffffff || port < 1 || port >= 0xffffffff) return null;
  return { cid, port };
}
