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

/// Reads that may go to a replica, by where they went (`primary`, `replica-1`, …); a replica's
/// skips by reason (down, lagging, not_replica, behind_write: it has not replayed the caller's
/// last write, failed: a read on it failed and was read again on the primary, not_found: a read
/// by key it answered "not found", read again on the primary); each replica's lag
/// at its last poll, and whether that poll found it usable.
pub const DB_READS: &str = "db_reads_total";
pub const DB_REPLICA_SKIPS: &str = "db_replica_skips_total";
pub const DB_REPLICA_LAG: &str = "db_replica_lag_seconds";
pub const DB_REPLICA_USABLE: &str = "db_replica_usable";

// The monthly partitions (sampled when scraped): per partitioned table, how many months after the
// current one already have their partition (the housekeeping keeps three), and the rows its
// DEFAULT partition holds (none while the housekeeping keeps up).
pub const DB_PARTITION_MONTHS_AHEAD: &str = "db_partition_months_ahead";
pub const DB_PARTITION_DEFAULT_ROWS: &str = "db_partition_default_rows";

// Operations with an outside effect (sampled when scraped): those pending now, and those pending
// for longer than `OPERATION_RECOVERY_AFTER_MS` (their request died; the worker should have taken
// them), by kind.
pub const OPERATIONS_PENDING: &str = "proposal_operations_pending";
pub const OPERATIONS_OVERDUE: &str = "proposal_operations_overdue";
// Proposals past their acceptance deadline undecided, on products without tacit acceptance
// (issue 45).
pub const ACCEPTANCE_OVERDUE: &str = "proposals_acceptance_overdue";
// What the retention schedule (issue 47) has done in all, by kind (`titular`, `proposta`,
// `saude`): sampled from the record of its passes, wherever they ran.
pub const PRIVACY_RETENTION_APPLIED: &str = "privacy_retention_applied_total";
// Data-subject requests (issue 47) unanswered, and those of them past their 15-day deadline
// (LGPD art. 19, II).
pub const PRIVACY_REQUESTS_OPEN: &str = "privacy_requests_open";
pub const PRIVACY_REQUESTS_OVERDUE: &str = "privacy_requests_overdue";
// The contracts whose ledger differs from their facts at the last nightly check (issue 65), and
// how many it checked: sampled from the record of the checks, wherever they ran.
pub const LEDGER_DRIFTED_CONTRACTS: &str = "ledger_drifted_contracts";
pub const LEDGER_CHECKED_CONTRACTS: &str = "ledger_checked_contracts";
// The refunds to pay past their due date and not paid (issue 65): sampled at each scrape.
pub const REFUNDS_TO_PAY_OVERDUE: &str = "refunds_to_pay_overdue";
// The open notices of an unpaid premium of running contracts that no channel delivered (issue 67,
// Lei 15.040/2024 art. 20 §3): sampled at each scrape.
pub const BILLING_NOTICES_UNDELIVERED: &str = "billing_notices_undelivered";
// The running payroll contracts nothing is discounted for (issue 67, decision 268): their
// averbação refused, or not active five days after the acceptance; sampled at each scrape.
pub const AVERBACOES_REFUSED: &str = "averbacoes_refused";
pub const AVERBACOES_OVERDUE: &str = "averbacoes_overdue";

/// What kind of metric a name is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Counter,
    Gauge,
    /// Durations, in seconds.
    Seconds,
}

/// Every metric above with its kind and help text (the exporter's `# HELP` lines).
pub const CATALOGUE: &[(&str, Kind, &str)] = &[
    (
        HTTP_REQUEST_DURATION,
        Kind::Seconds,
        "Requisições atendidas, por padrão de rota, método e classe de status",
    ),
    (
        DB_POOL_CONNECTIONS,
        Kind::Gauge,
        "Conexões do pool por estado (in_use, idle)",
    ),
    (DB_POOL_MAX_CONNECTIONS, Kind::Gauge, "Teto de conexões do pool"),
    (DB_POOL_WAITING, Kind::Gauge, "Pedidos esperando uma conexão do pool"),
    (
        DB_POOL_ACQUIRE_DURATION,
        Kind::Seconds,
        "Tempo para obter uma conexão do pool (com a espera)",
    ),
    (
        DB_POOL_TIMEOUTS,
        Kind::Counter,
        "Pedidos de conexão que desistiram (503), por tipo",
    ),
    (WEBHOOK_DUE, Kind::Gauge, "Entregas de webhook vencidas agora"),
    (
        WEBHOOK_OLDEST_DUE_AGE,
        Kind::Gauge,
        "Idade da entrega vencida mais antiga, em segundos",
    ),
    (WEBHOOK_ATTEMPTS, Kind::Counter, "Tentativas de entrega por resultado"),
    (
        WEBHOOK_IN_FLIGHT,
        Kind::Gauge,
        "Entregas sendo enviadas por esta instância",
    ),
    (
        OUTBOUND_DURATION,
        Kind::Seconds,
        "Chamadas a serviços externos por provedor e resultado",
    ),
    (
        OUTBOUND_ERRORS,
        Kind::Counter,
        "Erros de chamadas a serviços externos por provedor e tipo",
    ),
    (BCRYPT_WAITING, Kind::Gauge, "Verificações de senha esperando vez"),
    (BCRYPT_RUNNING, Kind::Gauge, "Verificações de senha em andamento"),
    (
        CATALOG_CACHE_HITS,
        Kind::Counter,
        "Leituras do catálogo atendidas pela memória",
    ),
    (
        CATALOG_CACHE_MISSES,
        Kind::Counter,
        "Leituras do catálogo que foram ao banco",
    ),
    (
        CATALOG_CACHE_INVALIDATIONS,
        Kind::Counter,
        "Invalidações do cache do catálogo",
    ),
    (
        DB_READS,
        Kind::Counter,
        "Leituras que podem ir a uma réplica, por destino (primary ou a réplica)",
    ),
    (
        DB_REPLICA_SKIPS,
        Kind::Counter,
        "Leituras que deixaram de usar uma réplica, por réplica e motivo",
    ),
    (
        DB_REPLICA_LAG,
        Kind::Gauge,
        "Atraso de cada réplica na última consulta, em segundos",
    ),
    (
        DB_REPLICA_USABLE,
        Kind::Gauge,
        "1 quando a última consulta achou a réplica em condições de servir leituras",
    ),
    (
        DB_PARTITION_MONTHS_AHEAD,
        Kind::Gauge,
        "Meses seguintes ao atual com partição já criada, por tabela particionada",
    ),
    (
        DB_PARTITION_DEFAULT_ROWS,
        Kind::Gauge,
        "Linhas na partição DEFAULT, por tabela particionada (meses sem partição criada)",
    ),
    (
        OPERATIONS_PENDING,
        Kind::Gauge,
        "Operações com efeito externo pendentes agora, por tipo",
    ),
    (
        OPERATIONS_OVERDUE,
        Kind::Gauge,
        "Operações pendentes há mais que OPERATION_RECOVERY_AFTER_MS, por tipo (o worker deveria tê-las concluído)",
    ),
    (
        ACCEPTANCE_OVERDUE,
        Kind::Gauge,
        "Propostas em análise com o prazo de aceitação vencido sem decisão (produto sem aceite tácito)",
    ),
    (
        PRIVACY_RETENTION_APPLIED,
        Kind::Counter,
        "O que o prazo de retenção já anonimizou ou descartou, por tipo (titular, proposta, saude)",
    ),
    (
        PRIVACY_REQUESTS_OPEN,
        Kind::Gauge,
        "Pedidos de titulares (LGPD art. 18) sem resposta",
    ),
    (
        PRIVACY_REQUESTS_OVERDUE,
        Kind::Gauge,
        "Pedidos de titulares sem resposta além do prazo de 15 dias (LGPD art. 19, II)",
    ),
    (
        LEDGER_DRIFTED_CONTRACTS,
        Kind::Gauge,
        "Contratos cujo razão diverge dos fatos na última conferência noturna (sales-api ledger check)",
    ),
    (
        LEDGER_CHECKED_CONTRACTS,
        Kind::Gauge,
        "Contratos conferidos na última conferência noturna do razão",
    ),
    (
        REFUNDS_TO_PAY_OVERDUE,
        Kind::Gauge,
        "Reembolsos a pagar vencidos e ainda não pagos (REFUND_DUE_DAYS)",
    ),
    (
        BILLING_NOTICES_UNDELIVERED,
        Kind::Gauge,
        "Avisos de prêmio não pago em aberto que nenhum canal entregou (contratos em vigor)",
    ),
    (
        AVERBACOES_REFUSED,
        Kind::Gauge,
        "Contratos em folha em vigor com a averbação recusada: nada é descontado (decida com o cliente)",
    ),
    (
        AVERBACOES_OVERDUE,
        Kind::Gauge,
        "Contratos em folha em vigor sem averbação ativa cinco dias após a aceitação (não pedida ou pendente)",
    ),
];

/// Describes every metric of the catalogue to the installed recorder.
pub fn describe() {
    for &(name, kind, help) in CATALOGUE {
        match kind {
            Kind::Counter => metrics::describe_counter!(name, help),
            Kind::Gauge => metrics::describe_gauge!(name, help),
            Kind::Seconds => metrics::describe_histogram!(name, metrics::Unit::Seconds, help),
        }
    }
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
                    "db_reads_",
                    "db_replica_",
                    "db_partition_",
                    "webhook_",
                    "outbound_",
                    "bcrypt_",
                    "catalog_cache_",
                    "proposal_operations_",
                    "proposals_acceptance_",
                    "privacy_retention_",
                    "privacy_requests_",
                    "ledger_",
                    "refunds_to_pay_",
                    "billing_notices_",
                    "averbacoes_",
                ];
                if ours.iter().any(|prefix| family.starts_with(prefix)) {
                    assert!(
                        CATALOGUE.iter().any(|(name, _, _)| *name == family),
                        "{file} names {word}, which nothing records"
                    );
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
