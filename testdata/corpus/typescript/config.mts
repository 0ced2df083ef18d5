// config.mts — load, merge and validate the service configuration.
//
// Sources, lowest precedence first: built-in defaults, config/default.json,
// config/<NODE_ENV>.json, environment variables prefixed APP_, and finally
// command-line flags (--db.host=...).

import { readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import process from "node:process";

export type Primitive = string | number | boolean | null;
export type JsonValue = Primitive | JsonValue[] | { [key: string]: JsonValue };

export type DeepPartial<T> = {
  [K in keyof T]?: T[K] extends object ? DeepPartial<T[K]> : T[K];
};

export type LogLevel = "debug" | "info" | "warn" | "error";

export interface DatabaseConfig {
  host: string;
  port: number;
  name: string;
  user: string;
  password?: string;
  pool: { min: number; max: number; idleMillis: number };
  ssl: boolean;
}

export interface ServerConfig {
  host: string;
  port: number;
  trustProxy: boolean;
  cors: { origins: string[]; credentials: boolean };
}

export interface AppConfig {
  env: "development" | "test" | "production";
  server: ServerConfig;
  database: DatabaseConfig;
  log: { level: LogLevel; pretty: boolean };
  features: Record<string, boolean>;
}

export const defaults: AppConfig = {
  env: "development",
  server: {
    host: "127.0.0.1",
    port: 8080,
    trustProxy: false,
    cors: { origins: [], credentials: false },
  },
  database: {
    host: "localhost",
    port: 5432,
    name: "app",
    user: "app",
    pool: { min: 1, max: 10, idleMillis: 30_000 },
    ssl: false,
  },
  log: { level: "info", pretty: true },
  features: {},
};

export class ConfigError extends Error {
  constructor(public readonly issues: readonly string[]) {
    super(`invalid configuration:\n  - ${issues.join("\n  - ")}`);
    this.name = "ConfigError";
  }
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Deep-merge `patch` into `base` and return a new object. Arrays are
 * replaced, not concatenated.
 */
export function merge<T>(base: T, patch: DeepPartial<T> | undefined): T {
  if (patch === undefined) return base;
  if (!isPlainObject(base) || !isPlainObject(patch)) return patch as T;
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    out[key] = isPlainObject(value) && isPlainObject(out[key]) ? merge(out[key], value) : value;
  }
  return out as T;
}

/** Parse an environment or flag value into the most specific primitive. */
export const coerce = (raw: string): Primitive => {
  if (raw === "true") return true;
  if (raw === "false") return false;
  if (raw === "null") return null;
  if (/^-?\d+(\.\d+)?$/.test(raw)) return Number(raw);
  return raw;
};

function setPath(target: Record<string, unknown>, path: string[], value: unknown): void {
  let node = target;
  for (const key of path.slice(0, -1)) {
    if (!isPlainObject(node[key])) node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  node[path[path.length - 1]] = value;
}

export function fromEnv(env: NodeJS.ProcessEnv, prefix = "APP_"): DeepPartial<AppConfig> {
  const out: Record<string, unknown> = {};
  for (const [name, raw] of Object.entries(env)) {
    if (!name.startsWith(prefix) || raw === undefined) continue;
    // APP_DATABASE__POOL__MAX=20 -> database.pool.max = 20
    const path = name
      .slice(prefix.length)
      .toLowerCase()
      .split("__")
      .map((part) => part.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()));
    setPath(out, path, coerce(raw));
  }
  return out as DeepPartial<AppConfig>;
}

export function fromArgs(argv: readonly string[]): DeepPartial<AppConfig> {
  const out: Record<string, unknown> = {};
  for (const arg of argv) {
    const m = /^--([\w.]+)=(.*)$/.exec(arg);
    if (m) setPath(out, m[1].split("."), coerce(m[2]));
  }
  return out as DeepPartial<AppConfig>;
}

async function readJson(path: string): Promise<DeepPartial<AppConfig> | undefined> {
  try {
    return JSON.parse(await readFile(path, "utf8")) as DeepPartial<AppConfig>;
  } catch (err: unknown) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new ConfigError([`${path}: ${(err as Error).message}`]);
  }
}

export function validate(config: AppConfig): AppConfig {
  const issues: string[] = [];
  const port = (name: string, p: number) => {
    if (!Number.isInteger(p) || p < 1 || p > 65535) issues.push(`${name} must be a port number, got ${p}`);
  };
  port("server.port", config.server.port);
  port("database.port", config.database.port);
  const { min, max } = config.database.pool;
  if (min > max) issues.push(`database.pool.min (${min}) exceeds max (${max})`);
  if (config.env === "production") {
    if (!config.database.password) issues.push("database.password is required in production");
    if (!config.database.ssl) issues.push("database.ssl must be enabled in production");
    if (config.log.pretty) issues.push("log.pretty should be false in production");
  }
  if (!["debug", "info", "warn", "error"].includes(config.log.level)) {
    issues.push(`log.level: unknown level ${JSON.stringify(config.log.level)}`);
  }
  if (issues.length > 0) throw new ConfigError(issues);
  return Object.freeze(config);
}

export interface LoadOptions {
  dir?: string;
  env?: NodeJS.ProcessEnv;
  argv?: readonly string[];
}

export async function loadConfig({
  dir = "config",
  env = process.env,
  argv = process.argv.slice(2),
}: LoadOptions = {}): Promise<AppConfig> {
  const root = resolve(dir);
  const nodeEnv = (env.NODE_ENV ?? "development") as AppConfig["env"];
  let config = merge(defaults, { env: nodeEnv });
  for (const file of ["default.json", `${nodeEnv}.json`]) {
    config = merge(config, await readJson(join(root, file)));
  }
  config = merge(config, fromEnv(env));
  config = merge(config, fromArgs(argv));
  return validate(config);
}

export const isEnabled = (config: AppConfig, feature: string): boolean => config.features[feature] === true;
