/**
 * The scripted model: answers AI calls from a list of canned responses instead of calling a provider.
 *
 *   [[response]]
 *   agent = "pro@coder"          # optional: agent name as called, or its file name ("main.aip" / "main")
 *   match = "PRE-MARKER[\\s\\S]*done"  # optional: JS regex over the rendered prompt
 *   content = "the answer"
 *   reusable = false             # optional: by default a response answers once
 *   model = "..."                # optional: model_name to report
 *   attachment = "shot.png"      # optional: the request carries an attachment of this name (file_name or file's)
 *
 * Responses are tried in file order; the first one whose filters match answers.
 * The same file may hold `[[command]]` and `[[web]]` entries for aip.cmd.exec / aip.web.* (scripted-io.ts).
 */
import { parse as parseToml, TomlError } from 'smol-toml';
import { ScriptedCommands, ScriptedIoError, ScriptedWeb } from '../aip/support/scripted-io.ts';

export interface ScriptedResponse {
  agent?: string;
  match?: string;
  attachment?: string;
  content: string;
  reusable?: boolean;
  model?: string;
}

export interface AiMessage {
  role: string;
  content: string;
  /** a file sent after the text (an attachment's message) */
  attachment?: { name: string };
}

export interface AiRequest {
  /** the agent name as called (CTX.AGENT_NAME) */
  agentName: string;
  /** the .aip path (absolute or relative; only its file name is compared) */
  agentFile: string;
  messages: AiMessage[];
  /** the resolved model the agent asked for */
  model?: string;
  /** agent options, only echoed in `info` as AIPack does */
  temperature?: number;
  top_p?: number;
}

/** The Lua `ai_response` table (docs/aipack.md section 2 "ai_response table"). */
export interface AiAnswer {
  /** undefined when the answer is empty, as in AIPack */
  content: string | undefined;
  reasoning_content: undefined;
  model_name: string;
  adapter_kind: 'Scripted';
  usage: {
    prompt_tokens: number;
    completion_tokens: number;
    prompt_tokens_details: Record<string, number>;
    completion_tokens_details: Record<string, number>;
  };
  price_usd: number;
  duration_sec: number;
  info: string;
}

export class ScriptedAiError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ScriptedAiError';
  }
}

export class NoScriptedResponseError extends Error {
  constructor(
    readonly agentName: string,
    /** the text `match` regexes are tested against */
    readonly prompt: string,
  ) {
    super(`no scripted AI response for ${agentName}\nhint: ${matchHint(agentName, prompt)}\n--- rendered prompt (what 'match' is tested against) ---\n${prompt}`);
    this.name = 'NoScriptedResponseError';
  }
}

/** A TOML literal string of a regex that matches `text` literally. */
const literalRegex = (text: string) => `'${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}'`;

/**
 * How to answer an unmatched call, in one line: the coder's task prompts name their file (`WORKING_FILE
 * file_path="..."`), which is the `match` that targets one task; any other call is matched by its agent.
 */
function matchHint(agentName: string, prompt: string): string {
  const file = /WORKING_FILE file_path="([^"]+)"/.exec(prompt)?.[0];
  if (file !== undefined) {
    return `to answer this task, script an answer with agent = "${agentName}" and match = ${literalRegex(file)} (a regex over the prompt below)`;
  }
  return `to answer this call, script an answer with agent = "${agentName}" (add match = a regex over the prompt below to answer one call only)`;
}

const KEYS: Record<keyof ScriptedResponse, 'string' | 'boolean'> = {
  agent: 'string',
  match: 'string',
  attachment: 'string',
  content: 'string',
  reusable: 'boolean',
  model: 'string',
};

interface Entry {
  response: ScriptedResponse;
  regex?: RegExp;
  hits: number;
}

function validate(raw: unknown, where: string): Entry {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw) || raw instanceof Date) {
    throw new ScriptedAiError(`${where}: expected a table with at least 'content'`);
  }
  const table = raw as Record<string, unknown>;
  for (const [key, value] of Object.entries(table)) {
    const type = KEYS[key as keyof ScriptedResponse];
    if (!type) {
      throw new ScriptedAiError(`${where}: unknown key '${key}' (allowed: ${Object.keys(KEYS).join(', ')})`);
    }
    if (value !== undefined && typeof value !== type) {
      throw new ScriptedAiError(`${where}: '${key}' must be a ${type}, got ${typeof value === 'bigint' ? 'integer' : typeof value}`);
    }
  }
  if (typeof table.content !== 'string') throw new ScriptedAiError(`${where}: missing 'content' (a string)`);
  const response: ScriptedResponse = { content: table.content };
  for (const key of ['agent', 'match', 'model', 'attachment'] as const) {
    if (typeof table[key] === 'string') response[key] = table[key] as string;
  }
  if (typeof table.reusable === 'boolean') response.reusable = table.reusable;
  let regex: RegExp | undefined;
  if (response.match !== undefined) {
    try {
      regex = new RegExp(response.match);
    } catch (e) {
      throw new ScriptedAiError(`${where}: invalid regex in 'match': ${(e as Error).message}`);
    }
  }
  return { response, regex, hits: 0 };
}

const stripAip = (name: string) => (name.endsWith('.aip') ? name.slice(0, -4) : name);
const baseName = (path: string) => path.split(/[\\/]/).pop() ?? path;

function agentMatches(filter: string, req: AiRequest): boolean {
  const want = stripAip(filter);
  return want === stripAip(req.agentName) || want === stripAip(baseName(req.agentFile));
}

/** Deterministic stand-in for a tokenizer: one token per 4 characters (code points). */
const tokens = (text: string) => Math.ceil(codePoints(text) / 4);

/** Code points of a string, counted in place (spreading a 50 MB prompt into an array took seconds and gigabytes). */
function codePoints(text: string): number {
  let n = text.length;
  for (let i = 0; i < text.length - 1; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

export class ScriptedAi {
  /**
   * `view` turns a rendered prompt into the text `match` runs against and errors show (the contract harness writes
   * its sandbox paths workspace-relative there, so a regex copied from the error matches).
   */
  private constructor(
    private readonly entries: Entry[],
    /** answers for aip.cmd.exec */
    readonly commands: ScriptedCommands = new ScriptedCommands([], '<none>'),
    /** answers for aip.web.get / aip.web.post */
    readonly web: ScriptedWeb = new ScriptedWeb([], '<none>'),
    private readonly view: (prompt: string) => string = (p) => p,
  ) {}

  /** Parses and strictly validates a responses file; errors name `file` and the 1-based response index. */
  static fromToml(text: string, file: string): ScriptedAi {
    let doc: Record<string, unknown>;
    try {
      doc = parseToml(text, { integersAsBigInt: true }) as Record<string, unknown>;
    } catch (e) {
      if (e instanceof TomlError) {
        throw new ScriptedAiError(`${file}:${e.line}: invalid TOML: ${e.message.split('\n')[0]}`);
      }
      throw e;
    }
    for (const key of Object.keys(doc)) {
      if (key !== 'response' && key !== 'command' && key !== 'web') {
        throw new ScriptedAiError(`${file}: unknown top-level key '${key}' (expected [[response]], [[command]] or [[web]] tables)`);
      }
    }
    const tables = (key: string): unknown[] => {
      const list = doc[key] ?? [];
      if (!Array.isArray(list)) throw new ScriptedAiError(`${file}: '${key}' must be an array of tables ([[${key}]])`);
      return list;
    };
    const responses = tables('response').map((raw, i) => validate(raw, `${file}: [[response]] #${i + 1}`));
    try {
      return new ScriptedAi(responses, new ScriptedCommands(tables('command'), file), new ScriptedWeb(tables('web'), file));
    } catch (e) {
      if (e instanceof ScriptedIoError) throw new ScriptedAiError(e.message);
      throw e;
    }
  }

  static fromList(
    responses: ScriptedResponse[],
    source = '<scripted responses>',
    io: { commands?: unknown[]; web?: unknown[] } = {},
    view?: (prompt: string) => string,
  ): ScriptedAi {
    try {
      return new ScriptedAi(
        responses.map((raw, i) => validate(raw, `${source}: response #${i + 1}`)),
        new ScriptedCommands(io.commands ?? [], source),
        new ScriptedWeb(io.web ?? [], source),
        view,
      );
    } catch (e) {
      if (e instanceof ScriptedIoError) throw new ScriptedAiError(e.message);
      throw e;
    }
  }

  /** Answers with the first usable response; throws NoScriptedResponseError when none matches. */
  answer(req: AiRequest): AiAnswer {
    const prompt = req.messages.map((m) => m.content).join('\n\n');
    const shown = this.view(prompt);
    for (const entry of this.entries) {
      const r = entry.response;
      if (!r.reusable && entry.hits > 0) continue;
      if (r.agent !== undefined && !agentMatches(r.agent, req)) continue;
      if (entry.regex && !entry.regex.test(shown)) continue;
      if (r.attachment !== undefined && !req.messages.some((m) => m.attachment?.name === r.attachment)) continue;
      entry.hits++;
      return buildAnswer(r, req, prompt);
    }
    throw new NoScriptedResponseError(req.agentName, shown);
  }

  /** Responses that never answered (a reusable one that answered at least once is not remaining). */
  remaining(): ScriptedResponse[] {
    return this.entries.filter((e) => e.hits === 0).map((e) => ({ ...e.response }));
  }
}

function buildAnswer(r: ScriptedResponse, req: AiRequest, prompt: string): AiAnswer {
  const model = r.model ?? req.model ?? 'scripted';
  const promptTokens = tokens(prompt);
  const completionTokens = tokens(r.content);
  // Shaped like AIPack's info: "<duration> | <usage> | Model: <m> | Adapter: <kind>[ | Temperature: t][ | top_p: p]"
  let info = `Duration: 0ms | Prompt Tokens: ${promptTokens} | Completion Tokens: ${completionTokens} | Model: ${model} | Adapter: Scripted`;
  if (req.temperature !== undefined) info += ` | Temperature: ${req.temperature}`;
  if (req.top_p !== undefined) info += ` | top_p: ${req.top_p}`;
  return {
    content: r.content === '' ? undefined : r.content,
    reasoning_content: undefined,
    model_name: model,
    adapter_kind: 'Scripted',
    usage: {
      prompt_tokens: promptTokens,
      completion_tokens: completionTokens,
      prompt_tokens_details: {},
      completion_tokens_details: {},
    },
    price_usd: 0,
    duration_sec: 0,
    info,
  };
}
