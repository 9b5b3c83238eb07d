# syntax=docker/dockerfile:1
# Multi-stage image on Node 24. The image runs against an external Postgres: DATABASE_URL is
# required here (the embedded Postgres is for `npm start` on a workstation).

FROM node:24-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# Production dependencies only; Node 24 comes from the base image.
# The image runs Debian's maintained ffmpeg (FFMPEG_PATH/FFPROBE_PATH below), so the static
# binaries from npm (the ffmpeg one dates from 2018) are left out.
RUN npm ci --omit=dev --ignore-scripts && npm cache clean --force \
  && rm -rf node_modules/@ffmpeg-installer/linux-* node_modules/@ffprobe-installer/linux-*

# The dashboard (web/), built with the dev dependencies (Vite, React) into web/dist; the
# runtime image takes only the built files.
FROM node:24-bookworm-slim AS web
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts
COPY web ./web
RUN node node_modules/vite/bin/vite.js build --config web/vite.config.ts --logLevel warn

FROM node:24-bookworm-slim AS runtime
RUN apt-get update \
  && apt-get install -y --no-install-recommends ffmpeg \
  && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000 DATA_DIR=/data \
  FFMPEG_PATH=/usr/bin/ffmpeg FFPROBE_PATH=/usr/bin/ffprobe
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json ./
COPY api ./api
COPY core ./core
COPY workers ./workers
COPY render ./render
COPY sql ./sql
COPY bin ./bin
COPY --from=web /app/web/dist ./web/dist
RUN mkdir -p /data && chown node:node /data
USER node
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s CMD node -e "fetch('http://127.0.0.1:'+process.env.PORT+'/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
# Fails fast with a clear message when DATABASE_URL is missing.
ENTRYPOINT ["sh", "-c", "[ -n \"$DATABASE_URL\" ] || { echo 'DATABASE_URL is required in the container' >&2; exit 1; }; exec node bin/start.ts \"$@\"", "--"]
CMD ["all"]
