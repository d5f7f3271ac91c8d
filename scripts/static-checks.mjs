#!/usr/bin/env node
/**
 * `npm test`'s static checks, side by side (P334): the type check with the linter in one process, and the formatter
 * check in another. Each one's output is printed whole when it ends; the exit code is non-zero when any of them
 * failed. Plain Node, run by npm with the project's binaries on PATH.
 *
 * The type check and the linter share one TypeScript program (P376). ESLint's type-aware rules need a program, and
 * `tsc` builds the same one: run apart, they parsed and bound every file twice and ESLint, the longest of the three,
 * ran alone at the end. Here the linter runs its rules on the program the type check then reads its diagnostics
 * from, with the types the rules already asked for. The same options as before: `tsconfig.json`, incremental
 * (`node_modules/.cache/tsc/`), ESLint's cache by content (`node_modules/.cache/eslint/`). `npm run lint` and
 * `npm run typecheck` stay the plain CLIs (ESLint there finds the program itself, `projectService`).
 */
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import process from 'node:process';

const PROGRAM_CHECKS = '--types-and-lint';

/** The type check and the linter on one program: prints what each found, and returns the exit code. */
async function typesAndLint() {
  const [{ default: ts }, { ESLint }, { default: tsParser }] = await Promise.all([
    import('typescript'),
    import('eslint'),
    import('@typescript-eslint/parser'),
  ]);
  const parsed = ts.getParsedCommandLineOfConfigFile(
    'tsconfig.json',
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      },
    },
  );
  const builder = ts.createIncrementalProgram({
    rootNames: parsed.fileNames,
    options: { ...parsed.options, incremental: true, tsBuildInfoFile: 'node_modules/.cache/tsc/tsbuildinfo' },
    projectReferences: parsed.projectReferences,
    configFileParsingDiagnostics: ts.getConfigFileParsingDiagnostics(parsed),
  });
  const program = builder.getProgram();
  // The program goes to the parser, not into the configuration: ESLint's cache hashes the configuration, and a
  // parser object is hashed by its `meta` (typescript-eslint's version in it, so that an upgrade lints anew).
  const parser = {
    meta: { name: 'typescript-eslint-parser-with-the-type-check-program', version: tsParser.version },
    parseForESLint: (code, options) => tsParser.parseForESLint(code, { ...options, projectService: false, programs: [program] }),
  };
  // ESLint's cache keys a file's results by its content and configuration, but a type-aware rule's finding also
  // depends on the types of what the file imports. The files whose types may have changed since the last run are
  // the ones the incremental program checks again: the changed ones it goes through first, and those whose
  // diagnostics it dropped then because the declarations of something they depend on changed. Those get a setting
  // unique to this run, which changes their configuration's hash, so ESLint lints them again (and once more on the
  // next run, back on the plain configuration). A change that keeps a file's declarations re-lints no other file.
  // The dropped ones are read from the builder's state, which TypeScript does not document: without it, every
  // file is linted again.
  const checkedAgain = new Set();
  for (let next; (next = builder.getSemanticDiagnosticsOfNextAffectedFile());) {
    if ('fileName' in next.affected) checkedAgain.add(resolve(next.affected.fileName));
  }
  const kept = builder.state?.semanticDiagnosticsPerFile;
  for (const file of program.getSourceFiles()) {
    if (!(kept instanceof Map) || !kept.has(file.resolvedPath)) checkedAgain.add(resolve(file.fileName));
  }
  const eslint = new ESLint({
    cache: true,
    cacheStrategy: 'content',
    cacheLocation: 'node_modules/.cache/eslint/',
    overrideConfig: [
      { files: ['**/*.ts'], languageOptions: { parser } },
      {
        files: [(file) => checkedAgain.has(resolve(file))],
        settings: { typesCheckedAgainIn: `run ${process.pid} at ${Date.now()}` },
      },
    ],
  });
  const results = await eslint.lintFiles(['.']);
  const lintOutput = await (await eslint.loadFormatter('stylish')).format(results);
  const lintFailed = results.some((r) => r.errorCount > 0 || r.fatalErrorCount > 0);
  const diagnostics = [
    ...builder.getConfigFileParsingDiagnostics(),
    ...builder.getOptionsDiagnostics(),
    ...builder.getGlobalDiagnostics(),
    ...builder.getSyntacticDiagnostics(),
    ...builder.getSemanticDiagnostics(),
  ];
  builder.emit(); // with noEmit, only the incremental state (tsbuildinfo)
  const typeOutput = ts.formatDiagnostics(diagnostics, {
    getCanonicalFileName: (f) => f,
    getCurrentDirectory: ts.sys.getCurrentDirectory,
    getNewLine: () => '\n',
  });
  if (typeOutput) process.stdout.write(typeOutput);
  if (lintOutput) process.stdout.write(lintOutput);
  if (diagnostics.some((d) => d.category === ts.DiagnosticCategory.Error)) process.stderr.write('tsc failed\n');
  if (lintFailed) process.stderr.write('eslint failed\n');
  return diagnostics.length > 0 || lintFailed ? 1 : 0;
}

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

if (process.argv[2] === PROGRAM_CHECKS) {
  process.exit(await typesAndLint());
}

const checks = [
  [process.execPath, [fileURLToPath(import.meta.url), PROGRAM_CHECKS]],
  ['prettier', ['--check', '--cache', '--log-level', 'warn', '.']],
];
const results = await Promise.all(checks.map(run));
for (const { command, code, output } of results) {
  if (output.trim()) process.stdout.write(`${output.trimEnd()}\n`);
  if (code !== 0) process.stderr.write(`${command === process.execPath ? 'tsc and eslint' : command} failed (exit code ${code})\n`);
}
process.exit(results.some((r) => r.code !== 0) ? 1 : 0);
