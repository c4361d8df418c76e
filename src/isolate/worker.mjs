// Worker-thread entry of runIsolated (isolate.ts): loads the jobs module it is given (TypeScript through tsx when
// it is .ts), then runs the jobs the parent sends, one at a time, reporting progress and results. Plain JS, so Node can
// start it as it is. A worker is reused for the next job while it is healthy (the load costs ~0.5 s).
import { parentPort, workerData } from 'node:worker_threads';

if (workerData.jobsUrl.endsWith('.ts')) {
  const { register } = await import('tsx/esm/api');
  register();
}
const jobs = await import(workerData.jobsUrl);

parentPort.on('message', async ({ id, job, arg }) => {
  const port = {
    at: (where) => parentPort.postMessage({ id, kind: 'at', where }),
    send: (value) => parentPort.postMessage({ id, kind: 'part', value }),
  };
  try {
    const value = await jobs[job](arg, port);
    parentPort.postMessage({ id, kind: 'done', value });
  } catch (err) {
    parentPort.postMessage({ id, kind: 'failed', error: jobs.serializeError(err) });
  }
});
