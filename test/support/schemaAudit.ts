// Reads the database's own catalogue to audit the schema (test/db/schema.test.ts): which
// foreign keys no index supports, and which values a column's CHECK allows.
import type { Queryable } from '../../core/db/pool.ts';

export type UnindexedForeignKey = { table: string; columns: string[]; constraint: string };

/**
 * Every foreign key in `public` whose columns are not the leading columns of an index on the
 * referencing table. Deleting or re-keying a referenced row (ON DELETE CASCADE / SET NULL, or
 * the NO ACTION check) then scans the whole referencing table. A partial index counts only
 * when its predicate is "column IS NOT NULL": the planner can use it for `col = $1`.
 */
export async function unindexedForeignKeys(db: Queryable): Promise<UnindexedForeignKey[]> {
  const { rows } = await db.query<UnindexedForeignKey>(`
    select c.conrelid::regclass::text as table, c.conname as constraint,
           array(select a.attname from unnest(c.conkey) with ordinality k(attnum, n)
                 join pg_attribute a on a.attrelid = c.conrelid and a.attnum = k.attnum
                 order by k.n)::text[] as columns
    from pg_constraint c
    where c.contype = 'f' and c.connamespace = 'public'::regnamespace
      and not exists (
        select 1 from pg_index i
        where i.indrelid = c.conrelid
          -- the key's columns, in any order, are the index's first columns
          and (select array_agg(x order by x) from unnest(c.conkey) x)
            = (select array_agg(x order by x)
               from unnest((i.indkey::int2[])[0:cardinality(c.conkey) - 1]) x)
          and (i.indpred is null
               or cardinality(c.conkey) = 1
                  and pg_get_expr(i.indpred, i.indrelid) = (
                    select format('(%s IS NOT NULL)', quote_ident(a.attname)) from pg_attribute a
                    where a.attrelid = c.conrelid and a.attnum = c.conkey[1])))
    order by 1, 3`);
  return rows;
}

/**
 * The string values named by each CHECK on exactly one column of `table.column` (as
 * `col IN (...)` or `col <@ ARRAY[...]`), sorted, one list per constraint.
 */
export async function checkedValues(
  db: Queryable,
  table: string,
  column: string,
): Promise<string[][]> {
  const { rows } = await db.query<{ def: string }>(
    `select pg_get_constraintdef(c.oid) as def
     from pg_constraint c join pg_attribute a on a.attrelid = c.conrelid and a.attnum = c.conkey[1]
     where c.contype = 'c' and c.conrelid = $1::regclass and cardinality(c.conkey) = 1
       and a.attname = $2`,
    [table, column],
  );
  return rows.map((r) => [...r.def.matchAll(/'((?:[^']|'')*)'::text/g)].map((m) => m[1]!).sort());
}
