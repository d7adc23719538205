/**
 * The configuration file of `toolcell serve`, checked with zod so a mistake is reported by
 * path ("servers[1].command: expected string") before anything is spawned.
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { z } from 'zod';
import type { ServerConfig } from '../mcpl/config.ts';
import type { CodeExecutionOptions } from '../code-execution/index.ts';
import type { ServeTelemetryConfig } from '../telemetry/serve-telemetry.ts';

const Narrowing = z.object({
  tools: z.array(z.string()).optional(),
  classes: z.union([z.array(z.string()), z.literal('default')]).optional(),
  conversations: z.array(z.string()).optional(),
}).strict();

const Server = z.object({
  id: z.string().min(1),
  command: z.string().min(1),
  args: z.array(z.string()).optional(),
  env: z.record(z.string(), z.string()).optional(),
  inheritEnv: z.array(z.string()).optional(),
  cwd: z.string().optional(),
  policy: z.object({
    enabledCapabilities: z.array(z.string()).optional(),
    toolLifecycle: z.object({ observe: Narrowing.optional(), inputs: Narrowing.optional() }).strict().optional(),
  }).strict().optional(),
  classOverrides: z.record(z.string(), z.array(z.string())).optional(),
  requestTimeoutMs: z.number().positive().optional(),
  maxQueuedNotifications: z.number().positive().optional(),
  maxObservedCallsPerSecond: z.number().positive().optional(),
}).strict();

const ServeConfigSchema = z.object({
  /** Conversation id for calls whose request names none (`_meta["agent-framework/conversationId"]`). */
  conversationId: z.string().min(1).default('serve'),
  servers: z.array(Server).default([]),
  /** `false` leaves code_execution out. */
  codeExecution: z.union([
    z.literal(false),
    z.object({
      languages: z.array(z.enum(['javascript', 'python'])).optional(),
      defaultTimeLimitMs: z.number().min(1000).optional(),
      maxTimeLimitMs: z.number().min(1000).optional(),
      innerCallTimeoutMs: z.number().positive().optional(),
    }).strict(),
  ]).default({}),
  /** OpenTelemetry: every call as a span, exported over OTLP/HTTP (src/telemetry/). */
  telemetry: z.object({
    otlp: z.object({
      url: z.string().url().refine((u) => /^https?:/.test(u), 'must be an http or https URL'),
      headers: z.record(z.string(), z.string()).optional(),
    }).strict(),
  }).strict().optional(),
}).strict();

export interface ServeConfig {
  conversationId: string;
  servers: ServerConfig[];
  codeExecution: CodeExecutionOptions | false;
  telemetry?: ServeTelemetryConfig;
}

/** Reads and checks a config file; relative `cwd`s are resolved against the file's folder. */
export function loadServeConfig(path: string | undefined): ServeConfig {
  if (path === undefined) return { conversationId: 'serve', servers: [], codeExecution: {} };
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new Error(`cannot read config ${path}: ${(error as Error).message}`);
  }
  const parsed = ServeConfigSchema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
    throw new Error(`invalid config ${path}:\n  ${problems.join('\n  ')}`);
  }
  const base = dirname(resolve(path));
  return {
    conversationId: parsed.data.conversationId,
    servers: parsed.data.servers.map((s) => ({ ...s, ...(s.cwd ? { cwd: resolve(base, s.cwd) } : {}) }) as ServerConfig),
    codeExecution: parsed.data.codeExecution,
    ...(parsed.data.telemetry ? { telemetry: parsed.data.telemetry as ServeTelemetryConfig } : {}),
  };
}
