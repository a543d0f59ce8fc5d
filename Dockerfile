# Builds the sales-api binary and runs it on a slim Debian image.
FROM rust:1.95-bookworm AS build
WORKDIR /src
COPY . .
RUN cargo build --release --bin sales-api

FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates && rm -rf /var/lib/apt/lists/* \
    && useradd --system --uid 10001 --create-home --home-dir /app sales && mkdir -p /keys && chown sales /keys
COPY --from=build /src/target/release/sales-api /usr/local/bin/sales-api
USER sales
WORKDIR /app
ENV BIND_ADDR=0.0.0.0:8080 LOG_JSON=true MAIL_DIR=/app/mail
EXPOSE 8080
ENTRYPOINT ["sales-api"]
CMD ["serve"]
