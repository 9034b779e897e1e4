import { readFileSync } from 'node:fs';
import { applyEnv } from '../../config/env.ts';
import { buildConfig, ConfigError } from '../../config/validate.ts';
import type { GatewayConfig } from '../../config/types.ts';

/**
 * Loads the config: the JSON file (path from --config or XONE_GATEWAY_CONFIG, optional), env overrides on top,
 * validated once; throws ConfigError listing every bad key.
 */
export function loadConfig(path: string | undefined, env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  const file = path ?? env.XONE_GATEWAY_CONFIG;
  let raw: Record<string, unknown> = {};
  if (file) {
    try {
      raw = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    } catch (err) {
      throw new ConfigError([`${file}: ${err instanceof Error ? err.message : String(err)}`]);
    }
  }
  return buildConfig(applyEnv(raw, env));
}
