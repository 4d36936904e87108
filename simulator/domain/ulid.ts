/** Event ids (§2.5 "ULID-like"): 48 bits of milliseconds and 80 random bits in Crockford base 32. */
import type { Entropy } from './ids.ts';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

export function ulid(ms: number, entropy: Entropy): string {
  let time = '';
  let t = Math.max(0, Math.floor(ms));
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[t % 32]! + time;
    t = Math.floor(t / 32);
  }
  const bytes = Buffer.from(entropy.hex(10), 'hex');
  let random = '';
  let acc = 0;
  let bits = 0;
  for (const byte of bytes) {
    acc = (acc << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      random += CROCKFORD[(acc >>> (bits - 5)) & 31]!;
      bits -= 5;
    }
    acc &= (1 << bits) - 1;
  }
  return time + random;
}
