/**
 * Our edits of Lua 5.4.4's official test suite (lua/lua `testes/`, tag v5.4.4), applied in memory by
 * bench/lua-testes.ts before a file runs. The suite itself is never copied here: an edit names lines of the v5.4.4
 * file by number and holds a digest of them (a drop) or the exact few characters it replaces, and fails loudly when
 * the file differs (another tag, a local change).
 *
 * Each edit removes only what uses something the sandbox or AIPack's Lua does not have, and says which:
 * - `debug`: AIPack's Lua (mlua's `Lua::new`) opens no debug library;
 * - `__gc`: the sandbox refuses finalizers (docs/sandbox.md);
 * - `io`: the sandbox keeps only `io.write` (no files, no stdin/stdout handles);
 * - `os`: the sandbox keeps only the clock functions of `os` (no getenv, tmpname, remove, setlocale...);
 * - `C modules`: AIPack's Lua loads no C modules;
 * - `binary`: the sandbox's `load` takes text chunks only (a binary chunk can corrupt the VM).
 * A dropped line becomes an empty line, so that every other line keeps its number (many tests check the line an
 * error names). A block that fails for any other reason is never dropped: that is an engine or sandbox bug.
 */
import { createHash } from 'node:crypto';

export type EditKind = 'debug' | '__gc' | 'io' | 'os' | 'C modules' | 'binary';

export type Edit =
  /** lines `from`..`to` (1-based, inclusive) dropped; `sha`: the first 12 hex digits of the sha256 of those lines */
  | { drop: [number, number]; sha: string; kind: EditKind; reason: string }
  /** on line `line`, the exact text `from` (once) replaced by `to` */
  | { line: number; from: string; to: string; kind: EditKind; reason: string };

/** sha256 (first 12 hex digits) of lines joined with "\n", as read in latin1 (some files hold Latin-1 bytes) */
export const digest = (lines: string[]): string => createHash('sha256').update(lines.join('\n'), 'latin1').digest('hex').slice(0, 12);

/**
 * The file's bytes with its edits applied (the bytes as they are when it has none). Throws when a dropped range's
 * digest or a replaced text is not what the edit expects.
 */
export function applyEdits(file: string, bytes: Buffer, edits: readonly Edit[]): Buffer {
  if (edits.length === 0) return bytes;
  const lines = bytes.toString('latin1').split('\n');
  for (const edit of edits) {
    if ('drop' in edit) {
      const [from, to] = edit.drop;
      const got = digest(lines.slice(from - 1, to));
      if (got !== edit.sha) throw new Error(`${file}: lines ${from}-${to} are not the v5.4.4 text this edit drops (sha ${got}, expected ${edit.sha}): ${edit.reason}`);
      for (let i = from - 1; i < to; i++) lines[i] = '';
    } else {
      const text = lines[edit.line - 1] ?? '';
      const at = text.indexOf(edit.from);
      if (at < 0 || text.indexOf(edit.from, at + 1) >= 0) throw new Error(`${file}:${edit.line}: expected ${JSON.stringify(edit.from)} once on this line, got ${JSON.stringify(text)}: ${edit.reason}`);
      lines[edit.line - 1] = text.slice(0, at) + edit.to + text.slice(at + edit.from.length);
    }
  }
  return Buffer.from(lines.join('\n'), 'latin1');
}

/** The edits, file by file. A file not listed runs as it is. */
export const EDITS: Record<string, readonly Edit[]> = {
  'attrib.lua': [
    { drop: [67, 67], sha: '2b6d40ab5c1b', kind: 'C modules', reason: "require's message lists the C files stock Lua tries; AIPack's Lua says it loads no C modules instead" },
  ],
  'calls.lua': [
    { drop: [6, 6], sha: '24f4e2d4a2f0', kind: 'debug', reason: 'requires the debug library' },
    { drop: [299, 299], sha: '344ed642cc38', kind: 'debug', reason: 'debug.getinfo' },
    { drop: [316, 317], sha: 'feb9869b0c9e', kind: 'binary', reason: 'loads a binary chunk' },
    { drop: [320, 327], sha: '53efa29cb87b', kind: 'binary', reason: 'loads a binary chunk' },
    { drop: [331, 332], sha: '26c1a92d0773', kind: 'binary', reason: 'loads a binary chunk' },
    { drop: [352, 356], sha: '814cd9064fe2', kind: 'binary', reason: 'loads a binary chunk; debug.getupvalue/setupvalue' },
    { drop: [374, 377], sha: '374eccdf6e58', kind: 'binary', reason: 'loads a binary chunk' },
    { drop: [380, 395], sha: 'fcdb5e6b9607', kind: 'binary', reason: 'loads a binary chunk; debug.setupvalue' },
    { drop: [412, 418], sha: '53d2e2b53f89', kind: 'binary', reason: 'loads a binary chunk; debug.upvaluejoin' },
    { drop: [437, 478], sha: '73d5a371f6e7', kind: 'binary', reason: 'binary chunks: dumps loaded back, headers, truncations' },
  ],
  'closure.lua': [
    { drop: [231, 231], sha: 'a42de2724138', kind: 'debug', reason: 'requires the debug library' },
    { drop: [243, 252], sha: '2364313bb101', kind: 'debug', reason: 'debug.upvalueid' },
    { drop: [255, 268], sha: '91e27d096c47', kind: 'debug', reason: 'debug.upvaluejoin' },
  ],
  'constructs.lua': [
    { drop: [6, 6], sha: '24f4e2d4a2f0', kind: 'debug', reason: 'requires the debug library' },
    { drop: [279, 279], sha: '6ab104628113', kind: 'debug', reason: 'debug.getinfo' },
  ],
  'coroutine.lua': [
    { drop: [6, 6], sha: 'a42de2724138', kind: 'debug', reason: 'requires the debug library' },
    { drop: [226, 226], sha: '824da56282e7', kind: 'debug', reason: 'debug.getinfo in a closing method' },
    { line: 234, from: 'X == 43 and Y.what == "C"', to: 'X == 43', kind: 'debug', reason: 'what the dropped debug.getinfo saw' },
    { drop: [335, 352], sha: '0f68fd0ebbfa', kind: 'debug', reason: 'debug.sethook on a coroutine' },
    { drop: [356, 357], sha: '3b13cbacbae3', kind: 'debug', reason: 'debug.getinfo' },
    { drop: [937, 944], sha: '628c4c5fd440', kind: 'debug', reason: 'debug.setupvalue' },
  ],
  'cstack.lua': [
    { drop: [28, 28], sha: '6a81eedfc8e4', kind: '__gc', reason: 'tracegc.start sets a __gc metamethod' },
    { drop: [158, 158], sha: '6a81eedfc8e4', kind: '__gc', reason: 'tracegc.start sets a __gc metamethod' },
    { drop: [167, 167], sha: '6a81eedfc8e4', kind: '__gc', reason: 'tracegc.start sets a __gc metamethod' },
  ],
  'errors.lua': [
    { drop: [6, 6], sha: '96710ea99df2', kind: 'debug', reason: 'requires the debug library' },
    { drop: [203, 203], sha: '58120aaf0e57', kind: 'io', reason: 'io.stdin' },
    { drop: [211, 218], sha: '75de86dbffd7', kind: 'debug', reason: 'debug.upvalueid/setuservalue' },
    { drop: [221, 221], sha: '2b30620a4c70', kind: 'io', reason: 'io.input' },
    { drop: [224, 224], sha: '0953fb855e84', kind: 'io', reason: 'io.input' },
    { drop: [226, 226], sha: 'dbe7742dd080', kind: 'io', reason: 'io.stdin' },
    { drop: [229, 229], sha: '2e7988f22dd8', kind: 'io', reason: 'io.stdin' },
    { drop: [253, 266], sha: 'dbd685e8ac2d', kind: 'binary', reason: 'loads stripped binary chunks' },
    { drop: [316, 316], sha: '20f6bc23da71', kind: 'io', reason: 'io.stdin' },
    { drop: [549, 549], sha: 'aff9fce542f7', kind: 'debug', reason: 'debug.getinfo' },
  ],
  'events.lua': [
    { drop: [6, 6], sha: 'a42de2724138', kind: 'debug', reason: 'requires the debug library' },
    { drop: [435, 463], sha: 'e12391e49bd2', kind: 'debug', reason: 'debug.setmetatable on basic types' },
  ],
  'files.lua': [
    { drop: [4, 4], sha: '24f4e2d4a2f0', kind: 'debug', reason: 'requires the debug library' },
    { drop: [8, 8], sha: 'd1c2c55ad6ac', kind: 'os', reason: 'os.getenv' },
    { drop: [10, 12], sha: 'fde0eddad119', kind: 'io', reason: 'io.input/io.output and the standard files' },
    { drop: [26, 775], sha: '7c05dec44fb9', kind: 'io', reason: 'the i/o tests: standard files, io.open, os.tmpname files, io.lines, popen, tmpfile' },
    { drop: [926, 926], sha: '595ca3047486', kind: 'io', reason: 'io.output' },
  ],
  'gengc.lua': [
    { drop: [6, 6], sha: '96710ea99df2', kind: 'debug', reason: 'requires the debug library' },
    { drop: [40, 53], sha: 'c8f06e2aaf64', kind: '__gc', reason: 'a block whose test is a __gc metamethod set on an old object' },
    { drop: [56, 80], sha: '894461e51011', kind: '__gc', reason: 'a finalizer run by a young collection' },
  ],
  'goto.lua': [
    { drop: [157, 157], sha: '041f746833f5', kind: 'debug', reason: 'requires the debug library' },
    { drop: [186, 218], sha: '32a5a0f61143', kind: 'debug', reason: 'debug.upvalueid' },
  ],
  'literals.lua': [
    { drop: [6, 6], sha: '24f4e2d4a2f0', kind: 'debug', reason: 'requires the debug library' },
    { drop: [33, 47], sha: '29ac12b01a7a', kind: 'debug', reason: "each string's line read by debug.getinfo" },
    { drop: [235, 254], sha: '62e055458664', kind: 'debug', reason: 'line ends counted by debug.getinfo' },
    { drop: [295, 319], sha: 'c242965e2198', kind: 'os', reason: 'os.setlocale' },
  ],
  'locals.lua': [
    { drop: [6, 6], sha: '96710ea99df2', kind: 'debug', reason: 'requires the debug library' },
    { drop: [73, 77], sha: '858687d2f203', kind: 'debug', reason: "reads a chunk's _ENV with debug.getupvalue" },
    { drop: [80, 80], sha: 'c1138ada46cf', kind: 'debug', reason: 'debug.getupvalue (through getenv)' },
    { drop: [82, 82], sha: 'ba41671995c4', kind: 'debug', reason: 'debug.getupvalue (through getenv)' },
    { drop: [260, 260], sha: '5ed8549ad156', kind: 'debug', reason: 'debug.getinfo in a closing method' },
    { drop: [407, 407], sha: 'de9d2a71cb48', kind: 'debug', reason: 'debug.getinfo in a closing method' },
    { drop: [413, 413], sha: 'de9d2a71cb48', kind: 'debug', reason: 'debug.getinfo in a closing method' },
    { drop: [422, 422], sha: 'de9d2a71cb48', kind: 'debug', reason: 'debug.getinfo in a closing method' },
    { drop: [430, 430], sha: 'de9d2a71cb48', kind: 'debug', reason: 'debug.getinfo in a closing method' },
    { drop: [461, 462], sha: 'f57a75fce05d', kind: 'debug', reason: 'xpcall with debug.traceback' },
    { drop: [464, 471], sha: 'd6efaa12e1d8', kind: 'debug', reason: 'xpcall with debug.traceback' },
    { drop: [740, 764], sha: '77011e66295f', kind: 'debug', reason: 'debug.sethook return hooks' },
    { drop: [165, 165], sha: '9439b643b9c8', kind: 'debug', reason: 'debug.getupvalue (through getenv)' },
    { drop: [586, 586], sha: '8f14cabe34f5', kind: '__gc', reason: 'tracegc.start sets a __gc metamethod' },
  ],
  'nextvar.lua': [
    { drop: [344, 344], sha: 'dbd249fcb5b9', kind: 'io', reason: 'io.stdin (a userdata key)' },
    { line: 347, from: 'for i = 1, 10 do b[i] = true end', to: 'for i = 1, 10 do b[i] = true end; b[9] = nil', kind: 'io', reason: 'the dropped io.stdin key held value 9' },
  ],
  'strings.lua': [
    { drop: [168, 169], sha: 'e2bfbbb46bc8', kind: 'io', reason: 'io.stdin' },
  ],
};
