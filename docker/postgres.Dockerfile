# Postgres 15 with pg_cron, for docker-compose.
FROM postgres:15-bookworm
RUN apt-get update \
 && apt-get install -y --no-install-recommends postgresql-15-cron \
 && rm -rf /var/lib/apt/lists/*
