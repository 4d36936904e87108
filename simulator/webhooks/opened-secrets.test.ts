/** §5.4: webhook secrets are opened from the vault once per sealed value, never served stale after a rotation. */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { aesVault, type Vault } from '../domain/credentials.ts';
import { openingOnce } from './opened-secrets.ts';

function counting(vault: Vault): Vault & { opens: number } {
  const counted = {
    opens: 0,
    seal: (plain: string) => vault.seal(plain),
    open(sealed: string) {
      counted.opens += 1;
      return vault.open(sealed);
    },
  };
  return counted;
}

describe('secrets opened once', () => {
  it('a sealed secret is decrypted once, however many deliveries it signs', () => {
    const vault = counting(aesVault(randomBytes(32)));
    const secrets = openingOnce(vault);
    const sealed = vault.seal('whsec_one');
    for (let i = 0; i < 5; i++) expect(secrets.open(sealed)).toBe('whsec_one');
    expect(vault.opens).toBe(1);
  });

  it('a rotation seals a new value, which is opened afresh; the previous one is still at hand for its 24 hours', () => {
    const vault = counting(aesVault(randomBytes(32)));
    const secrets = openingOnce(vault);
    const first = vault.seal('whsec_first');
    const second = vault.seal('whsec_second');
    expect(secrets.open(first)).toBe('whsec_first');
    expect(secrets.open(second)).toBe('whsec_second');
    expect(secrets.open(first)).toBe('whsec_first');
    expect(vault.opens).toBe(2);
    // Sealing the same secret again (a fresh IV) is a different value, still opened correctly.
    expect(secrets.open(vault.seal('whsec_first'))).toBe('whsec_first');
  });

  it('sealing passes through to the vault', () => {
    const vault = aesVault(randomBytes(32));
    expect(vault.open(openingOnce(vault).seal('whsec_x'))).toBe('whsec_x');
  });
});
