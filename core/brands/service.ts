// Brands: an account owns several; the selected one is the default wherever brand_id is omitted.
import type { Queryable } from '../db/pool.ts';
import { invalid, notFound } from '../kernel/errors.ts';
import { isId } from '../kernel/ids.ts';
import {
  type BrandRow,
  findOwnedBrand,
  findOwnedBrandByUuid,
  insertBrand,
  listBrands,
} from './db.ts';
import type { Brand } from './schema.ts';

// Kept for the callers that import the schema from here.
export { Brand } from './schema.ts';

export const toBrand = (b: BrandRow): Brand => ({
  id: b.id,
  uuid: b.uuid,
  name: b.name,
  timezone: b.timezone,
});

export function assertTimezone(tz: string): void {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
  } catch {
    throw invalid(['timezone'], `unknown time zone "${tz}"; use an IANA name such as Europe/Paris`);
  }
}

export async function createBrand(
  db: Queryable,
  accountId: string,
  input: { name: string; timezone?: string },
): Promise<Brand> {
  const timezone = input.timezone ?? 'UTC';
  assertTimezone(timezone);
  const name = input.name.trim();
  if (!name) throw invalid(['name'], 'a brand needs a name');
  return toBrand(await insertBrand(db, { accountId, name, timezone }));
}

export async function brandsOf(db: Queryable, accountId: string): Promise<Brand[]> {
  return (await listBrands(db, accountId)).map(toBrand);
}

/** The owned brand, or 404 (another account's brand answers exactly like a missing one). */
export async function requireOwnedBrand(db: Queryable, accountId: string, brandId: string) {
  const row = isId(brandId) ? await findOwnedBrand(db, accountId, brandId) : undefined;
  if (!row) throw notFound('Brand');
  return toBrand(row);
}

/** The owned brand with this public uuid, or 404 like requireOwnedBrand. */
export async function requireOwnedBrandByUuid(
  db: Queryable,
  accountId: string,
  uuid: string,
): Promise<Brand> {
  const row = await findOwnedBrandByUuid(db, accountId, uuid);
  if (!row) throw notFound('Brand');
  return toBrand(row);
}

/** The brand an operation is for: the one given, else the one selected in the dashboard. */
export function brandFor(
  caller: { selectedBrandId: string | null },
  brandId: string | undefined,
  field: string,
): string {
  const id = brandId ?? caller.selectedBrandId;
  if (!id) throw invalid([field], 'no brand is selected in the dashboard; pass brand_id');
  return id;
}

/** The caller's brand an operation is for (brandFor, at `brand_id`): owned, or 404. */
export const requireBrandFor = (
  db: Queryable,
  caller: { accountId: string; selectedBrandId: string | null },
  brandId: string | undefined,
) => requireOwnedBrand(db, caller.accountId, brandFor(caller, brandId, 'brand_id'));
