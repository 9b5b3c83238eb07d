// oidc-provider's storage interface over Postgres (./db.ts), so every API process sees the
// same clients, codes, tokens and grants, and a restart loses none of them.
import type { Adapter, AdapterPayload } from 'oidc-provider';
import type { Queryable } from '../db/pool.ts';
import {
  consumePayload,
  destroyGrant,
  destroyPayload,
  findPayload,
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
      await consumePayload(db, this.model, id);
    }
    async destroy(id: string): Promise<void> {
      await destroyPayload(db, this.model, id);
    }
    async revokeByGrantId(grantId: string): Promise<void> {
      await destroyGrant(db, grantId);
    }
  };
}
