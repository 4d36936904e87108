/**
 * `conformance --config FILE`: the file read (JSON or YAML) and validated
 * against `config.schema.json`, the JSON Schema shipped in the package for
 * editors to complete and check the file with. Every key is checked before
 * anything runs: a misspelt one ("allowWrite") is an error naming the
 * nearest known key, never a setting silently left out.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { parse as parseYaml } from 'yaml';
import { didYouMean } from '../cli/nearest-name.ts';

/** What a config file may hold: config.schema.json's properties. */
export interface ConfigFile {
  target?: string; apiKey?: string; webhookSecret?: string; properties?: number[];
  otherApiKey?: string; otherProperties?: number[]; disabledApiKey?: string; nonIntegrationToken?: string; controlUrl?: string; controlToken?: string;
  allowWrites?: boolean; allowSync?: boolean; allowBurst?: boolean; webhookPublicUrl?: string; webhookListenPort?: number;
}

/** A config file that cannot be read or does not follow the schema; the message starts with `--config FILE`. */
export class ConfigFileError extends Error {}

export const CONFIG_SCHEMA_URL = new URL('./config.schema.json', import.meta.url);

let validator: ValidateFunction | undefined;
let keys: string[] = [];

function validate(): ValidateFunction {
  if (validator) return validator;
  const schema = JSON.parse(readFileSync(CONFIG_SCHEMA_URL, 'utf8')) as { properties: Record<string, unknown> };
  keys = Object.keys(schema.properties).filter((k) => k !== '$schema');
  const Ajv = (createRequire(import.meta.url)('ajv') as { default: typeof import('ajv').default }).default;
  validator = new Ajv({ allErrors: true, strict: true }).compile(schema);
  return validator;
}

/** Reads and validates `path`; throws ConfigFileError naming the file and every key that is wrong. */
export function readConfigFile(path: string): ConfigFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new ConfigFileError(`--config ${path}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}`);
  }
  const json = path.endsWith('.json');
  let data: unknown;
  try {
    data = json ? JSON.parse(text) : parseYaml(text);
  } catch (e) {
    throw new ConfigFileError(`--config ${path} is not valid ${json ? 'JSON' : 'YAML'}: ${(e as Error).message.split('\n')[0]}`);
  }
  return validateConfig(data, path);
}

/** `data` checked against the schema; throws ConfigFileError with one clause per problem. */
export function validateConfig(data: unknown, path: string): ConfigFile {
  if (data === null || typeof data !== 'object' || Array.isArray(data)) throw new ConfigFileError(`--config ${path} must hold an object (key: value lines), got ${data === null ? 'nothing' : Array.isArray(data) ? 'a list' : typeof data}`);
  const check = validate();
  if (check(data)) return data as ConfigFile;
  const problems = (check.errors ?? []).map((e) => problem(e, data as Record<string, unknown>));
  throw new ConfigFileError(`--config ${path}: ${[...new Set(problems)].join('; ')}`);
}

function problem(e: ErrorObject, data: Record<string, unknown>): string {
  if (e.keyword === 'additionalProperties') {
    const key = (e.params as { additionalProperty: string }).additionalProperty;
    return `unknown key "${key}"${didYouMean(key, keys)}`;
  }
  const key = e.instancePath.replace(/^\//, '').replace(/\//g, '.');
  const value = e.instancePath.split('/').slice(1).reduce<unknown>((v, k) => (v as Record<string, unknown> | undefined)?.[k], data);
  const got = ` (got ${JSON.stringify(value)})`;
  switch (e.keyword) {
    case 'type': return `${key} must be ${e.params.type === 'integer' ? 'an integer' : `a ${e.params.type}`}${got}`;
    case 'pattern': return `${key} must be an http(s) URL${got}`;
    case 'minLength': return `${key} is empty (an unset variable?)`;
    case 'minimum': case 'maximum': return `${key} ${e.message}${got}`;
    case 'minItems': return `${key} must list at least one property id`;
    default: return `${key || 'the file'} ${e.message}`;
  }
}
