//! The metrics every part of the service records, by name, and what each one means.
//!
//! Recorded through the `metrics` facade: without an installed recorder (metrics turned off, a
//! library user, a unit test) every call is a no-op. Labels are always from small fixed sets
//! (a route's pattern, a provider's name, an outcome), never a raw path or identifier.

use std::time::Duration;

/// Requests served, by route pattern, method and status class (`2xx`…`5xx`): a histogram, whose
/// `_count` is the number of requests.
pub const HTTP_REQUEST_DURATION: &str = "http_server_request_duration_seconds";

/// Connections of each database pool by state (`in_use`, `idle`) and its ceiling, sampled when
/// scraped.
pub const DB_POOL_CONNECTIONS: &str = "db_pool_connections";
pub const DB_POOL_MAX_CONNECTIONS: &str = "db_pool_max_connections";
/// Callers waiting for a connection right now, by pool (sampled when scraped).
pub const DB_POOL_WAITING: &str = "db_pool_waiting";
/// How long getting a connection took (waits included).
pub const DB_POOL_ACQUIRE_DURATION: &str = "db_pool_acquire_duration_seconds";
/// Connection requests that gave up (answered 503), by kind (`wait`, `create`, `recycle`, `closed`,
/// `refused`).
pub const DB_POOL_TIMEOUTS: &str = "db_pool_timeouts_total";

/// Webhook deliveries due now (sampled from the queue when scraped), and the age of the oldest.
pub const WEBHOOK_DUE: &str = "webhook_deliveries_due";
pub const WEBHOOK_OLDEST_DUE_AGE: &str = "webhook_oldest_due_age_seconds";
/// Delivery attempts by outcome (`delivered`, `retry`, `exhausted`, `gone`).
pub const WEBHOOK_ATTEMPTS: &str = "webhook_attempts_total";
/// Deliveries being sent by this instance right now.
pub const WEBHOOK_IN_FLIGHT: &str = "webhook_deliveries_in_flight";

/// Calls to the outside services by provider (`stripe`, `clicksign`, `smtp`, `webhook`) and
/// outcome (`ok` or the error kind), and the errors alone by kind.
pub const OUTBOUND_DURATION: &str = "outbound_request_duration_seconds";
pub const OUTBOUND_ERRORS: &str = "outbound_errors_total";

/// Password hashes and checks waiting for a slot, and running.
pub const BCRYPT_WAITING: &str = "bcrypt_waiting";
pub const BCRYPT_RUNNING: &str = "bcrypt_running";

/// The catalog's in-memory cache: reads answered from it, reads that went to the database, and
/// invalidations (a change seen on this instance or notified by another).
pub const CATALOG_CACHE_HITS: &str = "catalog_cache_hits_total";
pub const CATALOG_CACHE_MISSES: &str = "catalog_cache_misses_total";
pub const CATALOG_CACHE_INVALIDATIONS: &str = "catalog_cache_invalidations_total";

/// Every metric above, by name.
pub const ALL: &[&str] = &[
    HTTP_REQUEST_DURATION,
    DB_POOL_CONNECTIONS,
    DB_POOL_MAX_CONNECTIONS,
    DB_POOL_WAITING,
    DB_POOL_ACQUIRE_DURATION,
    DB_POOL_TIMEOUTS,
    WEBHOOK_DUE,
    WEBHOOK_OLDEST_DUE_AGE,
    WEBHOOK_ATTEMPTS,
    WEBHOOK_IN_FLIGHT,
    OUTBOUND_DURATION,
    OUTBOUND_ERRORS,
    BCRYPT_WAITING,
    BCRYPT_RUNNING,
    CATALOG_CACHE_HITS,
    CATALOG_CACHE_MISSES,
    CATALOG_CACHE_INVALIDATIONS,
];

/// Every metric with its help text, for the exporter's `# HELP` lines.
pub fn describe() {
    use metrics::{Unit, describe_counter, describe_gauge, describe_histogram};
    describe_histogram!(
        HTTP_REQUEST_DURATION,
        Unit::Seconds,
        "Requisições atendidas, por padrão de rota, método e classe de status"
    );
    describe_gauge!(DB_POOL_CONNECTIONS, "Conexões do pool por estado (in_use, idle)");
    describe_gauge!(DB_POOL_MAX_CONNECTIONS, "Teto de conexões do pool");
    describe_gauge!(DB_POOL_WAITING, "Pedidos esperando uma conexão do pool");
    describe_histogram!(
        DB_POOL_ACQUIRE_DURATION,
        Unit::Seconds,
        "Tempo para obter uma conexão do pool (com a espera)"
    );
    describe_counter!(DB_POOL_TIMEOUTS, "Pedidos de conexão que desistiram (503), por tipo");
    describe_gauge!(WEBHOOK_DUE, "Entregas de webhook vencidas agora");
    describe_gauge!(
        WEBHOOK_OLDEST_DUE_AGE,
        Unit::Seconds,
        "Idade da entrega vencida mais antiga"
    );
    describe_counter!(WEBHOOK_ATTEMPTS, "Tentativas de entrega por resultado");
    describe_gauge!(WEBHOOK_IN_FLIGHT, "Entregas sendo enviadas por esta instância");
    describe_histogram!(
        OUTBOUND_DURATION,
        Unit::Seconds,
        "Chamadas a serviços externos por provedor e resultado"
    );
    describe_counter!(
        OUTBOUND_ERRORS,
        "Erros de chamadas a serviços externos por provedor e tipo"
    );
    describe_gauge!(BCRYPT_WAITING, "Verificações de senha esperando vez");
    describe_gauge!(BCRYPT_RUNNING, "Verificações de senha em andamento");
    describe_counter!(CATALOG_CACHE_HITS, "Leituras do catálogo atendidas pela memória");
    describe_counter!(CATALOG_CACHE_MISSES, "Leituras do catálogo que foram ao banco");
    describe_counter!(CATALOG_CACHE_INVALIDATIONS, "Invalidações do cache do catálogo");
}

/// How a call to an outside service ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Ok,
    /// No answer in time.
    Timeout,
    /// No connection (refused, DNS, TLS).
    Connection,
    /// 429.
    RateLimited,
    /// 5xx.
    ServerError,
    /// Another refusal (4xx, an unreadable answer).
    Rejected,
}

impl Outcome {
    pub fn label(self) -> &'static str {
        match self {
            Outcome::Ok => "ok",
            Outcome::Timeout => "timeout",
            Outcome::Connection => "connection",
            Outcome::RateLimited => "rate_limited",
            Outcome::ServerError => "server_error",
            Outcome::Rejected => "rejected",
        }
    }

    /// From an HTTP status the service answered.
    pub fn of_status(status: u16) -> Self {
        match status {
            200..=399 => Outcome::Ok,
            429 => Outcome::RateLimited,
            500.. => Outcome::ServerError,
            _ => Outcome::Rejected,
        }
    }
}

/// One call to `provider` that took `elapsed` and ended as `outcome`.
pub fn outbound_call(provider: &'static str, elapsed: Duration, outcome: Outcome) {
    metrics::histogram!(OUTBOUND_DURATION, "provider" => provider, "outcome" => outcome.label())
        .record(elapsed.as_secs_f64());
    if outcome != Outcome::Ok {
        metrics::counter!(OUTBOUND_ERRORS, "provider" => provider, "kind" => outcome.label()).increment(1);
    }
}

/// The status class label of an answer (`2xx`…`5xx`).
pub fn status_class(status: u16) -> &'static str {
    match status {
        100..=199 => "1xx",
        200..=299 => "2xx",
        300..=399 => "3xx",
        400..=499 => "4xx",
        _ => "5xx",
    }
}

/// A gauge that counts what is inside a section (waiting, running): up on creation, down when
/// dropped, so an early return or a cancelled future never leaves it high.
pub struct GaugeGuard(metrics::Gauge);

impl GaugeGuard {
    pub fn enter(name: &'static str) -> Self {
        let gauge = metrics::gauge!(name);
        gauge.increment(1.0);
        Self(gauge)
    }
}

impl Drop for GaugeGuard {
    fn drop(&mut self) {
        self.0.decrement(1.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The alert rules and the dashboard in `deploy/` name only metrics the service records (or
    /// the process's, from `metrics-process`, and Prometheus's own `up`).
    #[test]
    fn the_alerts_and_the_dashboard_name_only_recorded_metrics() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../deploy");
        for file in ["prometheus/alerts.yml", "grafana/sales-api.json"] {
            let text = std::fs::read_to_string(root.join(file)).unwrap();
            let mut named = 0;
            let words = text.split(|c: char| !(c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'));
            for word in words {
                let family = ["_bucket", "_count", "_sum"]
                    .iter()
                    .find_map(|suffix| word.strip_suffix(suffix))
                    .unwrap_or(word);
                let ours = [
                    "http_server_",
                    "db_pool_",
                    "webhook_",
                    "outbound_",
                    "bcrypt_",
                    "catalog_cache_",
                ];
                if ours.iter().any(|prefix| family.starts_with(prefix)) {
                    assert!(ALL.contains(&family), "{file} names {word}, which nothing records");
                    named += 1;
                }
            }
            assert!(named > 10, "{file} names {named} of our metrics");
        }
    }

    #[test]
    fn statuses_map_to_outcomes_and_classes() {
        assert_eq!(Outcome::of_status(201), Outcome::Ok);
        assert_eq!(Outcome::of_status(429), Outcome::RateLimited);
        assert_eq!(Outcome::of_status(503), Outcome::ServerError);
        assert_eq!(Outcome::of_status(422), Outcome::Rejected);
        assert_eq!(status_class(204), "2xx");
        assert_eq!(status_class(404), "4xx");
        assert_eq!(status_class(503), "5xx");
    }
}
