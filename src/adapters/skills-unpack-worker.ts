import { parentPort } from "node:worker_threads";
import { ArchiveRefusal } from "../core/skills/tar.ts";
import { readArchive, type UnpackJob, type UnpackReply } from "./skills-unpack.ts";

/** Worker thread of skills-unpack.ts: reads each archive it is sent and answers an {@link UnpackReply}, transferring the file bytes. */
parentPort!.on("message", (job: UnpackJob) => {
  readArchive(job.bytes, job.name).then(
    (files) => {
      const reply: UnpackReply = { id: job.id, ok: true, files };
      parentPort!.postMessage(reply, files.map((f) => f.bytes.buffer as ArrayBuffer));
    },
    (err: unknown) => {
      const reply: UnpackReply = { id: job.id, ok: false, message: err instanceof ArchiveRefusal ? err.message : `not a valid archive (${(err as Error).message})` };
      parentPort!.postMessage(reply);
    },
  );
});
