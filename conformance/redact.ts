/** Secrets never appear in output or reports: API keys, staff tokens, webhook secrets. */
const SECRET = /\b(dlk|stf|whsec)_[A-Za-z0-9]{8,}\b/g;

/**
 * A known secret as it can travel besides its own text: in HTTP Basic
 * credentials (`base64(secret + ':')`, as a check that tries other schemes
 * sends the key) or base64 alone. Neither is shaped like a key, so only
 * knowing the secret catches them.
 */
function encodings(secret: string): string[] {
  return [secret, Buffer.from(`${secret}:`).toString('base64'), Buffer.from(secret).toString('base64')];
}

export function redact(text: string, known: string[] = []): string {
  let out = text;
  for (const secret of known) if (secret) for (const form of encodings(secret)) out = out.split(form).join('<redacted>');
  return out.replace(SECRET, '<redacted>');
}
