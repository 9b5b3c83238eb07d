// Operator CLI commands (CONTRACT.md "Operator CLI"): each takes parsed flags and returns the
// JSON object the CLI prints. Flags are validated with zod so a bad value names the flag.
import { z } from 'zod';
import { EmailInput, NewPassword } from '../accounts/schema.ts';
import * as accounts from '../accounts/service.ts';
import { createApiKey, deleteApiKey, listApiKeys } from '../apikeys/service.ts';
import { createBrand } from '../brands/service.ts';
import { AddCompetitorInput, DEFAULT_FLOOR, DEFAULT_RATIO } from '../competitors/schema.ts';
import { addCompetitor, listCompetitors, removeCompetitor } from '../competitors/service.ts';
import type { Config } from '../config.ts';
import { CONNECTION_CONFIGS } from '../connections/schema.ts';
import { connectAccount } from '../connections/service.ts';
import type { Pool } from '../db/pool.ts';
import { Feature, Plan, Scope } from '../kernel/plans.ts';
import { PLATFORMS, type Platform } from '../kernel/platforms.ts';
import type { OutboundLog } from '../outbound/guard.ts';

type Flags = Record<string, string | boolean | undefined>;
/** What a command may need besides the database. */
export type CommandContext = {
  config: Config;
  /** The operator's log (standard error): what a refusal of the outbound guard keeps back. */
  log?: OutboundLog;
};
type Command = {
  usage: string;
  /**
   * Takes `--password`, read from standard input (or a prompt on a terminal) when the flag is
   * not given, so it need not be typed where npm's banner, shell history and ps show it.
   */
  readsPassword?: boolean;
  /** Checks every flag but --password: before the database opens or a password is asked for. */
  check?: (flags: Flags) => void;
  /** Checks what the database can tell (an e-mail taken already) before a password is asked for. */
  checkBeforePassword?: (pool: Pool, flags: Flags) => Promise<void>;
  run: (pool: Pool, flags: Flags, ctx: CommandContext) => Promise<unknown>;
};

const scopeList = z
  .string()
  .transform((s) =>
    s
      .split(',')
      .map((x) => x.trim())
      .filter(Boolean),
  )
  .pipe(z.array(Scope).min(1, 'give at least one scope'));

function parse<T extends z.ZodType>(schema: T, flags: Flags): z.infer<T> {
  const result = schema.safeParse(flags);
  if (result.success) return result.data;
  const first = result.error.issues[0]!;
  const name = first.path[0];
  if (name === undefined) throw new UsageError(first.message);
  if (first.code === 'invalid_type' && flags[String(name)] === undefined)
    throw new UsageError(`--${String(name)} is required`);
  throw new UsageError(`--${String(name)}: ${first.message}`);
}

/**
 * A new account's password (sign-up's rule), or a UsageError naming where it came from:
 * `--password`, or the password typed or sent on standard input.
 */
export function checkNewPassword(password: string, from: string): string {
  const result = NewPassword.safeParse(password);
  if (!result.success) throw new UsageError(`${from}: ${result.error.issues[0]!.message}`);
  return result.data;
}

const AccountCreateFlags = z.object({
  email: EmailInput,
  plan: Plan.default('free'),
  brand: z.string().trim().min(1).optional(),
});

export class UsageError extends Error {}

/**
 * `--config` checked against the platform's connection fields (the dashboard's, Bluesky's
 * `service` optional): a bad, missing or unknown field is named before any platform is called.
 */
function connectionConfig(platform: Platform, config: unknown): Record<string, unknown> {
  const schema = CONNECTION_CONFIGS[platform];
  if (!schema) return config as Record<string, unknown>;
  const result = schema.safeParse(config);
  if (result.success) return result.data;
  const { issues } = result.error;
  // An unknown key first: a misspelt field also leaves the right one missing.
  const unknown = issues.find((i) => i.code === 'unrecognized_keys');
  if (unknown?.code === 'unrecognized_keys')
    throw new UsageError(
      `--config: unknown key ${unknown.keys.map((k) => `"${k}"`).join(', ')}; ${platform} takes ${Object.keys(schema.shape).join(', ')}`,
    );
  const first = issues[0]!;
  const [field] = first.path;
  if (field === undefined) throw new UsageError(`--config: ${first.message}`);
  if (
    first.code === 'invalid_type' &&
    (config as Record<PropertyKey, unknown>)[field] === undefined
  )
    throw new UsageError(`--config: ${String(field)} is required`);
  throw new UsageError(`--config: ${String(field)}: ${first.message}`);
}

/** The operator acting for an account: its plan's rules, no brand selected. */
const operatorOf = (account: { id: string; plan: Plan }) => ({
  accountId: account.id,
  selectedBrandId: null,
  plan: account.plan,
});

export const COMMANDS: Record<string, Command> = {
  'account create': {
    usage:
      'account create --email E [--password P] [--plan PLAN] [--brand NAME]  (without --password: standard input, or a prompt)',
    readsPassword: true,
    check: (flags) => void parse(AccountCreateFlags, flags),
    checkBeforePassword: (pool, flags) =>
      accounts.assertEmailFree(pool, parse(AccountCreateFlags, flags).email),
    run: async (pool, flags) => {
      const f = parse(AccountCreateFlags.extend({ password: NewPassword }), flags);
      const created = await accounts.createAccount(pool, {
        email: f.email,
        password: f.password,
        plan: f.plan,
        brandName: f.brand,
      });
      return {
        account_id: created.accountId,
        brand_id: created.brand.id,
        brand_uuid: created.brand.uuid,
        plan: created.plan,
      };
    },
  },
  'account plan': {
    usage: 'account plan --email E --plan PLAN',
    run: async (pool, flags) => {
      const f = parse(z.object({ email: EmailInput, plan: Plan }), flags);
      const account = await accounts.requireAccountByEmail(pool, f.email);
      await accounts.setPlan(pool, account.id, f.plan);
      return { account_id: account.id, plan: f.plan };
    },
  },
  'account feature': {
    usage: 'account feature --email E --feature F [--off]',
    run: async (pool, flags) => {
      const f = parse(
        z.object({ email: EmailInput, feature: Feature, off: z.boolean().default(false) }),
        flags,
      );
      const account = await accounts.requireAccountByEmail(pool, f.email);
      const features = await accounts.setFeature(pool, account.id, f.feature, !f.off);
      return { account_id: account.id, features };
    },
  },
  'account credits': {
    usage: 'account credits --email E --add N',
    run: async (pool, flags) => {
      const f = parse(z.object({ email: EmailInput, add: z.coerce.number().int() }), flags);
      const account = await accounts.requireAccountByEmail(pool, f.email);
      if (BigInt(account.credits) + BigInt(f.add) < 0n) {
        throw new UsageError(
          `--add: the account has ${account.credits} credits; cannot go below 0`,
        );
      }
      return {
        account_id: account.id,
        credits: await accounts.addCredits(pool, account.id, f.add),
      };
    },
  },
  'account budget': {
    usage: 'account budget --email E --per-minute N',
    run: async (pool, flags) => {
      const f = parse(
        z.object({ email: EmailInput, 'per-minute': z.coerce.number().int().positive() }),
        flags,
      );
      const account = await accounts.requireAccountByEmail(pool, f.email);
      await accounts.setBudget(pool, account.id, f['per-minute']);
      return { account_id: account.id, budget_per_minute: f['per-minute'] };
    },
  },
  'brand create': {
    usage: 'brand create --email E --name N [--timezone TZ]',
    run: async (pool, flags) => {
      const f = parse(
        z.object({
          email: EmailInput,
          name: z.string().trim().min(1),
          timezone: z.string().optional(),
        }),
        flags,
      );
      const account = await accounts.requireAccountByEmail(pool, f.email);
      const brand = await createBrand(pool, account.id, { name: f.name, timezone: f.timezone });
      return { brand_id: brand.id, brand_uuid: brand.uuid };
    },
  },
  'competitor add': {
    usage: 'competitor add --email E --brand-id B --platform P --handle H [--ratio R] [--floor F]',
    run: async (pool, flags) => {
      const { platform, handle, ratio, floor } = AddCompetitorInput.shape;
      const f = parse(
        z.object({
          email: EmailInput,
          'brand-id': z.string(),
          platform,
          handle,
          ratio: z.coerce.number().pipe(ratio.unwrap()).default(DEFAULT_RATIO),
          floor: z.coerce.number().pipe(floor.unwrap()).default(DEFAULT_FLOOR),
        }),
        flags,
      );
      const account = await accounts.requireAccountByEmail(pool, f.email);
      return addCompetitor(pool, operatorOf(account), {
        brand_id: f['brand-id'],
        platform: f.platform,
        handle: f.handle,
        ratio: f.ratio,
        floor: f.floor,
      });
    },
  },
  'competitor list': {
    usage: 'competitor list --email E --brand-id B',
    run: async (pool, flags) => {
      const f = parse(z.object({ email: EmailInput, 'brand-id': z.string() }), flags);
      const account = await accounts.requireAccountByEmail(pool, f.email);
      const competitors = await listCompetitors(pool, operatorOf(account), {
        brand_id: f['brand-id'],
      });
      return { competitors };
    },
  },
  'competitor remove': {
    usage: 'competitor remove --email E --id ID',
    run: async (pool, flags) => {
      const f = parse(z.object({ email: EmailInput, id: z.string() }), flags);
      const account = await accounts.requireAccountByEmail(pool, f.email);
      await removeCompetitor(pool, operatorOf(account), f.id);
      return { id: f.id, removed: true };
    },
  },
  'key create': {
    usage: 'key create --email E --scopes read,publish [--name N]',
    run: async (pool, flags) => {
      const f = parse(
        z.object({ email: EmailInput, scopes: scopeList, name: z.string().optional() }),
        flags,
      );
      const account = await accounts.requireAccountByEmail(pool, f.email);
      const key = await createApiKey(pool, account.id, { name: f.name ?? '', scopes: f.scopes });
      return { id: key.id, key: key.key, scopes: key.scopes };
    },
  },
  'key list': {
    usage: 'key list --email E',
    run: async (pool, flags) => {
      const f = parse(z.object({ email: EmailInput }), flags);
      const account = await accounts.requireAccountByEmail(pool, f.email);
      // Only what identifies a key: the secret itself exists nowhere but with its holder.
      return { keys: await listApiKeys(pool, account.id) };
    },
  },
  'key revoke': {
    usage: 'key revoke --email E --id ID',
    run: async (pool, flags) => {
      const f = parse(
        z.object({ email: EmailInput, id: z.string().regex(/^\d+$/, 'must be a key id') }),
        flags,
      );
      const account = await accounts.requireAccountByEmail(pool, f.email);
      await deleteApiKey(pool, account.id, f.id);
      return { id: f.id, revoked: true };
    },
  },
  connect: {
    usage: 'connect --email E --brand-id B --platform P --config JSON',
    run: async (pool, flags, { config, log }) => {
      const f = parse(
        z.object({
          email: EmailInput,
          'brand-id': z.string().regex(/^\d+$/, 'must be a brand id'),
          platform: z.enum(PLATFORMS),
          config: z.string().transform((v, ctx) => {
            try {
              return JSON.parse(v) as Record<string, unknown>;
            } catch {
              ctx.addIssue({ code: 'custom', message: 'must be a JSON object' });
              return z.NEVER;
            }
          }),
        }),
        flags,
      );
      const credentials = connectionConfig(f.platform, f.config);
      const account = await accounts.requireAccountByEmail(pool, f.email);
      return connectAccount(
        pool,
        config,
        {
          accountId: account.id,
          brandId: f['brand-id'],
          platform: f.platform,
          config: credentials,
        },
        log,
      );
    },
  },
};

/** Splits argv into the command name (one or two words) and its flags. */
export function resolveCommand(argv: string[]): { name: string; rest: string[] } | undefined {
  const two = argv.slice(0, 2).join(' ');
  if (COMMANDS[two]) return { name: two, rest: argv.slice(2) };
  if (argv[0] && COMMANDS[argv[0]]) return { name: argv[0], rest: argv.slice(1) };
  return undefined;
}
