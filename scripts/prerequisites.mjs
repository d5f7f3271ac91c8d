#!/usr/bin/env node
/**
 * What `npm start` and `npm test` need beyond `npm ci`, from Debian's packages: a Java 17+ runtime for DynamoDB
 * Local (both), and Chromium for the browser tests (`npm test` only). Run as root, it installs what is missing
 * with apt-get; otherwise it stops at once and names the exact command to run. Plain Node, no dependencies,
 * so that it also runs before `npm ci` (.ci/run).
 *
 *   node scripts/prerequisites.mjs start|test
 */
import { spawnSync } from 'node:child_process';
import process from 'node:process';
import { existsSync } from 'node:fs';

const purpose = process.argv[2] === 'test' ? 'test' : 'start';

function javaMajor() {
  const out = spawnSync('java', ['-version'], { encoding: 'utf8' });
  if (out.error || out.status !== 0) return undefined;
  const match = /version "(\d+)(?:\.(\d+))?/.exec(`${out.stderr}${out.stdout}`);
  if (!match) return undefined;
  return match[1] === '1' ? Number(match[2]) : Number(match[1]);
}

const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const needs = [
  { what: 'a Java 17+ runtime (for DynamoDB Local)', package: 'default-jre-headless', present: () => (javaMajor() ?? 0) >= 17 },
  ...(purpose === 'test'
    ? [{ what: `Chromium at ${chromiumPath} (for the browser tests)`, package: 'chromium', present: () => existsSync(chromiumPath) }]
    : []),
];

const missing = needs.filter((need) => !need.present());
if (missing.length) {
  const packages = missing.map((need) => need.package).join(' ');
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!isRoot) {
    process.stderr.write(
      `npm ${purpose} needs ${missing.map((need) => need.what).join(' and ')}.\n` +
        `Install with:\n  sudo apt-get update && sudo apt-get install -y ${packages}\n`,
    );
    process.exit(1);
  }
  process.stderr.write(`Installing ${packages} from Debian's packages (${missing.map((need) => need.what).join(', ')})\n`);
  for (const args of [['update'], ['install', '-y', ...packages.split(' ')]]) {
    const run = spawnSync('apt-get', args, { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
    if (run.status !== 0) {
      process.stderr.write(`apt-get ${args.join(' ')} failed (exit ${run.status ?? run.signal})\n`);
      process.exit(1);
    }
  }
  const still = missing.filter((need) => !need.present());
  if (still.length) {
    process.stderr.write(`still missing after apt-get: ${still.map((need) => need.what).join(', ')}\n`);
    process.exit(1);
  }
}
