//! `sales-api worker`: the background jobs with no HTTP server.

use crate::config::Config;
use crate::deployment::{self};
use crate::jobs::acceptance_sweep::spawn_acceptance_sweep;
use crate::jobs::billing_run::{BillingPasses, spawn_billing_run};
use crate::jobs::deliveries::EngineTask;
use crate::jobs::deliveries::delivery_engine;
use crate::jobs::expiry::spawn_expiry;
use crate::jobs::recovery::spawn_recovery;
use crate::jobs::retention_schedule::spawn_retention_schedule;
use crate::lifecycle::MetricsListener;
use crate::lifecycle::wait_for_signal;
use crate::scrape::Sampled;
use crate::services::Services;
use crate::services::StartupError;
use crate::services::after_signing;
use crate::services::given_or_random;
use crate::services::mailer;
use crate::services::operation_recovery;
use crate::services::payment_services;
use crate::services::pix_collection;
use crate::services::pix_refunds;
use crate::services::signing_service;
use adapters_postgres::PgProposals;
use std::sync::Arc;

/// Runs the background work without an HTTP server (`sales-api worker`): the webhook deliveries
/// and the signing deadlines' expiry, until SIGTERM or SIGINT.
pub async fn run_worker(config: Config) -> Result<(), StartupError> {
    deployment::refuse_unsafe(&config).map_err(|e| StartupError::Config(e.0))?;
    deployment::announce(&config);
    let (engine, pool) = delivery_engine(&config)?;
    // The worker's stores share the engine's pool.
    let services = Services::over(&config, pool.clone());
    let metrics = MetricsListener::start(
        &config,
        Sampled {
            pools: vec![("webhooks".to_owned(), pool.clone())],
            queue: pool.clone(),
            operation_recovery_after: config.outside.operation_recovery_after,
            development_clock: services.development.clone(),
        },
    )?;
    let engine = EngineTask::start(engine);
    // The signing deadlines too: the worker is where background work runs when `serve` is
    // scaled for requests (every instance may run it; each proposal expires once).
    let mut signing = signing_service(
        &config,
        &pool,
        Arc::new(PgProposals::new(pool.clone())),
        &given_or_random(&config.outside.signature.callback_secret),
    )?;
    let pix = pix_collection(&config, &pool, signing.claims.clone(), services.rules_clock())?;
    signing.after_signing = pix.as_ref().map(|(collection, _)| after_signing(collection));
    let payments = payment_services(
        &config,
        &pool,
        Arc::new(PgProposals::new(pool.clone())),
        &signing,
        services.rules_clock(),
        mailer(&config)?,
        pix_refunds(&pix),
    )?;
    let pix = pix.map(|(collection, _)| collection);
    let retention = spawn_retention_schedule(
        services.retention(services.rules_clock())?,
        config.privacy.retention_check_interval,
    );
    // The billing judges by the clock the acceptance sweep keeps reading (the same shared shift).
    let billing = spawn_billing_run(
        BillingPasses {
            averbacao: services.averbacao(services.rules_clock()),
            billing: services.billing(services.rules_clock()),
            arrears: services.arrears(services.rules_clock(), Arc::new(payments.settlement.clone()))?,
            terms: services.terms(services.rules_clock(), Arc::new(payments.settlement.clone()))?,
            pix: pix.clone(),
            settlement: payments.settlement.clone(),
            ledger: services.ledger_check(services.rules_clock()),
        },
        config.outside.billing_run_interval,
    );
    let acceptance = spawn_acceptance_sweep(
        services.acceptance(services.rules_clock()),
        services.collection(services.rules_clock())?,
        services.certificates()?,
        services.development.clone(),
        config.outside.acceptance_check_interval,
    );
    let recovery = spawn_recovery(
        operation_recovery(
            &config,
            &signing,
            &payments.ecommerce,
            &payments.withdrawal,
            &payments.settlement,
            pix.as_ref(),
            crate::services::BackgroundFinishers::of(&services)?,
        ),
        config.outside.operation_recovery_after,
    );
    let expiry = spawn_expiry(signing, config.outside.signature.expiry_interval);
    tracing::info!(
        "webhook delivery, signing deadline, acceptance, billing, retention and pending operation worker started"
    );
    wait_for_signal().await;
    billing.abort();
    acceptance.abort();
    retention.abort();
    expiry.abort();
    recovery.abort();
    engine.stop(config.server.shutdown_timeout).await;
    if let Some(metrics) = metrics {
        metrics.stop().await;
    }
    Ok(())
}
