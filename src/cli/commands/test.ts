import type { Command } from 'commander';
import type { SetExit } from '../errors.ts';

// Placeholder: replaced by the module that implements `test`.
export function register(_program: Command, _setExit: SetExit): void {}
