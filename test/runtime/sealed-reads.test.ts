import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readConfined } from '../../src/support/host-fs.ts';
import { SealedReads } from '../../src/runtime/sealed-reads.ts';
import { createOverlayVfs } from '../../src/runtime/vfs.ts';
import { tempRoot } from '../helpers/temp-root.ts';

const { at, put } = tempRoot('sealed-reads-');
const text = (b: Uint8Array | undefined) => (b === undefined ? undefined : new TextDecoder().decode(b));

describe('SealedReads', () => {
  it('reads a file from the disk once, and tells each later read the real path and size the first one opened', () => {
    put('pack/lua/m.lua', 'return 1');
    const sealed = new SealedReads(at('pack'));
    const seen: [string, number][] = [];
    const confine = (real: string, size: number) => void seen.push([real, size]);
    let disk = 0;
    const read = (abs: string, c: (real: string, size: number) => void) => (disk++, readConfined(abs, c));
    expect(text(sealed.read(at('pack/lua/m.lua'), confine, read))).toBe('return 1');
    fs.writeFileSync(at('pack/lua/m.lua'), 'return 2, a longer text');
    expect(text(sealed.read(at('pack/lua/m.lua'), confine, read))).toBe('return 1');
    expect(disk).toBe(1);
    expect(seen).toEqual([[at('pack/lua/m.lua'), 8], [at('pack/lua/m.lua'), 8]]);
    expect(sealed.bytes).toBe(8);
  });

  it('hands each read its own copy, and keeps nothing refused, missing or past its bound', () => {
    put('pack/a.lua', 'aaaa');
    put('pack/big.lua', 'x'.repeat(10));
    const sealed = new SealedReads(at('pack'), 8);
    const first = sealed.read(at('pack/a.lua'), () => {}, readConfined)!;
    first[0] = 0x7a;
    expect(text(sealed.read(at('pack/a.lua'), () => {}, readConfined))).toBe('aaaa');
    // refused by its confinement: raised, and asked again next time
    const refuse = () => {
      throw new Error('outside');
    };
    put('pack/r.lua', 'r');
    expect(() => sealed.read(at('pack/r.lua'), refuse, readConfined)).toThrow('outside');
    expect(text(sealed.read(at('pack/r.lua'), () => {}, readConfined))).toBe('r');
    expect(sealed.read(at('pack/missing.lua'), () => {}, readConfined)).toBeUndefined();
    put('pack/missing.lua', 'now here');
    expect(text(sealed.read(at('pack/missing.lua'), () => {}, readConfined))).toBe('now here');
    // past the bound (4 + 1 kept of 8): read from the disk each time
    expect(text(sealed.read(at('pack/big.lua'), () => {}, readConfined))).toBe('x'.repeat(10));
    fs.writeFileSync(at('pack/big.lua'), 'y');
    expect(text(sealed.read(at('pack/big.lua'), () => {}, readConfined))).toBe('y');
    expect(sealed.covers(at('pack', 'deep', 'x'))).toBe(true);
    expect(sealed.covers(at('elsewhere'))).toBe(false);
  });

  it('serves an overlay Vfs\'s confined reads below its root, and only those', () => {
    put('pack/lua/m.lua', 'one');
    put('ws/notes.md', 'one');
    const sealed = new SealedReads(at('pack'));
    const vfs = () => createOverlayVfs(at('ws'), { sealed });
    expect(text(vfs().readBytes(at('pack/lua/m.lua'), () => {}))).toBe('one');
    expect(text(vfs().readBytes(at('ws/notes.md'), () => {}))).toBe('one');
    fs.writeFileSync(at('pack/lua/m.lua'), 'two');
    fs.writeFileSync(at('ws/notes.md'), 'two');
    expect(text(vfs().readBytes(at('pack/lua/m.lua'), () => {}))).toBe('one');
    expect(text(vfs().readBytes(at('ws/notes.md'), () => {}))).toBe('two');
    // a read that is not confined goes to the disk
    expect(text(vfs().readBytes(at('pack/lua/m.lua')))).toBe('two');
  });

  it('tells the read guard the real path of what it answers from kept bytes, and only of that', () => {
    put('pack2/lua/m.lua', 'one');
    put('pack2/lua/n.lua', 'one');
    put('ws2/notes.md', 'one');
    fs.symlinkSync(at('pack2/lua/n.lua'), at('pack2/lua/link.lua'));
    const sealed = new SealedReads(at('pack2'));
    const vfs = createOverlayVfs(at('ws2'), { sealed, files: { [at('pack2/lua/n.lua')]: 'baseline' } });
    expect(vfs.keptRealPath?.(at('pack2/lua/m.lua'))).toBeUndefined();
    vfs.readBytes(at('pack2/lua/m.lua'), () => {});
    vfs.readBytes(at('pack2/lua/link.lua'), () => {});
    vfs.readBytes(at('ws2/notes.md'), () => {});
    expect(vfs.keptRealPath?.(at('pack2/lua/m.lua'))).toBe(fs.realpathSync(at('pack2/lua/m.lua')));
    expect(vfs.keptRealPath?.(at('pack2/lua/link.lua'))).toBe(fs.realpathSync(at('pack2/lua/n.lua')));
    expect(vfs.keptRealPath?.(at('ws2/notes.md'))).toBeUndefined();
    // answered by the baseline, then by the overlay: not from the kept bytes
    expect(vfs.keptRealPath?.(at('pack2/lua/n.lua'))).toBeUndefined();
    vfs.writeFile(at('pack2/lua/m.lua'), 'written');
    expect(vfs.keptRealPath?.(at('pack2/lua/m.lua'))).toBeUndefined();
    expect(createOverlayVfs(at('ws2')).keptRealPath).toBeUndefined();
  });

  it('gives its root\'s real path as it found it the first time', () => {
    put('real-pack/lua/m.lua', 'one');
    put('other-pack/lua/m.lua', 'two');
    fs.symlinkSync(at('real-pack'), at('pack-link'));
    const sealed = new SealedReads(at('pack-link'));
    expect(sealed.realOf(at('pack-link'))).toBe(fs.realpathSync(at('real-pack')));
    fs.rmSync(at('pack-link'));
    fs.symlinkSync(at('other-pack'), at('pack-link'));
    expect(sealed.realOf(at('pack-link'))).toBe(fs.realpathSync(at('real-pack')));
    expect(createOverlayVfs(at('ws4'), { sealed }).keptRealPath?.(at('pack-link'))).toBe(fs.realpathSync(at('real-pack')));
  });

  it('hands each disk read of an overlay Vfs bytes of its own, the baseline\'s included', () => {
    put('pack3/lua/m.lua', 'disk');
    const sealed = new SealedReads(at('pack3'));
    const vfs = createOverlayVfs(at('ws3'), { sealed, files: { [at('ws3/b.txt')]: 'base' } });
    for (const [path, want] of [[at('pack3/lua/m.lua'), 'disk'], [at('ws3/b.txt'), 'base']] as const) {
      const first = vfs.readBytes(path, () => {})!;
      first.fill(0x7a);
      expect(text(vfs.readBytes(path, () => {}))).toBe(want);
    }
    const plain = createOverlayVfs(at('ws3'));
    const bytes = plain.readBytes(at('pack3/lua/m.lua'), () => {})!;
    bytes.fill(0x7a);
    expect(text(plain.readBytes(at('pack3/lua/m.lua'), () => {}))).toBe('disk');
  });
});
