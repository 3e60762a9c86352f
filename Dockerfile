# syntax=docker/dockerfile:1
#
# The image of `conductor controllers`, as deploy/helm/conductor runs it: the command
# `conductor` (values.yaml image.command), user and group 65532 (the Deployment's
# securityContext), a read-only root filesystem with /var/lib/conductor and /tmp as its only
# writable paths (the chart mounts emptyDirs there), /healthz and /readyz on port 8081.
#
#   docker build -t conductor:0.1.0 .
#   helm install conductor deploy/helm/conductor --set image.repository=conductor
#
# test/install/container-image.test.ts checks this file against the chart and package.json.

# --- build: compile TypeScript and the dashboard, then drop the dev dependencies ---------
FROM node:20-bookworm-slim AS build
WORKDIR /build
# Dependencies first, so that a change of the sources does not install them again. Their
# scripts are skipped here (the package's own "prepare" would build sources not copied
# yet) and the native ones run by name: the embedded store, the bundler, protobufjs.
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund \
 && npm rebuild better-sqlite3 esbuild protobufjs
COPY tsconfig.json ./
COPY scripts/ scripts/
COPY src/ src/
RUN npm run build \
 && npm prune --omit=dev --ignore-scripts --no-audit --no-fund

# --- run: the compiled package and its production dependencies only -----------------------
FROM node:20-bookworm-slim
ENV NODE_ENV=production \
    HOME=/tmp
WORKDIR /opt/conductor
COPY --from=build /build/package.json ./
COPY --from=build /build/node_modules/ node_modules/
COPY --from=build /build/dist/ dist/
RUN chmod 0755 dist/cli/conductor.js \
 && ln -s /opt/conductor/dist/cli/conductor.js /usr/local/bin/conductor \
 && mkdir -p /var/lib/conductor \
 && chown 65532:65532 /var/lib/conductor
USER 65532:65532
EXPOSE 8081
ENTRYPOINT ["conductor"]
CMD ["controllers", "--data-dir=/var/lib/conductor", "--health-host=0.0.0.0", "--health-port=8081"]
