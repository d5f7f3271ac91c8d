/** Prints one plain closing line ("Summary: N passed, N failed, N skipped") that CI tooling can read. */
class SummaryReporter {
  onRunComplete(_contexts, results) {
    process.stdout.write(
      `\nSummary: ${results.numPassedTests} passed, ${results.numFailedTests} failed, ${results.numPendingTests} skipped\n`,
    );
  }
}
module.exports = SummaryReporter;
