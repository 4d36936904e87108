/**
 * Webhook secrets opened once per sealed value. Every delivery is signed
 * with the current secret and, for 24 hours after a rotation, the previous
 * one (§5.4); opening them from the vault is an AES-GCM decryption, and one
 * per send is a fixed cost of every one-at-a-time round trip (§6.2). A
 * sealed value never changes meaning (a rotation seals a new secret under a
 * fresh IV, so it is a new key here), so caching by it cannot sign with a
 * stale secret. The plaintext stays inside the process that holds the vault
 * key, as the vault's own contract asks.
 */
import type { Vault } from '../domain/credentials.ts';
import type { SealedSecret } from '../domain/model.ts';

/** The live secrets of 128 integrations (two each at most); past that the oldest is forgotten, and opened again when needed. */
const KEPT = 256;

/** A vault whose `open` remembers what it opened; sealing is passed through. */
export function openingOnce(vault: Vault): Vault {
  const opened = new Map<SealedSecret, string>();
  return {
    seal: (plain) => vault.seal(plain),
    open(sealed) {
      let plain = opened.get(sealed);
      if (plain === undefined) {
        plain = vault.open(sealed);
        if (opened.size >= KEPT) opened.delete(opened.keys().next().value!);
        opened.set(sealed, plain);
      }
      return plain;
    },
  };
}
