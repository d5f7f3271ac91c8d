/**
 * Runs the slowest test files first, so that the workers finish together: a clean clone (as in CI) has
 * no Jest timing cache, and Jest would otherwise order by file size, which can leave a long file (list-model)
 * running alone at the end. The seconds per file are `test-durations.json`, measured by a full run
 * (`npx jest --json --outputFile=...`, docs/decisions.md P246, P249); a file it does not list counts by its size.
 */
const { readFileSync, statSync } = require('node:fs');
const { join, relative } = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;

const durations = JSON.parse(readFileSync(join(__dirname, 'test-durations.json'), 'utf8'));

class SlowestFirst extends Sequencer {
  sort(tests) {
    const seconds = (test) => durations[relative(test.context.config.rootDir, test.path)] ?? statSync(test.path).size / 1000;
    return [...tests].sort((a, b) => seconds(b) - seconds(a));
  }
}

module.exports = SlowestFirst;
