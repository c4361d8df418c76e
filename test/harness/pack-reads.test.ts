import { describe, expect, it } from 'vitest';
import { packReadsOf, withPackReads } from '../../src/harness/pack-reads.ts';

describe('pack reads of a suite', () => {
  it('keeps one set of reads per pack for the suite running, none outside a suite, a new one for each suite', () => {
    expect(packReadsOf('/packs/pro/coder')).toBeUndefined();
    const first = withPackReads(() => {
      const reads = packReadsOf('/packs/pro/coder');
      expect(reads).toBeDefined();
      expect(packReadsOf('/packs/pro/coder/')).toBe(reads);
      expect(packReadsOf('/packs/other')).not.toBe(reads);
      expect(reads?.covers('/packs/pro/coder/lua/x.lua')).toBe(true);
      return reads;
    });
    expect(packReadsOf('/packs/pro/coder')).toBeUndefined();
    withPackReads(() => expect(packReadsOf('/packs/pro/coder')).not.toBe(first));
  });

  it('ends the suite\'s reads when the suite throws', () => {
    expect(() =>
      withPackReads(() => {
        throw new Error('stopped');
      }),
    ).toThrow('stopped');
    expect(packReadsOf('/packs/pro/coder')).toBeUndefined();
  });
});
