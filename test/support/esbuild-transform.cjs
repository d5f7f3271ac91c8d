/**
 * Jest transformer: strips TypeScript with esbuild (already a dependency, for the Lambda bundles) and keeps
 * ES modules as ES modules. Chosen over swc because the package registry these machines use lacks swc's
 * other-platform binaries, which leaves `npm ci` unable to trust the lockfile.
 */
const { transformSync } = require('esbuild');

module.exports = {
  process(source, filename) {
    const result = transformSync(source, {
      loader: 'ts',
      format: 'esm',
      target: 'es2023',
      sourcemap: 'inline',
      sourcefile: filename,
    });
    return { code: result.code };
  },
  getCacheKey(source, filename) {
    return require('node:crypto').createHash('sha256').update(filename).update('\0').update(source).update('\0esbuild-v1').digest('hex');
  },
};
