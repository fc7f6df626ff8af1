# Image for the API, the worker, the relay and the one-shot migration (docker-compose.yml picks the
# command). Built in two stages: the first installs every dependency and runs `npm run build` (the
# code compiled to JavaScript beside its sources, the workflow bundle and the admin web app made
# ahead of time), then drops the development dependencies; the second takes that alone. No secret is
# baked in: they come from the environment at run time, and .dockerignore keeps .env, .data/ and key
# files out of the build context.
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY scripts/ensure-deps.mjs ./scripts/
# The fixes applied to dependencies on install (patch-package, the postinstall script).
COPY patches ./patches
RUN node scripts/ensure-deps.mjs
COPY . .
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

FROM node:24-bookworm-slim
WORKDIR /app
# The code stays root's and read-only to the processes (compose runs them on a read-only filesystem):
# nothing is compiled or bundled at start.
COPY --from=build /app /app
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000
# The base image's unprivileged user.
USER node
EXPOSE 3000
HEALTHCHECK --interval=10s --retries=6 CMD ["node", "-e", "fetch('http://127.0.0.1:3000/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "api/server.js"]
