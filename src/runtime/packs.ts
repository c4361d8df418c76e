import { fileURLToPath } from 'node:url';
import type { PackLocation } from './resolve.ts';

/** This repository's root and its built pack, which the simulator always offers as `pro@coder`. */
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url)).replace(/\/$/, '');
export const REPO_PACK: PackLocation = { namespace: 'pro', name: 'coder', dir: `${REPO_ROOT}/pack` };
