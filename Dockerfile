# Builds the sales-api binary and runs it on a slim Debian image. The dependencies are built in a
# layer of their own (cargo-chef's recipe holds only the manifests), so an edit to the service's
# code rebuilds the service alone.
FROM rust:1.95-bookworm AS chef
RUN cargo install cargo-chef --locked --version ^0.1
WORKDIR /src

FROM chef AS planner
COPY . .
RUN cargo chef prepare --recipe-path recipe.json

FROM chef AS build
COPY --from=planner /src/recipe.json recipe.json
RUN cargo chef cook --release --recipe-path recipe.json --bin sales-api
COPY . .
RUN cargo build --release --bin sales-api

FROM debian:bookworm-slim
# curl only for the health check below.
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates curl && rm -rf /var/lib/apt/lists/* \
    && useradd --system --uid 10001 --create-home --home-dir /app sales && mkdir -p /keys && chown sales /keys
COPY --from=build /src/target/release/sales-api /usr/local/bin/sales-api
USER sales
WORKDIR /app
# Production by default: the service refuses to start without its providers and secrets (README,
# "Deploying"); docker-compose.yml sets SALES_ENV=development for a local trial.
# Metrics on every interface of the container, for Prometheus inside the cluster's network: route
# only the API's port (8080) from outside.
ENV BIND_ADDR=0.0.0.0:8080 METRICS_ADDR=0.0.0.0:9464 LOG_JSON=true MAIL_DIR=/app/mail
EXPOSE 8080 9464
# Ready means the database answers, not only that the port is open.
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
    CMD curl -fsS http://127.0.0.1:8080/health/ready >/dev/null || exit 1
ENTRYPOINT ["sales-api"]
CMD ["serve"]
