/**
 * A float as Rust's `Display` writes it, which is how AIPack's `print` and `aip.lua.dump` show Lua floats: the
 * shortest digits that round-trip, never an exponent, no ".0" (3.0 -> "3", 1e20 -> "100000000000000000000").
 */
export function formatRustFloat(n: number): string {
  if (Number.isNaN(n)) return 'NaN';
  if (!Number.isFinite(n)) return n > 0 ? 'inf' : '-inf';
  if (n === 0) return Object.is(n, -0) ? '-0' : '0';
  const sign = n < 0 ? '-' : '';
  const [mantissa, exponent] = Math.abs(n).toExponential().split('e');
  const digits = mantissa.replace('.', '');
  const point = Number(exponent) + 1; // digits before the decimal point
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return sign + digits + '0'.repeat(point - digits.length);
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}
