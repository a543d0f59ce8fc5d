//! The metrics listener (`METRICS_ADDR`, default `127.0.0.1:9464`): Prometheus's text format at
//! `/metrics`, on an address of its own so that it is never published with the API. What is
//! recorded as it happens (requests, pool waits, outbound calls, deliveries, the catalog cache,
//! bcrypt) comes from the `metrics` facade; what is a level (pool connections, the webhook backlog,
//! the monthly partitions, the process's CPU and memory) is sampled here, when scraped.

use actix_web::dev::ServerHandle;
use actix_web::{App, HttpResponse, HttpServer, web};
use adapters_postgres::{
    PgPool, acceptance_overdue, operation_levels, partition_levels, pool_gauges, retention_totals,
    subject_request_levels, webhook_backlog,
};
use metrics_exporter_prometheus::{PrometheusBuilder, PrometheusHandle};
use observability::metric;
use std::future::Future;
use std::net::{SocketAddr, TcpListener};
use std::pin::Pin;
use std::sync::OnceLock;
use std::time::Duration;

/// Latency buckets, in seconds: from a cached read (1 ms) to a provider's time-out (30 s).
const BUCKETS: &[f64] = &[
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0,
];

/// How often histogram samples are folded into their buckets.
const UPKEEP_INTERVAL: Duration = Duration::from_secs(5);

/// The backlog and partition queries may not hold up a scrape.
const SAMPLE_TIMEOUT: Duration = Duration::from_secs(2);

/// The process's one recorder (the `metrics` facade takes one per process; services started in
/// one test process share it).
static RECORDER: OnceLock<Option<PrometheusHandle>> = OnceLock::new();

fn recorder() -> Option<PrometheusHandle> {
    RECORDER
        .get_or_init(|| {
            let built = PrometheusBuilder::new()
                .set_buckets(BUCKETS)
                .and_then(PrometheusBuilder::install_recorder);
            match built {
                Ok(handle) => {
                    metric::describe();
                    metrics_process::Collector::default().describe();
                    crate::http::middleware::record_request_metrics();
                    Some(handle)
                }
                Err(error) => {
                    tracing::error!(%error, "metrics recorder not installed");
                    None
                }
            }
        })
        .clone()
}

/// What a scrape samples: the pools by name, and the pool the backlog is read with.
#[derive(Clone)]
pub struct Sampled {
    pub pools: Vec<(String, PgPool)>,
    pub queue: PgPool,
    /// How long an operation may stay pending before it counts as overdue
    /// (`OPERATION_RECOVERY_AFTER_MS`).
    pub operation_recovery_after: Duration,
    /// In development, the shared clock the refunds' due dates are judged by (read again at each
    /// scrape); else the machine's.
    pub development_clock: Option<crate::state::DevelopmentClock>,
}

struct Scrape {
    handle: PrometheusHandle,
    sampled: Sampled,
    process: metrics_process::Collector,
}

async fn metrics_page(scrape: web::Data<Scrape>) -> HttpResponse {
    for (name, pool) in &scrape.sampled.pools {
        let gauges = pool_gauges(pool);
        metrics::gauge!(metric::DB_POOL_MAX_CONNECTIONS, "pool" => name.clone()).set(gauges.max as f64);
        metrics::gauge!(metric::DB_POOL_CONNECTIONS, "pool" => name.clone(), "state" => "in_use")
            .set(gauges.in_use as f64);
        metrics::gauge!(metric::DB_POOL_CONNECTIONS, "pool" => name.clone(), "state" => "idle").set(gauges.idle as f64);
        metrics::gauge!(metric::DB_POOL_WAITING, "pool" => name.clone()).set(gauges.waiting as f64);
    }
    match tokio::time::timeout(SAMPLE_TIMEOUT, webhook_backlog(&scrape.sampled.queue)).await {
        Ok(Ok(backlog)) => {
            metrics::gauge!(metric::WEBHOOK_DUE).set(backlog.due as f64);
            metrics::gauge!(metric::WEBHOOK_OLDEST_DUE_AGE).set(backlog.oldest_due_age_secs);
        }
        // The last values stay; the failure itself shows in the pool's metrics.
        Ok(Err(error)) => tracing::warn!(%error, "webhook backlog not sampled"),
        Err(_) => tracing::warn!("webhook backlog not sampled in time"),
    }
    match tokio::time::timeout(SAMPLE_TIMEOUT, partition_levels(&scrape.sampled.queue)).await {
        Ok(Ok(levels)) => {
            for level in levels {
                metrics::gauge!(metric::DB_PARTITION_MONTHS_AHEAD, "table" => level.table.clone())
                    .set(level.months_ahead as f64);
                metrics::gauge!(metric::DB_PARTITION_DEFAULT_ROWS, "table" => level.table)
                    .set(level.default_rows as f64);
            }
        }
        Ok(Err(error)) => tracing::warn!(%error, "monthly partitions not sampled"),
        Err(_) => tracing::warn!("monthly partitions not sampled in time"),
    }
    let overdue_before = chrono::Utc::now()
        - chrono::Duration::from_std(scrape.sampled.operation_recovery_after).unwrap_or(chrono::Duration::minutes(1));
    match tokio::time::timeout(SAMPLE_TIMEOUT, operation_levels(&scrape.sampled.queue, overdue_before)).await {
        Ok(Ok(levels)) => {
            for level in levels {
                metrics::gauge!(metric::OPERATIONS_PENDING, "kind" => level.kind.as_str()).set(level.pending as f64);
                metrics::gauge!(metric::OPERATIONS_OVERDUE, "kind" => level.kind.as_str()).set(level.overdue as f64);
            }
        }
        Ok(Err(error)) => tracing::warn!(%error, "pending operations not sampled"),
        Err(_) => tracing::warn!("pending operations not sampled in time"),
    }
    match tokio::time::timeout(SAMPLE_TIMEOUT, acceptance_overdue(&scrape.sampled.queue)).await {
        Ok(Ok(count)) => metrics::gauge!(metric::ACCEPTANCE_OVERDUE).set(count as f64),
        Ok(Err(error)) => tracing::warn!(%error, "overdue acceptances not sampled"),
        Err(_) => tracing::warn!("overdue acceptances not sampled in time"),
    }
    match tokio::time::timeout(SAMPLE_TIMEOUT, retention_totals(&scrape.sampled.queue)).await {
        Ok(Ok(totals)) => {
            for (kind, count) in [
                ("titular", totals.persons),
                ("proposta", totals.proposals),
                ("saude", totals.health_answers),
            ] {
                metrics::counter!(metric::PRIVACY_RETENTION_APPLIED, "kind" => kind).absolute(count.unsigned_abs());
            }
        }
        Ok(Err(error)) => tracing::warn!(%error, "retention totals not sampled"),
        Err(_) => tracing::warn!("retention totals not sampled in time"),
    }
    match tokio::time::timeout(SAMPLE_TIMEOUT, subject_request_levels(&scrape.sampled.queue)).await {
        Ok(Ok(levels)) => {
            metrics::gauge!(metric::PRIVACY_REQUESTS_OPEN).set(levels.open as f64);
            metrics::gauge!(metric::PRIVACY_REQUESTS_OVERDUE).set(levels.overdue as f64);
        }
        Ok(Err(error)) => tracing::warn!(%error, "data subject requests not sampled"),
        Err(_) => tracing::warn!("data subject requests not sampled in time"),
    }
    let last_check = adapters_postgres::ledger::last_ledger_check(&scrape.sampled.queue);
    match tokio::time::timeout(SAMPLE_TIMEOUT, last_check).await {
        Ok(Ok(Some(summary))) => {
            metrics::gauge!(metric::LEDGER_DRIFTED_CONTRACTS).set(summary.drifted_contracts as f64);
            metrics::gauge!(metric::LEDGER_CHECKED_CONTRACTS).set(summary.contracts as f64);
        }
        Ok(Ok(None)) => {}
        Ok(Err(error)) => tracing::warn!(%error, "ledger check not sampled"),
        Err(_) => tracing::warn!("ledger check not sampled in time"),
    }
    match tokio::time::timeout(SAMPLE_TIMEOUT, refunds_overdue_now(&scrape.sampled)).await {
        Ok(Ok(count)) => metrics::gauge!(metric::REFUNDS_TO_PAY_OVERDUE).set(count as f64),
        Ok(Err(error)) => tracing::warn!(%error, "overdue refunds to pay not sampled"),
        Err(_) => tracing::warn!("overdue refunds to pay not sampled in time"),
    }
    let undelivered = adapters_postgres::arrears::undelivered_notices(&scrape.sampled.queue);
    match tokio::time::timeout(SAMPLE_TIMEOUT, undelivered).await {
        Ok(Ok(count)) => metrics::gauge!(metric::BILLING_NOTICES_UNDELIVERED).set(count as f64),
        Ok(Err(error)) => tracing::warn!(%error, "undelivered billing notices not sampled"),
        Err(_) => tracing::warn!("undelivered billing notices not sampled in time"),
    }
    match tokio::time::timeout(SAMPLE_TIMEOUT, averbacoes_now(&scrape.sampled)).await {
        Ok(Ok(levels)) => {
            metrics::gauge!(metric::AVERBACOES_REFUSED).set(levels.refused as f64);
            metrics::gauge!(metric::AVERBACOES_OVERDUE).set(levels.overdue as f64);
        }
        Ok(Err(error)) => tracing::warn!(%error, "averbações not sampled"),
        Err(_) => tracing::warn!("averbações not sampled in time"),
    }
    scrape.process.collect();
    scrape.handle.run_upkeep();
    HttpResponse::Ok()
        .content_type("text/plain; version=0.0.4; charset=utf-8")
        .body(scrape.handle.render())
}

/// The instant the rules are judged by: the development clock's where it runs.
async fn rules_now(sampled: &Sampled) -> Result<chrono::DateTime<chrono::Utc>, domain::store::StoreError> {
    Ok(match &sampled.development_clock {
        Some(dev) => {
            dev.refresh().await?;
            domain::clock::Clock::now(dev.clock.as_ref())
        }
        None => chrono::Utc::now(),
    })
}

/// The refunds to pay past their due date, by the day the rules are judged by.
async fn refunds_overdue_now(sampled: &Sampled) -> Result<i64, domain::store::StoreError> {
    let today = domain::billing::brasilia_day(rules_now(sampled).await?);
    adapters_postgres::refunds::refunds_overdue(&sampled.queue, today).await
}

/// The payroll contracts not discounted, by the instant the rules are judged by.
async fn averbacoes_now(
    sampled: &Sampled,
) -> Result<adapters_postgres::averbacoes::AverbacaoLevels, domain::store::StoreError> {
    adapters_postgres::averbacoes::averbacao_levels(&sampled.queue, rules_now(sampled).await?).await
}

/// The bound metrics listener: its handle, its port, and the future that serves it (and folds
/// the histogram samples every few seconds) until the handle stops it.
pub struct Bound {
    pub handle: ServerHandle,
    pub port: u16,
    pub serving: Pin<Box<dyn Future<Output = std::io::Result<()>> + Send>>,
}

/// Binds the metrics listener; `None` when the recorder could not be installed.
pub fn listener(addr: SocketAddr, sampled: Sampled) -> std::io::Result<Option<Bound>> {
    let Some(handle) = recorder() else { return Ok(None) };
    let listener = TcpListener::bind(addr)?;
    let port = listener.local_addr()?.port();
    let upkeep = handle.clone();
    let scrape = web::Data::new(Scrape {
        handle,
        sampled,
        process: metrics_process::Collector::default(),
    });
    let server = HttpServer::new(move || {
        App::new()
            .app_data(scrape.clone())
            .route("/metrics", web::get().to(metrics_page))
    })
    .workers(1)
    .disable_signals()
    .listen(listener)?
    .run();
    let server_handle = server.handle();
    // Histogram samples are kept raw until upkeep folds them into their buckets: folded every few
    // seconds whether or not anyone scrapes, so that memory stays flat; for as long as it serves.
    let serving = async move {
        let mut server = std::pin::pin!(server);
        let mut every = tokio::time::interval(UPKEEP_INTERVAL);
        loop {
            tokio::select! {
                served = &mut server => return served,
                _ = every.tick() => upkeep.run_upkeep(),
            }
        }
    };
    Ok(Some(Bound {
        handle: server_handle,
        port,
        serving: Box::pin(serving),
    }))
}
