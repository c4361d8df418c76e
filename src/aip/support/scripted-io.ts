/**
 * Scripted answers for `aip.cmd.exec` and `aip.web.get/post`, given in the same TOML file as the scripted AI
 * answers. Nothing here ever runs a command or opens a connection: an unmatched call is an error.
 *
 *   [[command]]
 *   match = "^npm test"       # JS regex over the command line ("<cmd> <arg> <arg>...")
 *   stdout = "..."            # default ""
 *   stderr = "..."            # default ""
 *   exit = 0                  # default 0
 *   reusable = false          # by default an entry answers once
 *
 *   [[web]]
 *   match = "example\\.com"   # JS regex over the URL
 *   method = "GET"            # optional: GET or POST (default: both)
 *   status = 200              # default 200
 *   content = "..."           # default ""
 *   content_type = "text/html"  # optional
 *   headers = { x = "y" }     # optional
 *   reusable = false
 */

export class ScriptedIoError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ScriptedIoError';
  }
}

type KeyType = 'string' | 'boolean' | 'integer' | 'table';

function typeOf(v: unknown): KeyType | string {
  if (typeof v === 'bigint' || (typeof v === 'number' && Number.isInteger(v))) return 'integer';
  if (typeof v === 'object' && v !== null && !Array.isArray(v)) return 'table';
  return typeof v;
}

function checkTable(raw: unknown, where: string, keys: Record<string, KeyType>, required: string[]): Record<string, unknown> {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw) || raw instanceof Date) {
    throw new ScriptedIoError(`${where}: expected a table with at least ${required.map((k) => `'${k}'`).join(', ')}`);
  }
  const t = raw as Record<string, unknown>;
  for (const [k, v] of Object.entries(t)) {
    const want = keys[k];
    if (!want) throw new ScriptedIoError(`${where}: unknown key '${k}' (allowed: ${Object.keys(keys).join(', ')})`);
    if (typeOf(v) !== want) throw new ScriptedIoError(`${where}: '${k}' must be ${want === 'integer' ? 'an integer' : `a ${want}`}, got ${typeOf(v)}`);
  }
  for (const k of required) if (t[k] === undefined) throw new ScriptedIoError(`${where}: missing '${k}'`);
  return t;
}

function regexOf(src: string, where: string): RegExp {
  try {
    return new RegExp(src);
  } catch (e) {
    throw new ScriptedIoError(`${where}: invalid regex in 'match': ${(e as Error).message}`);
  }
}

export interface ScriptedCommand {
  match: string;
  stdout?: string;
  stderr?: string;
  exit?: number;
  reusable?: boolean;
}

export interface CmdResult {
  stdout: string;
  stderr: string;
  exit: number;
}

interface Hit<T> {
  entry: T;
  regex: RegExp;
  hits: number;
}

const COMMAND_KEYS: Record<string, KeyType> = { match: 'string', stdout: 'string', stderr: 'string', exit: 'integer', reusable: 'boolean' };

/** Scripted command results, tried in file order. */
export class ScriptedCommands {
  private readonly entries: Hit<ScriptedCommand>[];

  constructor(list: readonly unknown[], source: string) {
    this.entries = list.map((raw, i) => {
      const where = `${source}: [[command]] #${i + 1}`;
      const t = checkTable(raw, where, COMMAND_KEYS, ['match']);
      const entry: ScriptedCommand = {
        match: t.match as string,
        stdout: t.stdout as string | undefined,
        stderr: t.stderr as string | undefined,
        exit: t.exit === undefined ? undefined : Number(t.exit),
        reusable: t.reusable as boolean | undefined,
      };
      return { entry, regex: regexOf(entry.match, where), hits: 0 };
    });
  }

  /** The result for a command line, or undefined when no entry matches. */
  answer(cmdLine: string): CmdResult | undefined {
    for (const h of this.entries) {
      if (!h.entry.reusable && h.hits > 0) continue;
      if (!h.regex.test(cmdLine)) continue;
      h.hits++;
      return { stdout: h.entry.stdout ?? '', stderr: h.entry.stderr ?? '', exit: h.entry.exit ?? 0 };
    }
    return undefined;
  }

  remaining(): ScriptedCommand[] {
    return this.entries.filter((h) => h.hits === 0).map((h) => ({ ...h.entry }));
  }
}

export interface ScriptedWebEntry {
  match: string;
  method?: 'GET' | 'POST';
  status?: number;
  content?: string;
  content_type?: string;
  headers?: Record<string, string | string[]>;
  reusable?: boolean;
}

export interface WebAnswer {
  status: number;
  content: string;
  content_type?: string;
  headers?: Record<string, string | string[]>;
}

const WEB_KEYS: Record<string, KeyType> = {
  match: 'string',
  method: 'string',
  status: 'integer',
  content: 'string',
  content_type: 'string',
  headers: 'table',
  reusable: 'boolean',
};

/** Scripted web responses, tried in file order. */
export class ScriptedWeb {
  private readonly entries: Hit<ScriptedWebEntry>[];

  constructor(list: readonly unknown[], source: string) {
    this.entries = list.map((raw, i) => {
      const where = `${source}: [[web]] #${i + 1}`;
      const t = checkTable(raw, where, WEB_KEYS, ['match']);
      const method = t.method === undefined ? undefined : String(t.method).toUpperCase();
      if (method !== undefined && method !== 'GET' && method !== 'POST') throw new ScriptedIoError(`${where}: 'method' must be "GET" or "POST", got "${String(t.method)}"`);
      const entry: ScriptedWebEntry = {
        match: t.match as string,
        method: method as ScriptedWebEntry['method'],
        status: t.status === undefined ? undefined : Number(t.status),
        content: t.content as string | undefined,
        content_type: t.content_type as string | undefined,
        headers: t.headers as ScriptedWebEntry['headers'],
        reusable: t.reusable as boolean | undefined,
      };
      return { entry, regex: regexOf(entry.match, where), hits: 0 };
    });
  }

  answer(method: 'GET' | 'POST', url: string): WebAnswer | undefined {
    for (const h of this.entries) {
      if (!h.entry.reusable && h.hits > 0) continue;
      if (h.entry.method !== undefined && h.entry.method !== method) continue;
      if (!h.regex.test(url)) continue;
      h.hits++;
      const e = h.entry;
      return { status: e.status ?? 200, content: e.content ?? '', content_type: e.content_type, headers: e.headers };
    }
    return undefined;
  }

  remaining(): ScriptedWebEntry[] {
    return this.entries.filter((h) => h.hits === 0).map((h) => ({ ...h.entry }));
  }
}
