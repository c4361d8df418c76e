// Every CLI command registers itself from its own module.
export { register as runAgent } from './run-agent.ts';
export { register as run } from './run.ts';
export { register as schema } from './schema.ts';
export { register as build } from './build.ts';
export { register as check } from './check.ts';
export { register as pack } from './pack.ts';
export { register as install } from './install.ts';
export { register as test } from './test.ts';
export { register as init } from './init.ts';
export { register as demo } from './demo.ts';
export { register as types } from './types.ts';
