# The container ingest (issue 15): the API's handlers and authorizer in one Node process, against AWS.
# `cdk deploy -c largeBodies=true` builds this image; `docker run <image> serve` runs the whole API.

# Build: install the locked dependencies and bundle the entry point with esbuild (the same esbuild the
# Lambda bundles use). test/http/container.test.ts runs this RUN line's esbuild command outside Docker.
FROM node:24-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
# The root package.json names the TypeScript client as a workspace; npm ci needs its manifest (not its code).
COPY clients/typescript/package.json ./clients/typescript/
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json ./
COPY shared ./shared
COPY functions ./functions
COPY local/http-adapter.ts ./local/http-adapter.ts
COPY container ./container
# The API reference page `serve` mode answers GET /docs with: data beside the bundle, as for the ApiDocs function (P167).
COPY docs/generated/api-reference.html ./dist/api-reference.html
RUN node_modules/.bin/esbuild container/server.ts --bundle --platform=node --target=node24 --format=esm --main-fields=module,main --minify --sourcemap --sources-content=false --outfile=dist/server.mjs "--banner:js=import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);"

# Run: the bundle alone on the slim official image, as the image's unprivileged `node` user.
FROM node:24-bookworm-slim
# No X-Ray daemon beside the container: the Tracer (bundled with the connect form's handler) stays off, where
# Fargate's AWS_EXECUTION_ENV would otherwise turn it on. Metrics stay off too (no POWERTOOLS_METRICS_NAMESPACE).
ENV NODE_ENV=production PORT=8080 POWERTOOLS_TRACE_ENABLED=false
WORKDIR /app
COPY --from=build --chown=root:root /src/dist/ ./
USER node
EXPOSE 8080
HEALTHCHECK --interval=15s --timeout=5s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "server.mjs"]
CMD ["ingest"]
