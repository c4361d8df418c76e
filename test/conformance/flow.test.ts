import { conformance, type Case } from './support.ts';

const F = 'aip_flow.rs';
// The directive tables are returned inside a table: After All would act on a bare redo directive.
const cases: Case[] = [
  { up: `${F}::test_script_lua_aip_flow_before_all_response_simple`, lua: 'return { r = aip.flow.before_all_response(123) }', expect: { r: { _aipack_: { kind: 'BeforeAllResponse', data: 123 } } } },
  { up: `${F}::test_script_lua_aip_flow_skip_with_reason`, lua: 'return { r = aip.flow.skip("Not applicable") }', expect: { r: { _aipack_: { kind: 'Skip', data: { reason: 'Not applicable' } } } } },
  { up: `${F}::test_script_lua_aip_flow_skip_without_reason`, lua: 'local r = aip.flow.skip()\nreturn { kind = r._aipack_.kind, reason = r._aipack_.data.reason }', expect: { kind: 'Skip' } },
  { up: `${F}::test_script_lua_aip_flow_redo_run`, lua: 'return { kind = aip.flow.redo_run()._aipack_.kind }', expect: { kind: 'Redo' } },
];

// Output-stage skip (run_agent_task.rs process_agent_response_to_output, commit 104cd8d7 in 0.8.17): the task
// output is the directive table itself; before 0.8.17 it was null (a nil hole for the caller).
const files = { 'skip-out.aip': '# Output\n\n```lua\nreturn aip.flow.skip("done")\n```\n' };
const lua = 'local res = aip.agent.run("skip-out.aip", { agent_base_dir = CTX.WORKSPACE_DIR })\nreturn { out = res.outputs[1] }';
cases.push(
  { up: 'run_agent_task.rs::process_agent_response_to_output (0.8.17+)', lua, files, version: '0.8.17', expect: { out: { _aipack_: { kind: 'Skip', data: { reason: 'done' } } } } },
  { up: 'run_agent_task.rs::process_agent_response_to_output (before 0.8.17)', lua, files, version: '0.8.16', expect: {} },
  { up: 'run_agent_task.rs::process_agent_response_to_output (before 0.8.17)', lua, files, version: '0.8.15', expect: {} },
);

conformance('aip.flow', cases);
