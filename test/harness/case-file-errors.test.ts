import { describe, expect, it } from 'vitest';
import { CaseFileError, unknownKeysMessage } from '../../src/harness/case-file-errors.ts';

describe('case file errors', () => {
  it('unknownKeysMessage names each key, the closest known one, and what is allowed', () => {
    expect(unknownKeysMessage(['stagee'], ['name', 'stage'])).toBe("unknown key 'stagee' (did you mean 'stage'?) (allowed: name, stage)");
    expect(unknownKeysMessage(['a', 'zzz'], [])).toBe("unknown keys 'a', 'zzz'");
  });

  it('a CaseFileError carries the file, the case and the key', () => {
    const e = new CaseFileError('x.toml: bad', 'x.toml', 'a case', 'stage');
    expect([e.name, e.file, e.caseName, e.key]).toEqual(['CaseFileError', 'x.toml', 'a case', 'stage']);
  });
});
