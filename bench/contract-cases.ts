import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import nodePath from 'node:path';

/** A temp folder with a contract file of `n` copies of a fixture case (a model call, a prompt segment) and its agent. */
export function contractCasesDir(root: string, n: number): string {
  const dir = mkdtempSync(nodePath.join(os.tmpdir(), 'bench-cases-'));
  const src = nodePath.join(root, 'fixtures', 'sub-agents');
  writeFileSync(nodePath.join(dir, 'instruction-clarifier.aip'), readFileSync(nodePath.join(src, 'instruction-clarifier.aip')));
  const text = readFileSync(nodePath.join(src, 'instruction-clarifier.contract.toml'), 'utf8');
  const [head, first] = text.split(/(?=\[\[case\]\])/);
  const cases = Array.from({ length: n }, (_, i) => first!.replace(/^name = "(.*)"$/m, `name = "$1 #${i + 1}"`));
  writeFileSync(nodePath.join(dir, 'bench.contract.toml'), head + cases.join('\n'));
  return dir;
}
