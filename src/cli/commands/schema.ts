import type { Command } from 'commander';
import { UsageError, type SetExit } from '../errors.ts';
import { SCHEMA_NAMES, contractJsonSchemas, jsonSchemaOf } from '../../contract/json-schema.ts';

/** `coder-subagents schema [name]`: the contract's schemas as JSON Schema (all, keyed by name, or one). */
export function register(program: Command, _setExit: SetExit): void {
  program
    .command('schema')
    .description(`print the sub_agents contract as JSON Schema (names: ${SCHEMA_NAMES.join(', ')})`)
    .argument('[name]', 'one schema by name; all of them when omitted')
    .action((name: string | undefined) => {
      if (name === undefined) {
        process.stdout.write(JSON.stringify(contractJsonSchemas(), null, 2) + '\n');
        return;
      }
      const schema = jsonSchemaOf(name);
      if (!schema) throw new UsageError(`unknown schema "${name}" (known: ${SCHEMA_NAMES.join(', ')})`);
      process.stdout.write(JSON.stringify(schema, null, 2) + '\n');
    });
}
