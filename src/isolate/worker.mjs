// Worker-thread entry of runIsolated (isolate.ts): loads the jobs module it is given (TypeScript through tsx when
// it is .ts), then runs the jobs the parent sends, one at a time, reporting progress and results. Plain JS, so Node can
// start it as it is. A worker is reused for the next job while it is healthy (the load costs ~0.5 s).
import { parentPort, workerData } from 'node:worker_threads';

if (workerData.jobsUrl.endsWith('.ts')) {
  const { register } = await import('tsx/esm/api');
  register();
}
const jobs = await import(workerData.jobsUrl);

// Port.note: the parent reads it when a deadline passes (isolate.ts readNote); the sequence number is odd while
// the text is written, so a reader never takes half of one note and half of the next
const noteHead = new Int32Array(workerData.note, 0, 2);
const noteText = new Uint8Array(workerData.note, 8);
const encoder = new TextEncoder();
function note(where) {
  Atomics.add(noteHead, 0, 1);
  // a note longer than the buffer is cut at a character boundary (encodeInto writes whole characters)
  const { written } = encoder.encodeInto(where, noteText);
  Atomics.store(noteHead, 1, written);
  Atomics.add(noteHead, 0, 1);
}

parentPort.on('message', async ({ id, job, arg }) => {
  note('');
  const port = {
    at: (where, part) => {
      note('');
      parentPort.postMessage(part === undefined ? { id, kind: 'at', where } : { id, kind: 'at', where, value: part });
    },
    note,
    send: (value) => parentPort.postMessage({ id, kind: 'part', value }),
  };
  try {
    const value = await jobs[job](arg, port);
    parentPort.postMessage({ id, kind: 'done', value });
  } catch (err) {
    parentPort.postMessage({ id, kind: 'failed', error: jobs.serializeError(err) });
  }
});
