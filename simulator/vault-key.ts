/**
 * `vault.key` in a data directory: the 32 bytes (64 hex digits) that seal
 * webhook secrets at rest. Made once, before anything is sealed with it, and
 * never again while sealed secrets exist: issue 17 found a lost key silently
 * replaced by a new one, after which the first delivery failed to open a
 * secret and the process exited, start after start. A key that is missing,
 * malformed or does not open the sealed secrets is now a refusal to start.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { aesVault } from './domain/credentials.ts';
import { writeFileDurablySync } from './store/durable-fs.ts';
import type { StoreReader } from './store/store.ts';

export const VAULT_KEY_FILE = 'vault.key';

/** The key cannot serve the directory: the message names the file and what to do. */
export class VaultKeyError extends Error {
  override readonly name = 'VaultKeyError';
}

/** The webhook secrets the store holds sealed (current and still-valid previous ones). */
function sealedSecrets(store: StoreReader): string[] {
  return Array.from(store.values('integrations')).flatMap((i) => [i.webhook_secret, ...(i.previous_webhook_secret ? [i.previous_webhook_secret.secret] : [])]);
}

/**
 * The key of `dir`: read and checked against the sealed secrets, or made
 * (durably, 0600) when the directory holds none yet.
 */
export function loadVaultKey(dir: string, store: StoreReader): Buffer {
  const path = join(dir, VAULT_KEY_FILE);
  const sealed = sealedSecrets(store);
  const advice = 'Restore it from a backup of this data directory, or move the directory away to start afresh; '
    + 'the simulator never replaces the key of secrets it already sealed.';
  if (!existsSync(path)) {
    if (sealed.length > 0) throw new VaultKeyError(`${path} is missing, but the data directory holds ${sealed.length} webhook secret(s) sealed with it. ${advice}`);
    // Whole and on disk before anything sealed with it is: a kill never leaves a torn key.
    writeFileDurablySync(path, randomBytes(32).toString('hex') + '\n');
  }
  const text = readFileSync(path, 'utf8').trim();
  if (!/^[0-9a-f]{64}$/i.test(text)) {
    throw new VaultKeyError(`${path} is damaged: it must hold 64 hexadecimal digits (32 bytes), it holds ${text.length} characters${/^[0-9a-f]*$/i.test(text) ? '' : ' that are not all hex digits'}. ${advice}`);
  }
  const key = Buffer.from(text, 'hex');
  const vault = aesVault(key);
  for (const secret of sealed) {
    try {
      vault.open(secret);
    } catch {
      throw new VaultKeyError(`${path} does not open the webhook secrets sealed in this data directory (it is not the key they were sealed with). ${advice}`);
    }
  }
  return key;
}
