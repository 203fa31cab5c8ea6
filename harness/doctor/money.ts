/** Decimal strings with two decimals (the profile's limits and tiers) as cents, and back. */
export function cents(v: string): bigint {
  const [i = '0', f = ''] = v.split('.');
  return BigInt(i) * 100n + BigInt((f + '00').slice(0, 2));
}

export function money(c: bigint): string {
  const neg = c < 0n;
  const a = neg ? -c : c;
  return `${neg ? '-' : ''}${a / 100n}.${String(a % 100n).padStart(2, '0')}`;
}
