// oidc-provider's storage interface over Postgres (./db.ts), so every API process sees the
// same clients, codes, tokens and grants, and a restart loses none of them.
import { type Adapter, type AdapterPayload, errors } from 'oidc-provider';
import type { Queryable } from '../db/pool.ts';
import {
  consumePayload,
  destroyGrant,
  destroyPayload,
  findPayload,
  grantOfPayload,
  type StoredPayload,
  upsertPayload,
} from './db.ts';

export function postgresAdapter(db: Queryable) {
  return class PostgresAdapter implements Adapter {
    readonly model: string;
    constructor(model: string) {
      this.model = model;
    }
    async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
      await upsertPayload(db, this.model, id, payload as StoredPayload, expiresIn || undefined);
    }
    async find(id: string): Promise<AdapterPayload | undefined> {
      return (await findPayload(db, this.model, { id })) as AdapterPayload | undefined;
    }
    async findByUid(uid: string): Promise<AdapterPayload | undefined> {
      return (await findPayload(db, this.model, { uid })) as AdapterPayload | undefined;
    }
    async findByUserCode(): Promise<AdapterPayload | undefined> {
      // The device flow is not enabled: no user codes exist.
      return undefined;
    }
    async consume(id: string): Promise<void> {
      if (await consumePayload(db, this.model, id)) return;
      // Someone else consumed it first (a replay racing the client, or the client racing a
      // thief): nobody can tell which holds the real one, so the whole grant goes, the first
      // caller's new tokens with it (RFC 6749 4.1.2, RFC 9700 4.14.2), and this caller gets
      // invalid_grant.
      const grantId = await grantOfPayload(db, this.model, id);
      if (grantId) await destroyGrant(db, grantId);
      throw new errors.InvalidGrant(
        `${this.model === 'RefreshToken' ? 'refresh token' : 'authorization code'} already used`,
      );
    }
    async destroy(id: string): Promise<void> {
      await destroyPayload(db, this.model, id);
    }
    async revokeByGrantId(grantId: string): Promise<void> {
      await destroyGrant(db, grantId);
    }
  };
}
