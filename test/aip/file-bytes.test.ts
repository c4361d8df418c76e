import { describe, expect, it } from 'vitest';
import { fileAccess } from '../../src/aip/file-access.ts';
import { fileBytes, lineSpans } from '../../src/aip/file-bytes.ts';
import { useFileWorkspace, type HostFns } from '../helpers/file-workspace.ts';

const w = useFileWorkspace();
const data = () => fileBytes(fileAccess(w.env)) as HostFns;

describe('aip.file hashes', () => {
  it('hashes the file bytes in each encoding', () => {
    w.put('abc.txt', 'abc');
    const f = data();
    expect(f.hash_sha256('abc.txt')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(f.hash_sha256_b64('abc.txt')).toBe('ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=');
    expect(f.hash_sha256_b64u('abc.txt')).toBe('ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0');
    expect(() => f.hash_blake3('none.txt')).toThrow(/aip.file.hash_blake3 - Failed to hash file 'none.txt'.\nCause: file not found/);
  });
});

describe('aip.file spans', () => {
  it('lineSpans excludes the line break (and a CR before it) and keeps a last unterminated line', () => {
    expect(lineSpans(new TextEncoder().encode('ab\r\nc\n\nd'))).toEqual([[0, 2], [4, 5], [6, 6], [7, 8]]);
  });

  it('csv_row_spans keeps a quoted line break inside its row; read_span reads bytes back', () => {
    w.put('q.csv', 'a,"x\ny"\nb,2\n');
    const f = data();
    const spans = f.csv_row_spans('q.csv');
    expect(spans).toEqual([[0, 7], [8, 11]]);
    expect(f.read_span('q.csv', spans[0][0], spans[0][1])).toBe('a,"x\ny"');
  });

  it('read_span refuses bad offsets and spans that cut a UTF-8 character', () => {
    w.put('u.txt', 'é');
    const f = data();
    expect(() => f.read_span('u.txt', 1, 0)).toThrow('read_span expects end >= start');
    expect(() => f.read_span('u.txt', 0, 9)).toThrow(/past the end of 'u.txt' \(2 bytes\)/);
    expect(() => f.read_span('u.txt', 0, 1)).toThrow(/is not valid UTF-8/);
  });
});
