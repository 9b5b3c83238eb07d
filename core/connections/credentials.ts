// Platform credentials at rest: AES-256-GCM with a random nonce per seal. The sealed bytes are
// nonce (12) | tag (16) | ciphertext; tampering or a wrong key fails to open.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Config } from '../config.ts';
import { loadLocalSecrets } from '../secrets.ts';

export type CredentialsKey = Buffer;

/** The 32-byte key from its base64 form (DATA_DIR/secrets.json or CREDENTIALS_KEY). */
export function credentialsKey(base64: string): CredentialsKey {
  const key = Buffer.from(base64, 'base64');
  if (key.length !== 32) throw new Error('the credentials key must be 32 bytes, base64-encoded');
  return key;
}

/** The service's credentials key: CREDENTIALS_KEY, else the one kept in DATA_DIR/secrets.json. */
export function configuredCredentialsKey(
  config: Pick<Config, 'credentialsKey' | 'dataDir'>,
): CredentialsKey {
  return credentialsKey(config.credentialsKey ?? loadLocalSecrets(config.dataDir).credentialsKey);
}

export function sealCredentials(key: CredentialsKey, value: Record<string, unknown>): Buffer {
  const nonce = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, nonce);
  const body = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
  return Buffer.concat([nonce, cipher.getAuthTag(), body]);
}

export function openCredentials(key: CredentialsKey, sealed: Buffer): Record<string, unknown> {
  const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, 12));
  decipher.setAuthTag(sealed.subarray(12, 28));
  const plain = Buffer.concat([decipher.update(sealed.subarray(28)), decipher.final()]);
  return JSON.parse(plain.toString('utf8')) as Record<string, unknown>;
}

/** The credentials' fields that are secrets (tokens, passwords), as opposed to ids. */
const SECRET_FIELD = /token|password|secret/i;

/**
 * The secret values of `credentials`, for withoutSecrets: a platform that echoes the token it
 * refused must not have it shown or stored in clear.
 */
export function secretValues(credentials: Record<string, unknown>): string[] {
  return Object.entries(credentials).flatMap(([field, value]) =>
    SECRET_FIELD.test(field) && typeof value === 'string' ? [value] : [],
  );
}

/**
 * A connected account as a connector's read method takes it: its credentials opened, and
 * `save` to store refreshed ones sealed (`save(sealed)` writes them to the account's row).
 */
export function openedAccess(
  key: CredentialsKey,
  account: { handle: string; credentials: Buffer },
  save: (sealed: Buffer) => Promise<void>,
) {
  return {
    handle: account.handle,
    credentials: openCredentials(key, account.credentials),
    saveCredentials: (next: Record<string, unknown>) => save(sealCredentials(key, next)),
  };
}
