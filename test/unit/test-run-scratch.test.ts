/**
 * The test run's own housekeeping (test/support/global-setup.mjs): the database directories a killed run left in
 * memory-backed storage are removed by the next run, and no other run's.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// @ts-expect-error: plain JavaScript, loaded by Jest outside its transform too
import { ownedDir, removeOrphanedDirs } from '../support/global-setup.mjs';
import { pidAlive } from '../../local/admin/context.js';

let root: string;
beforeEach(() => (root = mkdtempSync(join(tmpdir(), 'his-scratch-root-'))));
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** The id of a process that has ended. */
function endedPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

function dirOwnedBy(name: string, owner?: string): string {
  const dir = join(root, name);
  mkdirSync(dir);
  writeFileSync(join(dir, 'shared-local-instance.db'), 'data');
  if (owner !== undefined) writeFileSync(join(dir, 'owner.pid'), owner);
  return dir;
}

test("a killed run's directory is removed; a running one's, an unowned one and other files stay", () => {
  const killed = dirOwnedBy('his-dynamodb-killed', String(endedPid()));
  const running = dirOwnedBy('his-dynamodb-running', String(process.pid));
  const unowned = dirOwnedBy('his-dynamodb-unowned');
  const garbled = dirOwnedBy('his-dynamodb-garbled', 'not a pid');
  const other = dirOwnedBy('something-else', String(endedPid()));

  removeOrphanedDirs(pidAlive, root);

  expect({
    killed: existsSync(killed),
    running: existsSync(running),
    unowned: existsSync(unowned),
    garbled: existsSync(garbled),
    other: existsSync(other),
  }).toEqual({ killed: false, running: true, unowned: true, garbled: false, other: true });
});

test('a new run owns its directory, so that a run beside it keeps it', () => {
  const dir = ownedDir(root);
  removeOrphanedDirs(pidAlive, root);
  expect(existsSync(dir)).toBe(true);
});
