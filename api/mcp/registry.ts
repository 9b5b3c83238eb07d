// The MCP tool registry: one declaration per tool (schemas, scope, gates, annotations,
// handler), compiled once at start into the listings tools/list serves, then filtered per
// request by the credential.
import type { FastifyBaseLogger } from 'fastify';
import { z } from 'zod';
import type { MediaDeps } from '../../core/assets/service.ts';
import type { Budget } from '../../core/auth/service.ts';
import type { Config } from '../../core/config.ts';
import type { OAuthApps } from '../../core/connectors/schema.ts';
import type { Pool } from '../../core/db/pool.ts';
import type { RenderWaits } from '../../core/designs/service.ts';
import type { Feature, Scope } from '../../core/kernel/plans.ts';
import type { Principal } from '../../core/kernel/principal.ts';
import { toolJsonSchema, toolOutputSchema } from './jsonSchema.ts';

/** What a tool handler gets besides its arguments. */
export type ToolContext = {
  pool: Pool;
  /** The media library's storage and addresses. */
  media: MediaDeps;
  /** The process's render waits, for the Canvas tools. */
  renders: RenderWaits;
  /** How long repurpose waits for its drafts (GENERATE_TIMEOUT_S). */
  generateTimeoutMs: number;
  /** The operator's OAuth apps and the OAuthApps this process connects with (list_accounts). */
  platformApps: Config['platformApps'];
  oauthApps: OAuthApps;
  principal: Principal;
  budget: Budget;
  /** Reports progress when the client asked for it (a progressToken); a no-op otherwise. */
  progress: (done: number, total?: number, message?: string) => Promise<void>;
  signal: AbortSignal;
  /**
   * Adds an image content item after the JSON result (e.g. a design preview) when the whole
   * result still fits its 40 KB answering `answer` (the tool's answer as it will be, or one
   * no shorter); false: nothing attached, and the answer should give the image's link.
   */
  attachImage: (data: Buffer, mimeType: string, answer: Record<string, unknown>) => boolean;
  /** Adds a text content item after the JSON result (e.g. an exported SVG), as attachImage. */
  attachText: (text: string, answer: Record<string, unknown>) => boolean;
  /** Logs a tool's unexpected failure (the client is told only that it failed). */
  logFailure?: (err: unknown, tool: string) => void;
  /** The request's logger, for known failures (a database out of reach, a missed id check). */
  log: Pick<FastifyBaseLogger, 'warn' | 'error'>;
};

export type ToolAnnotations = {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
};

/** The hints of a tool that only reads our own data. */
export const READS: ToolAnnotations = {
  readOnlyHint: true,
  idempotentHint: true,
  openWorldHint: false,
};
/** The hints of a tool that writes our own data without destroying any (spread, then say idempotentHint). */
export const WRITES: ToolAnnotations = {
  readOnlyHint: false,
  destructiveHint: false,
  openWorldHint: false,
};
/** The hints of a tool that deletes something of ours. */
export const DELETES: ToolAnnotations = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: false,
  openWorldHint: false,
};

export type ToolDefinition<I extends z.ZodType = z.ZodType, O extends z.ZodObject = z.ZodObject> = {
  name: string;
  title: string;
  /** For a model that has never seen the service: "Use this tool when you need to: ...". */
  description: string;
  /** Strict: unknown arguments are rejected. */
  input: I;
  output: O;
  /** Scope needed; omitted: any valid credential. */
  scope?: Scope;
  /** Feature gate checked at execution (the tool is still listed). */
  feature?: Feature;
  /** Parked tools are listed and callable only with the `parked_video` gate. */
  parked?: boolean;
  /** `admin_` tools: never listed for, nor callable by, ordinary accounts. */
  adminOnly?: boolean;
  annotations: ToolAnnotations;
  run: (ctx: ToolContext, args: z.output<I>) => Promise<z.input<O>>;
};

/** Keeps a tool's argument and result types tied to its schemas. */
export const defineTool = <I extends z.ZodType, O extends z.ZodObject>(t: ToolDefinition<I, O>) =>
  t as unknown as ToolDefinition;

/**
 * Members every result may carry when it was cut to the size limit (40 KB): `truncated`, and
 * how many list items were `omitted`. Every output lists them, so they go undescribed.
 */
export const TRUNCATION = {
  truncated: z.boolean().optional(),
  omitted: z.number().int().optional(),
};

export type ToolListing = {
  name: string;
  title: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema: Record<string, unknown>;
  annotations: ToolAnnotations & { title: string };
};

export type ToolRegistry = {
  /** The listings this principal may see, in declaration order. */
  list(p: Principal): ToolListing[];
  /** The tool this principal may call by that name, if any. */
  find(name: string, p: Principal): ToolDefinition | undefined;
};

const visible = (t: ToolDefinition, p: Principal, byScope: boolean) =>
  !t.adminOnly &&
  (!t.parked || p.features.includes('parked_video')) &&
  (!byScope || !t.scope || p.scopes.includes(t.scope));

export function compileTools(defs: ToolDefinition[]): ToolRegistry {
  const names = new Set<string>();
  const compiled = defs.map((def) => {
    if (names.has(def.name)) throw new Error(`tool ${def.name} is declared twice`);
    names.add(def.name);
    const listing: ToolListing = {
      name: def.name,
      title: def.title,
      description: def.description,
      inputSchema: toolJsonSchema(def.input, 'input'),
      outputSchema: toolOutputSchema(def.output, TRUNCATION),
      annotations: { title: def.title, ...def.annotations },
    };
    return { def, listing };
  });
  const byName = new Map(compiled.map((c) => [c.def.name, c.def]));
  return {
    list: (p) => compiled.filter((c) => visible(c.def, p, true)).map((c) => c.listing),
    // A tool hidden only by scope is still found, so calling it says which scope it needs.
    find: (name, p) => {
      const def = byName.get(name);
      return def && visible(def, p, false) ? def : undefined;
    },
  };
}
