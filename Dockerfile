# waybill: multi-stage, Node 24 slim, non-root, tini as PID 1, HEALTHCHECK on /healthz.
# The base image is pinned by digest (node:24-slim's multi-platform index), so a rebuild gets the
# same system. To move to a newer one, take the digest from
#   docker buildx imagetools inspect node:24-slim
# and replace it here (or, for one build: --build-arg NODE_IMAGE=node:24-slim@sha256:<digest>).
ARG NODE_IMAGE=node:24-slim@sha256:a9f5f7c91a432850b2a8a7797adf5eadb6c733ceed61167806cee7ea7fbc29df

FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund

FROM ${NODE_IMAGE}
RUN apt-get update && apt-get install -y --no-install-recommends tini ca-certificates && rm -rf /var/lib/apt/lists/* \
 && groupadd -r waybill && useradd -r -g waybill -d /app waybill
WORKDIR /app
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8080 WAYBILL_DATA_DIR=/app/data
COPY --from=deps /app/node_modules ./node_modules
COPY package.json ./
COPY bin ./bin
COPY src ./src
COPY connectors ./connectors
COPY migrations ./migrations
COPY config ./config
RUN mkdir -p /app/data && chown -R waybill:waybill /app/data
USER waybill
EXPOSE 8080
HEALTHCHECK --interval=15s --timeout=3s --start-period=30s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "bin/waybill.js", "start"]
