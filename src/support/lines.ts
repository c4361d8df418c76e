/** Line handling shared by the .aip parser and the aip.md / aip.text functions, as AIPack's Rust code does it. */

/** Rust `str::lines()`: splits on \n, drops one \r before it, no empty line after a final \n; a bare final \r stays. */
export function rustLines(content: string): string[] {
  if (content === '') return [];
  const pieces = content.split('\n');
  const endsWithNewline = pieces[pieces.length - 1] === '';
  if (endsWithNewline) pieces.pop();
  return pieces.map((p, i) => ((i < pieces.length - 1 || endsWithNewline) && p.endsWith('\r') ? p.slice(0, -1) : p));
}

/** AIPack's InBlockState: outside, inside a ``` fence, inside a ```` fence. */
export type Fence = 'out' | 'in3' | 'in4';

/** Only lines starting with ``` at column 0 change the state; a ``` line does not close a ```` fence. */
export function nextFence(state: Fence, line: string): Fence {
  if (!line.startsWith('```')) return state;
  const four = line.startsWith('````');
  if (state === 'out') return four ? 'in4' : 'in3';
  if (state === 'in3') return four ? 'in3' : 'out';
  return four ? 'out' : 'in4';
}
