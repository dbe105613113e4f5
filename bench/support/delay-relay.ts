/**
 * A TCP relay that adds a round-trip delay, for the fan-out benchmark (bench/remote-fanout.ts) where `tc qdisc …
 * netem` cannot run (this kernel has no sch_netem: "Specified qdisc kind is unknown"). Run as its own process so
 * its CPU is not the daemon's: `node [tsx flags] bench/support/delay-relay.ts '<json>'` with `{ "rtt_ms": N,
 * "targets": [{ "host": ip, "port": 22 }, …] }`. For each target it listens on 127.0.0.1 (a port the kernel
 * picks) and, per accepted connection, dials the target; bytes towards the target are held `rtt_ms` (one timer per
 * chunk, in order: Node fires timers of one duration first in, first out), bytes back are passed at once, so every
 * request/answer exchange takes `rtt_ms` longer, as a link with that round trip would (Nagle off on both sides).
 * Prints one line `{"ports":[…]}` once listening; then, for each line "stats" on stdin, one line
 * `{"chunks":N,"mean_late_ms":x,"max_late_ms":y}` (how much later than asked the held chunks left: timer slack);
 * exits when stdin closes.
 */
import { createServer, connect, type Socket } from "node:net";

interface Args { rtt_ms: number; targets: { host: string; port: number }[] }

const args = JSON.parse(process.argv[2] ?? "") as Args;
if (!(args.rtt_ms >= 1) || !Array.isArray(args.targets) || args.targets.length === 0) {
  console.error('usage: delay-relay.ts \'{"rtt_ms": 1, "targets": [{"host": "10.0.0.2", "port": 22}]}\' (rtt_ms ≥ 1: timers have 1 ms steps)');
  process.exit(2);
}
let chunks = 0;
let late = 0;
let maxLate = 0;

/** Pipes `from` into `to`, each chunk after `delay` ms (0: at once); an end or error closes both, after the data before it. */
function pipeDelayed(from: Socket, to: Socket, delay: number): void {
  const later = (f: () => void): void => {
    if (delay === 0) { f(); return; }
    const due = performance.now() + delay;
    setTimeout(() => {
      const l = performance.now() - due;
      chunks++;
      late += l;
      maxLate = Math.max(maxLate, l);
      f();
    }, delay);
  };
  from.on("data", (d: Buffer) => { later(() => { if (!to.destroyed) to.write(d); }); });
  from.on("end", () => { later(() => { to.end(); }); });
  from.on("error", () => { later(() => { to.destroy(); }); });
  from.on("close", () => { later(() => { to.destroy(); }); });
}

const servers = args.targets.map((t) => createServer((client) => {
  client.setNoDelay(true);
  const upstream = connect({ host: t.host, port: t.port });
  upstream.setNoDelay(true);
  pipeDelayed(client, upstream, args.rtt_ms);
  pipeDelayed(upstream, client, 0);
}));
const ports = await Promise.all(servers.map((s) => new Promise<number>((resolve, reject) => {
  s.once("error", reject);
  s.listen(0, "127.0.0.1", () => { resolve((s.address() as { port: number }).port); });
})));
process.stdout.write(`${JSON.stringify({ ports })}\n`);
let buf = "";
process.stdin.on("data", (d: Buffer) => {
  buf += d.toString();
  for (let nl = buf.indexOf("\n"); nl >= 0; nl = buf.indexOf("\n")) {
    const line = buf.slice(0, nl).trim();
    buf = buf.slice(nl + 1);
    if (line === "stats") process.stdout.write(`${JSON.stringify({ chunks, mean_late_ms: chunks ? late / chunks : 0, max_late_ms: maxLate })}\n`);
  }
});
process.stdin.on("end", () => { process.exit(0); });
