# Image for the API, the worker and the relay (docker-compose.yml picks the command). No secret is
# baked in: they come from the environment at run time, and .dockerignore keeps .env, .data/ and key
# files out of the build context that `COPY . .` takes.
FROM node:24-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
# The fixes applied to dependencies on install (patch-package, the postinstall script).
COPY patches ./patches
RUN npm ci --no-audit --no-fund
COPY . .
# The code stays root's, read-only to the processes; they write only the worker's bundle cache
# (workers/setup/workflow-bundle.ts), and /tmp.
RUN mkdir -p .data/workflow-bundles && chown node:node .data/workflow-bundles
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000
# The base image's unprivileged user.
USER node
EXPOSE 3000
CMD ["npx", "tsx", "api/server.ts"]
