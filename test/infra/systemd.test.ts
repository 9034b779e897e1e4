import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { flagsIn, xoneRunFlags } from './support/runFlags.ts';
import { runTool } from './support/runTool.ts';

const DIR = resolve('infra/systemd');
const UNITS = readdirSync(DIR).filter((f) => f.endsWith('.service'));
const tmp = mkdtempSync(join(tmpdir(), 'xone-systemd-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** `Key=value` pairs of one unit file (repeated keys keep every value). */
function settings(text: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const line of text.split('\n')) {
    const m = /^([A-Za-z]+)=(.*)$/.exec(line.trim());
    if (m) out.set(m[1], [...(out.get(m[1]) ?? []), m[2]]);
  }
  return out;
}

describe('systemd units', () => {
  it('default: there is a producer, a follower and a gateway unit', () => {
    expect(UNITS.sort()).toEqual(['xone-follower.service', 'xone-gateway.service', 'xone-producer.service']);
  });

  it('default: `systemd-analyze verify` prints nothing for any unit', () => {
    // verify checks that ExecStart's binary exists; the units run Node from /usr/bin/node, as Debian installs it.
    expect(existsSync('/usr/bin/node'), 'the units point at /usr/bin/node').toBe(true);
    const r = runTool('systemd-analyze', ['verify', ...UNITS.map((u) => join(DIR, u))]);
    expect(r.output).toBe('');
    expect(r.status).toBe(0);
  });

  it('behavior: the check itself catches an unknown key and a missing binary', () => {
    const text = readFileSync(join(DIR, 'xone-producer.service'), 'utf8')
      .replace('UMask=0077', 'UMsk=0077')
      .replace('/usr/bin/node', '/usr/bin/no-such-node');
    const broken = join(tmp, 'xone-broken.service');
    writeFileSync(broken, text);
    const r = runTool('systemd-analyze', ['verify', broken]);
    expect(r.output).toContain("Unknown key 'UMsk'");
    expect(r.output).toContain('/usr/bin/no-such-node is not executable');
  });

  it('behavior: the core units pass only flags that `xone run` has', () => {
    const known = xoneRunFlags();
    for (const unit of ['xone-producer.service', 'xone-follower.service']) {
      const exec = settings(readFileSync(join(DIR, unit), 'utf8')).get('ExecStart')?.[0] ?? '';
      expect(exec).toContain('/opt/xone/bin/xone.mjs run ');
      expect(
        flagsIn(exec).filter((f) => !known.has(f)),
        unit,
      ).toEqual([]);
    }
  });

  it.each(UNITS)('behavior: %s restarts on failure, is hardened and owns its datadir', (unit) => {
    const s = settings(readFileSync(join(DIR, unit), 'utf8'));
    expect(s.get('Restart')).toEqual(['on-failure']);
    expect(s.get('StartLimitBurst')).toBeDefined();
    for (const [key, value] of Object.entries({
      DynamicUser: 'yes',
      NoNewPrivileges: 'yes',
      ProtectSystem: 'strict',
      ProtectHome: 'yes',
      PrivateTmp: 'yes',
      PrivateDevices: 'yes',
      CapabilityBoundingSet: '',
    })) {
      expect(s.get(key), `${unit} ${key}`).toEqual([value]);
    }
    expect(s.get('SystemCallFilter')).toContain('@system-service');
    if (unit === 'xone-gateway.service') expect(s.get('StateDirectory')).toBeUndefined();
    else {
      const role = unit.replace(/^xone-|\.service$/g, '');
      expect(s.get('StateDirectory')).toEqual([`xone/${role}`]);
      expect(s.get('StateDirectoryMode')).toEqual(['0700']);
      expect(s.get('ExecStart')?.[0]).toContain('--datadir ${STATE_DIRECTORY}');
    }
    const exposure = runTool('systemd-analyze', ['security', '--offline=yes', join(DIR, unit)]);
    const level = /Overall exposure level for \S+: ([\d.]+)/.exec(exposure.output);
    expect(level, exposure.output.slice(-300)).not.toBeNull();
    expect(Number(level?.[1])).toBeLessThanOrEqual(2);
  });
});
