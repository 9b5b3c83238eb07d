// Secrets kept out of what a platform said: a platform may echo the token or client secret it
// refused, and its answer ends up in an error, a post's reason and the logs.

/** `text` with every one of `secrets` replaced, so no error carries one a platform echoed. */
export function withoutSecrets(text: string, secrets: readonly (string | undefined)[]): string {
  let out = text;
  // Shorter strings are too likely to be ordinary words of the message.
  for (const s of secrets) if (s && s.length >= 4) out = out.replaceAll(s, '[redacted]');
  return out;
}
