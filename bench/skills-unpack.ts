/**
 * Skills archive benchmark (issue 21, T3-23). Prints one JSON object, per archive: its compressed size, the
 * wall time of unpackArchive (worker thread, streaming reader), how many event-loop turns the main thread made
 * meanwhile (a blocked loop makes none), and the main process's peak RSS growth. Archives:
 * - padded_2gib: a valid one-file skill, then 2 GiB of zeros after the end-of-archive blocks;
 * - refused_2gib: a character-device entry, then 2 GiB of zeros;
 * - tree_32mib: four 8 MiB files (the tree cap) of compressible text;
 * - dirs_40mib: empty directory entries until the 40 MiB decompressed-byte cap refuses it.
 * The worker is warmed first (its start-up is not part of an archive's time).
 */
import { gzipSync } from "node:zlib";
import { unpackArchive } from "../src/adapters/skills-unpack.ts";
import { makeTar } from "../test/helpers/skill-registry.ts";

const MiB = 1024 * 1024;
const zeros = (n: number): Buffer => {
  const block = gzipSync(Buffer.alloc(16 * MiB), { level: 9 });
  return Buffer.concat(Array.from({ length: Math.ceil(n / (16 * MiB)) }, () => block));
};
const skill = (name: string): Buffer => Buffer.from(makeTar([{ path: `${name}/SKILL.md`, content: `---\nname: ${name}\ndescription: bench\n---\n` }], true));

const archives: Record<string, { name: string; bytes: Buffer }> = {
  padded_2gib: { name: "pad", bytes: Buffer.concat([skill("pad"), zeros(2048 * MiB)]) },
  refused_2gib: { name: "bomb", bytes: Buffer.concat([gzipSync(Buffer.from(makeTar([{ path: "bomb/dev", type: "chardev" }], false)).subarray(0, 512)), zeros(2048 * MiB)]) },
  tree_32mib: { name: "big", bytes: gzipSync(Buffer.from(makeTar([0, 1, 2, 3].map((i) => ({ path: `big/f${i}.md`, content: "log line 0123456789 abcdefghij\n".repeat((8 * MiB) / 31 - 1) })), false))) },
  dirs_40mib: { name: "many", bytes: gzipSync(Buffer.from(makeTar(Array.from({ length: 90_000 }, (_, i) => ({ path: `many/d${i}/`, type: "dir" as const })), false))) },
};

await unpackArchive(skill("warm"), "warm");
const out: Record<string, unknown> = {};
for (const [key, a] of Object.entries(archives)) {
  let turns = 0;
  let spinning = true;
  const spin = (): void => { turns++; if (spinning) setImmediate(spin); };
  setImmediate(spin);
  const compressed = a.bytes.length;
  const rss0 = process.memoryUsage().rss;
  let peak = rss0;
  const sampler = setInterval(() => { peak = Math.max(peak, process.memoryUsage().rss); }, 5);
  const t0 = performance.now();
  const result = await unpackArchive(a.bytes, a.name).then((files) => `ok: ${files.length} files`, (err: unknown) => `refused: ${(err as Error).message.slice(0, 120)}`);
  const ms = performance.now() - t0;
  spinning = false;
  clearInterval(sampler);
  out[key] = { compressed_bytes: compressed, unpack_ms: Math.round(ms * 10) / 10, loop_turns: turns, main_rss_growth_mib: Math.round(((peak - rss0) / MiB) * 10) / 10, result };
}
console.log(JSON.stringify(out));
