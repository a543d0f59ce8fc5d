//! The HTTP server: routes mounted, middleware, the application's lifecycle (start, background jobs
//! beside it, graceful stop). The parts it serves are composed in `services`; its loops are in
//! `jobs`.

// The composition's entry points, where callers of the server's module have always found them.
use crate::config::Config;
use crate::deployment::{self};
use crate::http::body_deadline::{self, BodyReadTimeout, limit_body_read_time};
use crate::http::contract_version::contract_version;
use crate::http::error::{ApiError, ErrorCode};
use crate::http::middleware::{RequestSpan, envelope_plain_errors, observe};
use crate::http::rate_limit::rate_limit;
use crate::http::read_your_writes::{READ_AFTER_HEADER, read_your_writes};
use crate::jobs::acceptance_sweep::spawn_acceptance_sweep;
use crate::jobs::billing_run::{BillingPasses, spawn_billing_run};
use crate::jobs::clock_sync::spawn_clock_sync;
use crate::jobs::deliveries::EngineTask;
use crate::jobs::deliveries::delivery_engine;
use crate::jobs::expiry::spawn_expiry;
use crate::jobs::recovery::spawn_recovery;
use crate::jobs::retention_schedule::spawn_retention_schedule;
use crate::lifecycle::MetricsListener;
use crate::routes;
use crate::scrape::Sampled;
use crate::services::Services;
use crate::services::operation_recovery;
use crate::services::read_pools;
use crate::services::replica_pools;
pub use crate::services::{StartupError, build_state, pix_psp, pool_settings};
use actix_cors::Cors;
use actix_web::dev::Server;
use actix_web::error::{JsonPayloadError, PayloadError};
use actix_web::http::header;
use actix_web::middleware::DefaultHeaders;
use actix_web::middleware::{ErrorHandlers, from_fn};
use actix_web::{App, HttpRequest, HttpServer, web};
use adapters_postgres::PgRateCounter;
use adapters_postgres::migrations::{self};
use contract_versions::AnswerShapes;
use std::net::TcpListener;
use std::sync::Arc;
use tracing_actix_web::TracingLogger;

/// The largest body the providers' callbacks may send (their events are a few KiB).
pub const CALLBACK_MAX_BODY_BYTES: usize = 64 * 1024;

/// Every route of the service: each module registers its own; this only mounts them.
pub fn routes(cfg: &mut web::ServiceConfig, sandbox: bool) {
    use routes::{
        acceptance, assets, auth, catalog, customer_requests, docs, ecommerce, health, hooks, pix, privacy, proposals,
        recovery, sandbox, signing, users,
    };
    // Resources, not method-guarded services: a wrong method on a known path answers 405.
    // Grouped in scopes by their first segment: a static prefix is compared as text, so a
    // request is matched against its own group's patterns only (each pattern with a parameter
    // is a regular expression). Within a group, the order is the spec's.
    cfg.configure(health::routes)
        .configure(auth::routes)
        .configure(recovery::routes)
        .service(web::scope("/customer").configure(proposals::customer_routes))
        .service(
            web::scope("/proposal")
                .configure(proposals::proposal_routes)
                .configure(signing::proposal_routes)
                .configure(customer_requests::proposal_routes)
                .configure(acceptance::proposal_routes),
        )
        .service(web::scope("/signer").configure(signing::signer_routes))
        .service(
            // Anyone can post here before being authenticated: small bodies only.
            web::scope("/callbacks")
                .app_data(web::PayloadConfig::new(CALLBACK_MAX_BODY_BYTES))
                .configure(signing::callback_routes)
                .configure(ecommerce::callback_routes),
        )
        .service(
            // The PSP's notifications: small bodies, like the other callbacks.
            web::scope("/pix")
                .app_data(web::PayloadConfig::new(CALLBACK_MAX_BODY_BYTES))
                .configure(pix::routes),
        )
        .service(web::scope("/ecommerce").configure(ecommerce::routes))
        .service(web::scope("/hooks").configure(hooks::routes))
        .service(web::scope("/privacy").configure(privacy::routes))
        .service(web::scope("/users").configure(users::routes))
        .service(web::scope("/console").configure(crate::console::routes))
        .service(web::scope("/billingGroup").configure(catalog::billing_group_routes))
        .service(web::scope("/product").configure(catalog::product_routes))
        .configure(customer_requests::routes)
        .configure(auth::key_routes)
        .configure(docs::routes)
        .configure(assets::routes)
        .configure(crate::person_pages::routes);
    if sandbox {
        cfg.configure(sandbox::routes);
    }
}

pub(crate) fn json_error(error: JsonPayloadError, _: &HttpRequest) -> actix_web::Error {
    let code = match &error {
        JsonPayloadError::Overflow { .. }
        | JsonPayloadError::OverflowKnownLength { .. }
        | JsonPayloadError::Payload(PayloadError::Overflow) => ErrorCode::PayloadTooLarge,
        JsonPayloadError::Payload(late) if body_deadline::is_late(late) => ErrorCode::BodyTimeout,
        JsonPayloadError::ContentType => ErrorCode::UnsupportedMediaType,
        JsonPayloadError::Deserialize(_) | JsonPayloadError::Serialize(_) => ErrorCode::MalformedBody,
        _ => ErrorCode::BadRequest,
    };
    ApiError::new(code).into()
}

fn path_error(_: actix_web::error::PathError, _: &HttpRequest) -> actix_web::Error {
    ApiError::with_message(ErrorCode::BadRequest, "Parâmetro de caminho inválido.").into()
}

fn query_error(_: actix_web::error::QueryPayloadError, _: &HttpRequest) -> actix_web::Error {
    ApiError::with_message(ErrorCode::BadRequest, "Parâmetros de consulta inválidos.").into()
}

/// On every answer, unless its handler set its own: nothing is stored by a browser or a proxy
/// (answers carry tokens, secrets and personal data; the few public ones, like the JWKS, say
/// otherwise), no content type is guessed, and pages load only from here and are never framed.
fn security_headers() -> DefaultHeaders {
    DefaultHeaders::new()
        .add((header::CACHE_CONTROL, "no-store"))
        .add((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .add((
            header::CONTENT_SECURITY_POLICY,
            "default-src 'self'; frame-ancestors 'none'",
        ))
}

/// Browsers may call us only from the configured origins; credentials are never allowed (the API
/// uses bearer tokens, not cookies), so a wildcard can never leak a session.
fn cors(origins: &[String]) -> Cors {
    let mut cors = Cors::default()
        .allowed_methods(["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"])
        .allowed_headers([
            header::AUTHORIZATION,
            header::CONTENT_TYPE,
            header::ACCEPT,
            header::HeaderName::from_static(READ_AFTER_HEADER),
        ])
        .expose_headers(["x-request-id", "retry-after", READ_AFTER_HEADER])
        .max_age(3600);
    if origins.iter().any(|o| o == "*") {
        cors = cors.allow_any_origin().send_wildcard();
    } else {
        for origin in origins {
            cors = cors.allowed_origin(origin);
        }
    }
    cors
}

/// A bound, not yet running, HTTP server.
pub use actix_web::dev::ServerHandle;

pub struct Application {
    port: u16,
    server: Server,
    engine: Option<EngineTask>,
    metrics: Option<MetricsListener>,
    rate_flusher: Option<tokio::task::JoinHandle<()>>,
    /// The signing deadlines' expiry, every `SIGNATURE_EXPIRY_INTERVAL_MS`.
    expiry: tokio::task::JoinHandle<()>,
    /// The pending operations' recovery, every quarter of `OPERATION_RECOVERY_AFTER_MS`.
    recovery: tokio::task::JoinHandle<()>,
    /// The acceptance clocks' sweep, every `ACCEPTANCE_CHECK_INTERVAL_MS`, the billing's run,
    /// every `BILLING_RUN_INTERVAL_MS`, and (in development) the shared clock's reading.
    acceptance: Vec<tokio::task::JoinHandle<()>>,
    /// The retention schedule, every `RETENTION_CHECK_INTERVAL_MS`.
    retention: tokio::task::JoinHandle<()>,
    shutdown_timeout: std::time::Duration,
}

impl Application {
    /// Migrates (unless told not to), builds everything and binds `BIND_ADDR` (port 0 picks one).
    pub async fn build(config: Config) -> Result<Self, StartupError> {
        deployment::refuse_unsafe(&config).map_err(|e| StartupError::Config(e.0))?;
        deployment::announce(&config);
        if config.server.migrate_on_start {
            let applied = migrations::run_pending(config.session_url()).await?;
            if !applied.is_empty() {
                tracing::info!(?applied, "migrations applied");
            }
        }
        let services = Services::build(&config)?;
        let pool = services.pool.clone();
        let mut sampled = Sampled {
            pools: vec![("api".to_owned(), pool.clone())],
            queue: pool.clone(),
            operation_recovery_after: config.outside.operation_recovery_after,
            development_clock: services.development.clone(),
        };
        let engine = if config.hooks.run_worker {
            let (engine, engine_pool) = delivery_engine(&config)?;
            sampled.pools.push(("webhooks".to_owned(), engine_pool));
            Some(EngineTask::start(engine))
        } else {
            None
        };
        let replicas = replica_pools(&config)?;
        sampled.pools.extend(
            replicas
                .iter()
                .enumerate()
                .map(|(index, pool)| (adapters_postgres::replicas::replica_label(index), pool.clone())),
        );
        // Installs the recorder: what takes metrics' handles at its start comes after.
        let metrics = MetricsListener::start(&config, sampled)?;
        let reads = read_pools(&config, &pool, replicas);
        // The rate limits' counts, added to the shared ones a few times a second.
        let rate_counter = config
            .server
            .rate_limit
            .map(|settings| PgRateCounter::new(pool.clone()).with_max_keys(settings.max_keys));
        let rate_flusher = rate_counter
            .as_ref()
            .zip(config.server.rate_limit)
            .map(|(counter, settings)| counter.spawn_flusher(settings.sync_interval));
        let rate_counter = rate_counter.map(|c| Arc::new(c) as Arc<dyn domain::rate_limit::RateCounter>);
        let state = web::Data::new(services.state(reads.clone(), rate_counter)?);
        let reads = web::Data::new(reads);
        let expiry = spawn_expiry(state.signing.clone(), config.outside.signature.expiry_interval);
        let recovery = spawn_recovery(
            operation_recovery(
                &config,
                &state.signing,
                &state.ecommerce,
                &state.withdrawal,
                &state.settlement,
                state.pix.as_ref().map(|p| &p.collection),
                crate::services::BackgroundFinishers::of(&services)?,
            ),
            config.outside.operation_recovery_after,
        );
        let development = services.development.clone();
        let retention = spawn_retention_schedule(
            services.retention(services.rules_clock())?,
            config.privacy.retention_check_interval,
        );
        let acceptance = std::iter::once(spawn_acceptance_sweep(
            state.acceptance.clone(),
            services.collection(services.rules_clock())?,
            state.certificates.clone(),
            development.clone(),
            config.outside.acceptance_check_interval,
        ))
        .chain(std::iter::once(spawn_billing_run(
            BillingPasses {
                averbacao: services.averbacao(services.rules_clock()),
                billing: services.billing(services.rules_clock()),
                arrears: services.arrears(services.rules_clock(), Arc::new(state.settlement.clone()))?,
                terms: services.terms(services.rules_clock(), Arc::new(state.settlement.clone()))?,
                pix: state.pix.as_ref().map(|p| p.collection.clone()),
                settlement: state.settlement.clone(),
                ledger: services.ledger_check(services.rules_clock()),
            },
            config.outside.billing_run_interval,
        )))
        .chain(spawn_clock_sync(development))
        .collect();
        let listener = TcpListener::bind(config.server.bind_addr).map_err(|source| StartupError::Bind {
            addr: config.server.bind_addr.to_string(),
            source,
        })?;
        let port = listener
            .local_addr()
            .map_err(|source| StartupError::Bind {
                addr: config.server.bind_addr.to_string(),
                source,
            })?
            .port();
        let max_body = config.server.max_body_bytes;
        let body_read_timeout = web::Data::new(BodyReadTimeout(config.server.body_read_timeout));
        let origins = config.server.cors_allowed_origins.clone();
        // The sandboxes' pages exist only in development (each answers 404 while its sandbox is not
        // the one in use).
        let sandbox = state.sandbox.is_some() || state.sandbox_payments.is_some();
        // Where each change between contract versions applies, read once from the newest document.
        let answer_shapes = web::Data::new(AnswerShapes::from_document(routes::docs::document()));
        let server = HttpServer::new(move || {
            App::new()
                .app_data(state.clone())
                .app_data(answer_shapes.clone())
                .app_data(reads.clone())
                .app_data(web::JsonConfig::default().limit(max_body).error_handler(json_error))
                .app_data(web::PayloadConfig::new(max_body))
                .app_data(body_read_timeout.clone())
                .app_data(web::PathConfig::default().error_handler(path_error))
                .app_data(web::QueryConfig::default().error_handler(query_error))
                .wrap(from_fn(read_your_writes))
                .wrap(from_fn(rate_limit))
                .wrap(from_fn(contract_version))
                .wrap(from_fn(limit_body_read_time))
                .wrap(cors(&origins))
                .wrap(ErrorHandlers::new().default_handler(envelope_plain_errors))
                .wrap(security_headers())
                .wrap(from_fn(observe))
                .wrap(TracingLogger::<RequestSpan>::new())
                .configure(|cfg| routes(cfg, sandbox))
                .default_service(web::to(routes::not_found))
        })
        .workers(config.server.workers)
        .shutdown_timeout(config.server.shutdown_timeout.as_secs())
        .listen(listener)
        .map_err(|source| StartupError::Bind {
            addr: config.server.bind_addr.to_string(),
            source,
        })?
        .run();
        Ok(Self {
            port,
            server,
            engine,
            metrics,
            rate_flusher,
            expiry,
            recovery,
            acceptance,
            retention,
            shutdown_timeout: config.server.shutdown_timeout,
        })
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// The metrics listener's port, when it is on.
    pub fn metrics_port(&self) -> Option<u16> {
        self.metrics.as_ref().map(|m| m.port)
    }

    /// Serves until SIGTERM or SIGINT, then finishes the requests in flight (up to
    /// `SHUTDOWN_TIMEOUT_SECS`) before returning.
    pub async fn run_until_stopped(self) -> std::io::Result<()> {
        let served = self.server.await;
        if let Some(flusher) = self.rate_flusher {
            flusher.abort();
        }
        self.expiry.abort();
        self.recovery.abort();
        for task in &self.acceptance {
            task.abort();
        }
        self.retention.abort();
        if let Some(engine) = self.engine {
            engine.stop(self.shutdown_timeout).await;
        }
        if let Some(metrics) = self.metrics {
            metrics.stop().await;
        }
        served
    }

    pub fn handle(&self) -> actix_web::dev::ServerHandle {
        self.server.handle()
    }
}
