/** Secrets never appear in output or reports: API keys, staff tokens, webhook secrets. */
const SECRET = /\b(dlk|stf|whsec)_[A-Za-z0-9]{8,}\b/g;

export function redact(text: string, known: string[] = []): string {
  let out = text;
  for (const secret of known) if (secret) out = out.split(secret).join('<redacted>');
  return out.replace(SECRET, '<redacted>');
}
