/**
 * The answer each built-in sub-agent expects from its model (docs/builtins.md section 4), for the hint `run` gives
 * when a built-in's model call found no scripted answer: what to script, with an example.
 */
export const BUILTIN_ANSWERS: Readonly<Record<string, { format: string; example: string }>> = {
  'pro@coder/code-map': {
    format: 'one <FILE_INFO> tag around a JSON object: summary (required), when_to_use, public_types, public_functions; one call per file (match its file_path="...")',
    example: `<FILE_INFO>{"summary": "Greets a user by name", "when_to_use": "changing the greeting"}</FILE_INFO>`,
  },
  'pro@coder/auto-context': {
    format: '<needed_context_files> holding a JSON array of the candidate paths the instruction needs (and <needed_knowledge_files> when knowledge is on)',
    example: `<needed_context_files>["src/greet.ts"]</needed_context_files>`,
  },
  'pro@coder/auto-fix': {
    format: 'one <FILE_CHANGES> block with one directive per failed file (FILE_PATCH copied from its current content, or FILE_NEW)',
    example: `<FILE_CHANGES>\n<FILE_PATCH file_path="src/greet.ts">\n@@\n-old line\n+new line\n</FILE_PATCH>\n</FILE_CHANGES>`,
  },
};

const PROMPT_MARK = "--- rendered prompt (what 'match' is tested against) ---\n";
const MAX_PROMPT_LINES = 60;

/**
 * The hint for a sub-agent call that failed on `no scripted AI response for <agent>`: the answer a built-in expects
 * (with a scripted example) and the prompt the call would have sent, as readable lines (at most 60; --trace has it
 * all). Undefined for any other failure.
 */
export function noAnswerHint(error: string): string | undefined {
  const m = /no scripted AI response for (\S+)/.exec(error);
  if (!m) return undefined;
  const agent = m[1]!;
  const lines = [`${agent} got no scripted answer.`];
  const known = BUILTIN_ANSWERS[agent];
  if (known) {
    lines.push(`It expects ${known.format}. Script one in the --ai file:`, '', '  [[response]]', `  agent = "${agent}"`, `  content = '''`);
    for (const l of known.example.split('\n')) lines.push(`  ${l}`);
    lines.push(`  '''`);
  }
  const at = error.indexOf(PROMPT_MARK);
  if (at >= 0) {
    const prompt = error.slice(at + PROMPT_MARK.length).replace(/\n+$/, '').split('\n');
    lines.push('', `The prompt it would get (what 'match' is tested against):`);
    for (const l of prompt.slice(0, MAX_PROMPT_LINES)) lines.push(`  ${l}`);
    if (prompt.length > MAX_PROMPT_LINES) lines.push(`  ... (${prompt.length - MAX_PROMPT_LINES} more lines; --trace shows them all)`);
  }
  return lines.join('\n');
}
