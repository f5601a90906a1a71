# syntax=docker/dockerfile:1
# Multi-stage build: compile TypeScript, keep production dependencies only, run as non-root.
# test/deploy/dockerfile.test.ts replays these steps without a Docker engine (COPY and RUN
# in a temporary directory, then the CMD against the test database): keep to ARG, ENV,
# WORKDIR, COPY, RUN, USER, VOLUME, EXPOSE, HEALTHCHECK and CMD.
FROM node:24-bookworm-slim AS build
WORKDIR /app
# npm ci needs only the manifest and the lock (complete for every platform: npm run
# lock:refresh); nothing is patched after install
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

FROM node:24-bookworm-slim AS runtime
# the deployed revision, shown by GET /health (`--build-arg GIT_COMMIT=$(git rev-parse HEAD)`);
# without it /health shows commit: null
ARG GIT_COMMIT=
ENV NODE_ENV=production \
    GIT_COMMIT=${GIT_COMMIT} \
    PORT=3000 \
    HOST=0.0.0.0 \
    APP_LOGS_DIR=/data/logs \
    PARTNER_WEBHOOK_SPOOL_DIR=/data/webhook-spool \
    NODE_OPTIONS=--max-old-space-size=192
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# package.json: the version of /health; db: migrations, functions, views and seeds applied
# at boot; templates: the screens' templates and static files; the reset's runbook, served
# by the screens at /admin/replicacao/runbook
COPY package.json ./
COPY db ./db
COPY templates ./templates
COPY sync-engine ./sync-engine
COPY docs/replicacao.md ./docs/replicacao.md
RUN mkdir -p /data/logs /data/webhook-spool && chown -R node:node /data
USER node
VOLUME ["/data"]
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/health').then(r => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# boot applies pending migrations (advisory-locked, safe with several replicas), then serves
CMD ["node", "dist/src/main.js"]
