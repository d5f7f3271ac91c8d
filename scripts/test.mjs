#!/usr/bin/env node
/**
 * `npm test` once its prerequisites are there (P365): Jest and the static checks (scripts/static-checks.mjs: tsc,
 * ESLint, Prettier) at the same time. Jest's workers and their DynamoDB Local JVMs leave about a third of two cores
 * idle (they wait on each other's requests, on child processes, on sockets), about what the checks need; so the
 * checks run at a lower CPU priority (`nice` 10), on what Jest leaves, instead of a minute before it. Jest's output
 * is live; the checks' is printed after it, whole. The exit code is non-zero when either failed. Arguments go to
 * Jest (`npm test -- test/unit`). Plain Node, run by npm with the project's binaries on PATH.
 */
import { spawn } from 'node:child_process';
import process from 'node:process';

/** Runs `command`, resolving to its exit code (1 when it could not start or was killed). */
function run(command, args, options) {
  return new Promise((resolve) => {
    const child = spawn(command, args, options);
    child.on('error', (error) => {
      process.stderr.write(`${command}: ${error.message}\n`);
      resolve({ child, code: 1 });
    });
    child.on('close', (code) => resolve({ child, code: code ?? 1 }));
    if (options.onChild) options.onChild(child);
  });
}

let checksOutput = '';
const checks = run(process.execPath, ['scripts/static-checks.mjs'], {
  stdio: ['ignore', 'pipe', 'pipe'],
  env: { ...process.env, STATIC_CHECKS_NICE: '10' },
  onChild: (child) => {
    child.stdout.on('data', (chunk) => (checksOutput += chunk));
    child.stderr.on('data', (chunk) => (checksOutput += chunk));
  },
});
const jest = run('jest', process.argv.slice(2), {
  stdio: 'inherit',
  env: { ...process.env, NODE_OPTIONS: [process.env.NODE_OPTIONS, '--experimental-vm-modules'].filter(Boolean).join(' ') },
});

const [checked, tested] = await Promise.all([checks, jest]);
process.stdout.write(`\nStatic checks (tsc, ESLint, Prettier): ${checked.code === 0 ? 'passed' : 'FAILED'}\n`);
if (checksOutput.trim()) process.stdout.write(`${checksOutput.trimEnd()}\n`);
process.exit(checked.code !== 0 || tested.code !== 0 ? 1 : 0);
