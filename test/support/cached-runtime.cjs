/**
 * Jest's runtime with V8's code cache for CommonJS modules (P377). Jest evaluates every module again for each test
 * file, in that file's own context, as it must; but it also compiled each one again from its source, and V8 compiles
 * a function's body only when it first runs, so each file paid again to compile the same AWS SDK, Ajv and middy code.
 * This runtime keeps, per worker process, the code V8 compiled for each CommonJS module during the last test file
 * that loaded it (`script.createCachedData()` at the file's teardown, when its functions have run) and gives it to
 * the next file's `vm.Script` of the same source. A code cache changes how long a compile takes, never what the code
 * does: V8 checks it against the source and its own flags and compiles anew when it does not match
 * (`cachedDataRejected`), and each file still evaluates every module in its own context. ES modules (the project's
 * own, transformed by esbuild) keep Jest's handling: a `vm.SourceTextModule` can make its cache only before it runs,
 * when it holds little.
 */
const vm = require('node:vm');
const { default: Runtime } = require('jest-runtime');

/** By module file: the wrapped source and V8's code for it. */
const codeCache = new Map();

class CachedCodeRuntime extends Runtime {
  /** Scripts this test file compiled without a cache, to cache at its teardown. */
  #compiled = [];

  createScriptFromCode(scriptSource, filename) {
    const source = this.wrapCodeInModuleWrapper(scriptSource);
    const scriptFilename = this._resolver.isCoreModule(filename) ? `jest-nodejs-core-${filename}` : filename;
    const cached = codeCache.get(scriptFilename);
    const cachedData = cached?.source === source ? cached.data : undefined;
    try {
      const script = new vm.Script(source, {
        columnOffset: this._fileTransforms.get(filename)?.wrapperLength,
        displayErrors: true,
        filename: scriptFilename,
        cachedData,
        importModuleDynamically: async (specifier) => {
          const context = this._environment.getVmContext?.();
          if (!context) throw new Error('Test environment has been torn down');
          const module = await this.resolveModule(specifier, scriptFilename, context);
          return this.linkAndEvaluateModule(module);
        },
      });
      if (!cachedData || script.cachedDataRejected) this.#compiled.push({ key: scriptFilename, source, script });
      return script;
    } catch {
      return super.createScriptFromCode(scriptSource, filename);
    }
  }

  teardown() {
    for (const { key, source, script } of this.#compiled.splice(0)) codeCache.set(key, { source, data: script.createCachedData() });
    return super.teardown();
  }
}

module.exports = CachedCodeRuntime;
