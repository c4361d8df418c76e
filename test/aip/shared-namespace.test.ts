import { describe, expect, it } from 'vitest';
import { isSharedNamespace, sharedNamespace } from '../../src/aip/shared-namespace.ts';
import { json } from '../../src/aip/json.ts';
import { makeStageEnv } from '../helpers/stage-env.ts';

describe('sharedNamespace', () => {
  it('hands every stage the same frozen object, which nothing can change', () => {
    const parse = () => 'parsed';
    const factory = sharedNamespace({ parse });
    const one = factory(makeStageEnv('/nowhere-1'));
    expect(factory(makeStageEnv('/nowhere-2', { stage: 'Data' }))).toBe(one);
    expect(Object.isFrozen(one)).toBe(true);
    expect(() => {
      (one as Record<string, unknown>).parse = null;
    }).toThrow(TypeError);
    expect(one.parse).toBe(parse);
    expect(isSharedNamespace(one)).toBe(true);
    // frozen is not shared: only what sharedNamespace made is
    expect(isSharedNamespace(Object.freeze({ parse }))).toBe(false);
  });

  it('serves the namespaces whose functions do not depend on the stage', () => {
    expect(json(makeStageEnv('/nowhere-1'))).toBe(json(makeStageEnv('/nowhere-2')));
  });
});
