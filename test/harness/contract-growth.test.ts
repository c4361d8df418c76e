import { describe, expect, it } from 'vitest';
import { runContractFile } from '../../src/harness/run-case.ts';
import { tmpDir, write } from './helpers.ts';

/** One agent and one case file in a fresh dir; the results of its cases. */
function cases(aip: string, toml: string) {
  const dir = tmpDir();
  write(dir, 'agents/a.aip', aip);
  return runContractFile(write(dir, 'agents/a.contract.toml', `agent = "a.aip"\n${toml}`)).cases;
}

const lua = (code: string) => `# Output\n\n\`\`\`lua\n${code}\n\`\`\`\n`;

describe('the harness checks what the whole stage produced', () => {
  // the first run changes nothing, its sub_agents_next tail (itself again) rewrites model
  const twice = lua(`
if input.agent_config.second then
  local p = input.coder_params
  p.model = "expensive"
  return { coder_params = p }
end
return { sub_agents_next = { { name = input.agent_config.name, second = true } } }`);

  it('unchanged = true fails when a sub_agents_next tail changed the params', () => {
    const [c] = cases(twice, `[[case]]\nname = "n"\nprompt = "x"\n[case.expect]\nunchanged = true\n`);
    expect(c.status).toBe('failed');
    expect(c.message).toBe('unchanged: expected no change, but the stage changed params (added model)');
  });

  it('params and sub_agents_next are those of the stage and of the response', () => {
    const [c] = cases(
      twice,
      `[[case]]\nname = "n"\nprompt = "x"\n[case.expect]\nparams_contains = { model = "expensive" }\nsub_agents_next = [{ name = "a.aip", second = true }]\nunchanged = false\n`,
    );
    expect(c.message).toBeUndefined();
    expect(c.status).toBe('passed');
  });

  it('the sandbox workspace is an ordinary absolute path: nothing says "test" or "sandbox"', () => {
    const [c] = cases(lua('return { agent_result = CTX.WORKSPACE_DIR }'), `[[case]]\nname = "n"\n[case.expect]\nagent_result = "/home/user/project"\n`);
    expect(c.message).toBeUndefined();
    expect(JSON.stringify(c.result?.input)).not.toMatch(/sandbox|coder_subagents/);
  });
});

describe('what a case can state', () => {
  const asks = `# Data

\`\`\`lua
return { path = CTX.WORKSPACE_DIR .. "/src/db.ts" }
\`\`\`

# Instruction

Review file_path="{{data.path}}"

# Output

\`\`\`lua
return { agent_result = { verdict = ai_response.content, n = 2 } }
\`\`\`
`;

  it('scripted answers match the prompt with sandbox paths workspace-relative, as the error shows it', () => {
    const [miss, hit] = cases(
      asks,
      `[[case]]\nname = "miss"\nai = [{ content = "ok", match = "nowhere" }]\n[[case]]\nname = "hit"\nai = [{ content = "ok", match = 'file_path="src/db\\.ts"' }]\n[case.expect]\nagent_result = { verdict = "ok", n = 2 }\n`,
    );
    expect(miss.status).toBe('failed');
    expect(miss.message).toContain('Review file_path="src/db.ts"');
    expect(hit.message).toBeUndefined();
  });

  it('ai_prompts checks the prompts sent to the model, exact or by regex, in order', () => {
    const [exact, regex, wrong] = cases(
      asks,
      [
        '[[case]]\nname = "exact"\nai = ["ok"]\n[case.expect]\nai_prompts = [\'Review file_path="src/db.ts"\']',
        '[[case]]\nname = "regex"\nai = ["ok"]\n[case.expect]\nai_prompts = [{ match = "db\\\\.ts" }]',
        '[[case]]\nname = "wrong"\nai = ["ok"]\n[case.expect]\nai_prompts = [{ match = "^Summarise" }, "second"]',
      ].join('\n'),
    );
    expect(exact.message).toBeUndefined();
    expect(regex.message).toBeUndefined();
    expect(wrong.message).toBe(
      ['ai_prompts: expected 2 prompts sent to the model, got 1', 'ai_prompts[1]: expected a match for /^Summarise/, got:\n  Review file_path="src/db.ts"'].join('\n'),
    );
  });

  it('agent_result differences are reported key by key', () => {
    const [c] = cases(lua('return { agent_result = { verdict = "ok", n = 3 } }'), `[[case]]\nname = "n"\n[case.expect]\nagent_result = { verdict = "ok", n = 2 }\n`);
    expect(c.message).toBe('agent_result.n: expected 2, got 3');
  });

  it('prev seeds sub_agents_prev with the earlier sub-agents and their agent_result', () => {
    const echo = lua('local p = input.sub_agents_prev\nreturn { agent_result = { count = #p, name = p[1].config.name, got = p[1].agent_result, extra = p[1].config.level } }');
    const [c] = cases(
      echo,
      `[[case]]\nname = "n"\nprev = [{ name = "agents/earlier.aip", agent_result = { score = 7, tags = ["a"] }, config = { level = 2 } }]\n[case.expect]\nagent_result = { count = 1, name = "agents/earlier.aip", got = { score = 7, tags = ["a"] }, extra = 2 }\nunchanged = true\n`,
    );
    expect(c.message).toBeUndefined();
    expect(c.status).toBe('passed');
  });

  it('refuses a prev name that is not a workspace-relative .aip path', () => {
    const dir = tmpDir();
    write(dir, 'agents/a.aip', lua('return nil'));
    const file = write(dir, 'agents/a.contract.toml', 'agent = "a.aip"\n[[case]]\nname = "n"\nprev = [{ name = "../x.aip" }]\n');
    expect(() => runContractFile(file)).toThrow(/case #1 "n": prev\[1\]\.name: expected a workspace-relative \.aip path \(no leading \/, no \.\.\), got '\.\.\/x\.aip'/);
  });
});
