// Lint the Lua stage blocks and the `# Options` TOML block of an `.aip` agent file.
// Blocks are read by src/runtime/agent-doc.ts (the runtime's own parser), so the checker sees exactly
// the code the simulator runs; findings are mapped back to .aip lines.

import type { LifecycleStage } from '../aip/support/lifecycle-stage.ts';
import { nextFence, type Fence } from '../support/lines.ts';
import { AgentLoadError, mapScriptLine, parseAgentDoc, type AgentDoc, type LuaScript } from '../runtime/agent-doc.ts';
import type { InputKind } from './contract-types.ts';
import { annotatedStagesOf } from './annotations.ts';
import { lintLua, type Finding, type LintOptions } from './lint.ts';

const STAGES: [keyof AgentDoc & ('beforeAll' | 'data' | 'output' | 'afterAll'), LifecycleStage][] = [
  ['beforeAll', 'BeforeAll'],
  ['data', 'Data'],
  ['output', 'Output'],
  ['afterAll', 'AfterAll'],
];

/** `subAgentStages`: the stages the agent runs in as a sub-agent, when known (annotations in any block add to them). */
export function lintAipFile(file: string, content: string, opts: LintOptions, subAgentStages: InputKind[] = []): Finding[] {
  const findings: Finding[] = [];
  let doc: AgentDoc;
  try {
    doc = parseAgentDoc(content, file);
  } catch (err) {
    if (!(err instanceof AgentLoadError)) throw err;
    findings.push(optionsFinding(file, content, err));
    // still lint the Lua: parse again with the # Options section turned into an ignored heading
    doc = parseAgentDoc(disableOptions(content), file);
  }
  // an annotation in one block types `input` in every block of the agent
  const stages = new Set<InputKind>(subAgentStages);
  for (const [key] of STAGES) {
    const script = doc[key] as LuaScript | undefined;
    if (script) for (const s of annotatedStagesOf(script.code)) stages.add(s);
  }
  // A Before All that returns new inputs (before_all_response) makes the tasks' `input` its own items, not the
  // sub-agent input; and with an After All, the tasks' returns are outputs, not the response.
  const ownInputs = /\bbefore_all_response\b/.test((doc.beforeAll as LuaScript | undefined)?.code ?? '');
  for (const [key, scope] of STAGES) {
    const script = doc[key] as LuaScript | undefined;
    if (!script) continue;
    const typed = ownInputs && (scope === 'Data' || scope === 'Output') ? [] : [...stages];
    // repeated stage headings are concatenated into one chunk, as AIPack runs them
    for (const f of lintLua({ file, code: script.code, scope, subAgentStages: typed }, opts)) {
      findings.push({ ...f, line: mapScriptLine(script, f.line) });
    }
  }
  findings.sort((a, b) => a.line - b.line || a.column - b.column);
  return findings;
}

/** AgentLoadError messages are `<path>:<line>: <detail>` */
function optionsFinding(file: string, content: string, err: AgentLoadError): Finding {
  const prefix = `${file}:`;
  const rest = err.message.startsWith(prefix) ? err.message.slice(prefix.length) : err.message;
  const m = /^(\d+): ([\s\S]*)$/.exec(rest);
  const line = m ? Number(m[1]) : 1;
  const text = (content.split('\n')[line - 1] ?? '').replace(/\r$/, '');
  return {
    file,
    line,
    column: Math.max(1, text.search(/\S/) + 1),
    rule: 'options-toml',
    message: `${m ? m[2] : rest} (AIPack fails to load the agent)`,
  };
}

/** Renames `# Options` headings (outside fences, docs/aipack.md section 1) so the parser ignores the section. */
function disableOptions(content: string): string {
  let fence: Fence = 'out';
  return content
    .split('\n')
    .map((line) => {
      fence = nextFence(fence, line);
      const heading = fence === 'out' && line.startsWith('#') && !line.startsWith('##');
      return heading && line.slice(1).trim().toLowerCase() === 'options' ? '# Options (not checked)' : line;
    })
    .join('\n');
}
