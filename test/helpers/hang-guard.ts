/**
 * The wall-clock limits of tests whose runs end on a budget or a memory cap (counted, not timed): a worker's
 * deadline there only catches a regression that hangs, so it is far from any run's real time, however loaded the
 * machine (two busy loops beside the suite made 10 s deadlines fail), and the test's own limit is beyond it.
 */
export const HANG_GUARD_MS = 5 * 60_000;
/** vitest's limit for such a test: past the worker's deadline, with room for the worker's start */
export const HANG_TEST_MS = HANG_GUARD_MS + 60_000;
