# syntax=docker/dockerfile:1
# One image per service, all from this file:
#   docker build --build-arg SERVICE=gateway -t board/gateway .
# SERVICE is a folder under services/ (gateway, board, identity, metering, payments, scanner-ingest).
# The image runs `node` on an esbuild bundle of the service (deploy/docker/bundle.ts) with the
# few npm packages it does not carry: no tsx, no TypeScript, no dev dependencies, no secrets.

# Node 26, the active LTS line (since 2026-10-28), on Debian 13 slim, pinned by digest (multi-arch
# index). Update tag and digest together. The bundle targets node20 syntax (the tests run on 20).
ARG NODE_IMAGE=node:26.10.0-trixie-slim@sha256:ec7758ee051e457b468b32bde57b0879010b325bb9862718e9615225ce4aaae1

# npm needs only the lockfile and every workspace's package.json: later stages install from
# these, so a source change does not invalidate the dependency layers.
FROM ${NODE_IMAGE} AS manifests
WORKDIR /src
COPY . .
RUN mkdir /out \
 && cp package.json package-lock.json .npmrc /out/ \
 && find proto packages services scripts -name node_modules -prune -o -name package.json -print \
    | xargs -I{} cp --parents {} /out/

# Build: the full dependency tree (for esbuild and tsx), then the service's bundle and assets.
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY --from=manifests /out/ ./
# build_ca: a CA bundle for a network that intercepts TLS (podman build --secret
# id=build_ca,src=...): mounted for this step only, never in a layer; absent, npm trusts its own.
RUN --mount=type=secret,id=build_ca \
    if [ -f /run/secrets/build_ca ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/build_ca; fi \
 && npm ci --ignore-scripts --no-audit --no-fund
COPY . .
ARG SERVICE
RUN test -n "${SERVICE}" || { echo "build with --build-arg SERVICE=<name of a folder under services/>" >&2; exit 1; }
RUN node_modules/.bin/tsx deploy/docker/bundle.ts "${SERVICE}" /out \
 && node_modules/.bin/tsx deploy/docker/unused-installs.ts "${SERVICE}" > /unused-installs.txt

# Production dependencies of this service's workspace (and the @board/* packages it uses) only,
# without the type declarations and source maps they ship (nothing loads them at run time), and
# then without the packages the bundle carries: node_modules keeps only the few it loads from
# there (INSTALLED_PACKAGES in deploy/docker/bundle.ts).
FROM ${NODE_IMAGE} AS deps
ARG TARGETARCH
# secp256k1 (payments) ships a prebuilt addon for linux/amd64 only; elsewhere it is compiled
# here, against the base image's own Node headers (the toolchain never reaches the final image).
RUN if [ "${TARGETARCH}" != "amd64" ]; then \
      apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*; \
    fi
WORKDIR /app
COPY --from=manifests /out/ ./
ARG SERVICE
RUN --mount=type=secret,id=build_ca \
    if [ -f /run/secrets/build_ca ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/build_ca; fi \
 && npm ci --omit=dev --workspace "services/${SERVICE}" --no-audit --no-fund \
 && if [ "${TARGETARCH}" != "amd64" ] && [ -d node_modules/secp256k1 ]; then \
      cd node_modules/secp256k1 \
      && node /usr/local/lib/node_modules/npm/node_modules/node-gyp/bin/node-gyp.js rebuild --nodedir=/usr/local; \
    fi \
 && npm cache clean --force \
 && find node_modules -type f \( -name '*.d.ts' -o -name '*.d.mts' -o -name '*.d.cts' -o -name '*.map' \) -delete
# After the install, so a source change leaves the install's layer cached.
COPY --from=build /unused-installs.txt /tmp/unused-installs.txt
RUN xargs -r rm -rf < /tmp/unused-installs.txt && rm /tmp/unused-installs.txt

FROM ${NODE_IMAGE} AS runtime
ARG SERVICE
# The service runs `node` only: drop the package managers the base image carries.
RUN rm -rf /usr/local/lib/node_modules /opt/yarn-* \
 && rm -f /usr/local/bin/npm /usr/local/bin/npx /usr/local/bin/corepack /usr/local/bin/yarn /usr/local/bin/yarnpkg
LABEL org.opencontainers.image.title="scored-market-board ${SERVICE}" \
      org.opencontainers.image.description="Scored Market Board Service: the ${SERVICE} service"
# Every service listens for /healthz, /readyz and /metrics on the same port inside a container.
ENV NODE_ENV=production \
    HEALTH_PORT=9100
WORKDIR /app
# Owned by root and read-only to the service's user: the code cannot be changed at run time.
COPY --from=deps /app/ ./
COPY --from=build /out/ ./
WORKDIR /app/services/${SERVICE}
# A numeric UID/GID that exists nowhere else, so Kubernetes can verify runAsNonRoot.
USER 10001:10001
# The health port; the gateway also serves HTTP on PORT (8080).
EXPOSE 9100
# /readyz: the bus and the database answer (compose's depends_on waits for it).
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s --retries=3 \
  CMD ["node", "-e", "const p=process.env.HEALTH_PORT||9100;require('node:http').get({host:'127.0.0.1',port:p,path:'/readyz',timeout:2500},r=>process.exit(r.statusCode===200?0:1)).on('error',()=>process.exit(1)).on('timeout',()=>process.exit(1))"]
STOPSIGNAL SIGTERM
# As npm start runs the services (scripts/start.ts, measured there): a 1 MB young generation (the
# services allocate little per request; the default is sized for the host's memory, not the
# container's) and no source maps loaded (the bundle is unminified: a stack still names function
# and file). NODE_OPTIONS=--enable-source-maps maps stacks back to TypeScript when wanted.
# --expose-gc: scanner-ingest collects after each scan (services/scanner-ingest/src/start.ts).
# --memory-pool-timeout=1: V8 (Node 26) pools the heap pages a collection frees and gives them
# back to the system only on a later collection past this many seconds (8 by default); an idle
# service then kept them resident: scanner-ingest at rest after a scan, 227 MB by default and
# 158 MB with 1 s, measured on Node 26.10.0 (V8 flag: not in Node 20, so not in npm start).
CMD ["node", "--max-semi-space-size=1", "--expose-gc", "--memory-pool-timeout=1", "dist/main.js"]
