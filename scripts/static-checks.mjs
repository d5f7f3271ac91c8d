#!/usr/bin/env node
/**
 * `npm test`'s static checks, side by side (P334): the type check, the linter and the formatter check are each
 * single-threaded, so on two cores running them at once takes the longest of them instead of their sum. Each
 * one's output is printed whole when it ends; the exit code is non-zero when any of them failed. Plain Node, run
 * by npm with the project's binaries on PATH.
 */
import { spawn } from 'node:child_process';
import process from 'node:process';

const checks = [
  ['tsc', ['--noEmit', '-p', '.', '--incremental', '--tsBuildInfoFile', 'node_modules/.cache/tsc/tsbuildinfo']],
  ['eslint', ['--cache', '--cache-strategy', 'content', '--cache-location', 'node_modules/.cache/eslint/', '.']],
  ['prettier', ['--check', '--cache', '--log-level', 'warn', '.']],
];

function run([command, args]) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', (error) => resolve({ command, code: 1, output: `${output}${error.message}\n` }));
    child.on('close', (code) => resolve({ command, code: code ?? 1, output }));
  });
}

const results = await Promise.all(checks.map(run));
for (const { command, code, output } of results) {
  if (output.trim()) process.stdout.write(`${output.trimEnd()}\n`);
  if (code !== 0) process.stderr.write(`${command} failed (exit code ${code})\n`);
}
process.exit(results.some((r) => r.code !== 0) ? 1 : 0);
