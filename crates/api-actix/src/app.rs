//! Wiring: configuration in, adapters built, use cases assembled, routes served. The only place that
//! knows every concrete type.

use crate::config::Config;
use crate::deployment::{self, Environment};
use crate::http::body_deadline::{self, BodyReadTimeout, limit_body_read_time};
use crate::http::contract_version::contract_version;
use crate::http::error::{ApiError, ErrorCode};
use crate::http::middleware::{RequestSpan, envelope_plain_errors, observe};
use crate::http::rate_limit::rate_limit;
use crate::http::read_your_writes::{READ_AFTER_HEADER, read_your_writes};
use crate::routes;
use crate::scrape::{self, Sampled};
use crate::security::hook_keys::hook_keys;
use crate::security::jwt::{JwtTokenService, KeyError};
use crate::security::no_session_check::NoSessionCheck;
use crate::security::password::BcryptHasher;
use crate::security::secrets::OsSecretGenerator;
use crate::state::AppState;
use actix_cors::Cors;
use actix_web::dev::Server;
use actix_web::error::{JsonPayloadError, PayloadError};
use actix_web::http::header;
use actix_web::middleware::DefaultHeaders;
use actix_web::middleware::{ErrorHandlers, from_fn};
use actix_web::{App, HttpRequest, HttpServer, web};
use adapters_mailer::{BackgroundMailer, Delivery};
use adapters_payment::{SandboxGateway, StripeGateway, StripeSettings};
use adapters_postgres::migrations::{self, MigrationError};
use adapters_postgres::pool::PoolBuildError;
use adapters_postgres::{
    CachedCatalog, CachedSessions, PgAccounts, PgCatalog, PgCustomerRequests, PgPool, PgProposals, PgReadiness,
    PgRecovery, PgSessions, PgSignatures, PoolSettings, ReadPools, ReplicaPolicy, build_pool,
};
use adapters_postgres::{PgAcceptance, PgClockShift};
use adapters_postgres::{
    PgDeliveryWakeups, PgEcommerce, PgExpiredRecords, PgHooks, PgOperations, PgRateCounter, PgSandboxLedger,
};
use adapters_signature::{ClicksignProvider, ClicksignSettings, PdfRenderer, SandboxProvider, SandboxSigningPages};
use adapters_webhooks::{AddressPolicy, HttpWebhookSender, SenderSettings};
use contract_versions::AnswerShapes;
use domain::acceptance::service::AcceptanceService;
use domain::auth::ports::HashError;
use domain::auth::sign_in::{Authenticator, SignInService};
use domain::catalog::CatalogService;
use domain::catalog::ports::CatalogStore;
use domain::certificates::CertificateService;
use domain::clock::SystemClock;
use domain::ecommerce::EcommerceService;
use domain::hooks::{DeliveryEngine, HookService};
use domain::privacy::retention::RetentionService;
use domain::proposals::operations::{OperationRecovery, RecoveryPass};
use domain::proposals::service::ProposalService;
use domain::proposals::signing::SigningService;
use domain::recovery::RecoveryService;
use std::net::TcpListener;
use std::sync::Arc;
use tracing_actix_web::TracingLogger;

#[derive(Debug, thiserror::Error)]
pub enum StartupError {
    #[error("{0}")]
    Config(String),
    #[error(transparent)]
    Keys(#[from] KeyError),
    #[error(transparent)]
    HookKeys(#[from] crate::security::hook_keys::HookKeyError),
    #[error(transparent)]
    Pool(#[from] PoolBuildError),
    #[error(transparent)]
    Migration(#[from] MigrationError),
    #[error("não foi possível abrir {addr}: {source}")]
    Bind { addr: String, source: std::io::Error },
    #[error(transparent)]
    Hash(#[from] HashError),
    #[error(transparent)]
    Mailer(#[from] adapters_mailer::MailerError),
    #[error(transparent)]
    Webhooks(#[from] adapters_webhooks::SenderBuildError),
}

/// A callback key when the configuration has none: random per start (sandboxes only; production
/// refuses to start without one).
fn given_or_random(secret: &Option<Vec<u8>>) -> Vec<u8> {
    secret.clone().unwrap_or_else(|| {
        use rand::RngCore;
        let mut random = vec![0u8; 32];
        rand::rngs::OsRng.fill_bytes(&mut random);
        random
    })
}

fn webhook_sender(config: &Config) -> Result<HttpWebhookSender, StartupError> {
    Ok(HttpWebhookSender::new(SenderSettings {
        connect_timeout: config.hooks.connect_timeout,
        request_timeout: config.hooks.request_timeout,
        policy: AddressPolicy::new(config.hooks.allowed_cidrs.clone()),
    })?)
}

/// Connections of the delivery engine's own pool: HTTP traffic and deliveries never wait for
/// each other's connections.
const ENGINE_POOL_MAX: usize = 8;

/// The delivery engine over the shared queue, with a pool of its own (returned too, for the
/// metrics); run it with [`DeliveryEngine::run`]. Must be called inside the tokio runtime (it starts the `LISTEN`
/// connection).
pub fn delivery_engine(config: &Config) -> Result<(DeliveryEngine, PgPool), StartupError> {
    let pool = build_pool(&PoolSettings {
        max_size: config.database.pool.max_size.min(ENGINE_POOL_MAX),
        // Leases and attempts lost in a database crash only make a delivery go out again.
        relaxed_commit: true,
        ..pool_settings(config)
    })?;
    let engine = DeliveryEngine {
        queue: Arc::new(PgHooks::new(pool.clone(), &hook_keys(config)?)),
        sender: Arc::new(webhook_sender(config)?),
        wakeups: Arc::new(PgDeliveryWakeups::start(config.session_url())),
        expired: Arc::new(PgExpiredRecords::new(pool.clone())),
        retention: config.retention(),
        clock: Arc::new(SystemClock),
        policy: config.hooks.delivery.clone(),
    };
    Ok((engine, pool))
}

pub fn pool_settings(config: &Config) -> PoolSettings {
    PoolSettings {
        url: config.database.url.clone(),
        max_size: config.database.pool.max_size,
        wait_timeout: config.database.pool.wait,
        connect_timeout: config.database.pool.connect,
        statement_timeout: config.database.pool.statement,
        relaxed_commit: false,
        through_pooler: config.behind_pooler(),
    }
}

/// Builds the adapters and the use cases over one pool. Runs inside a tokio runtime: the
/// catalog's change listener starts on it.
pub fn build_state(
    config: &Config,
    pool: PgPool,
    rate_counter: Option<Arc<dyn domain::rate_limit::RateCounter>>,
) -> Result<AppState, StartupError> {
    let reads = read_pools(config, &pool, replica_pools(config)?);
    build_state_reading_from(config, pool, reads, rate_counter)
}

/// A pool per `DATABASE_READ_URLS` replica (lazy: nothing is opened yet).
pub fn replica_pools(config: &Config) -> Result<Vec<PgPool>, StartupError> {
    config
        .database
        .read_replicas
        .urls
        .iter()
        .map(|url| {
            Ok(build_pool(&PoolSettings {
                url: url.clone(),
                ..pool_settings(config)
            })?)
        })
        .collect()
}

/// Where reads that may be a little behind go: the replicas, watched from now on; without any,
/// the primary.
pub fn read_pools(config: &Config, primary: &PgPool, replicas: Vec<PgPool>) -> ReadPools {
    if replicas.is_empty() {
        return ReadPools::primary_only(primary.clone());
    }
    ReadPools::start(
        primary.clone(),
        replicas,
        ReplicaPolicy {
            max_lag: config.database.read_replicas.max_lag,
            ..ReplicaPolicy::default()
        },
    )
}

/// [`build_state`] with its reads routed through `reads` ([`read_pools`]).
pub fn build_state_reading_from(
    config: &Config,
    pool: PgPool,
    reads: ReadPools,
    rate_counter: Option<Arc<dyn domain::rate_limit::RateCounter>>,
) -> Result<AppState, StartupError> {
    let key_file = config
        .tokens
        .jwt
        .private_key_file
        .as_ref()
        .ok_or_else(|| StartupError::Config("JWT_PRIVATE_KEY_FILE: variável obrigatória ausente".into()))?;
    let tokens = Arc::new(JwtTokenService::from_files(
        key_file,
        &config.tokens.jwt.previous_public_key_files,
        &config.tokens.jwt.issuer,
        &config.tokens.jwt.audience,
    )?);
    let jwks = serde_json::json!({ "keys": tokens.jwks() });
    let accounts = Arc::new(PgAccounts::new(pool.clone()));
    let hasher = Arc::new(BcryptHasher::new(
        config.tokens.bcrypt_cost,
        config.tokens.bcrypt_max_concurrent,
    )?);
    let mailer = mailer(config)?;
    let outbox: Arc<dyn domain::mail::MailOutbox> = mailer.clone();
    let recovery = RecoveryService {
        users: accounts.clone(),
        store: Arc::new(PgRecovery::new(pool.clone())),
        hasher: hasher.clone(),
        secrets: Arc::new(OsSecretGenerator),
        outbox: outbox.clone(),
        throttle: accounts.clone(),
        clock: Arc::new(SystemClock),
        policy: config.tokens.recovery.clone(),
        password_policy: config.tokens.password_policy,
    };
    let sessions = PgSessions::new(pool.clone());
    let cached_sessions = match (config.tokens.sessions.check, config.tokens.sessions.cache_entries) {
        (true, entries) if entries > 0 => Some(CachedSessions::start(sessions.clone(), config.session_url(), entries)),
        _ => None,
    };
    // The operator's changes are read by this instance's next request (its own kept answers
    // dropped at once); the others drop theirs on the notification.
    let users = domain::users::AdministerUsers {
        store: match &cached_sessions {
            Some(cached) => Arc::new(adapters_postgres::ForgettingAdministration {
                inner: accounts.clone(),
                sessions: cached.clone(),
            }),
            None => accounts.clone(),
        },
    };
    let sign_in = SignInService {
        users: accounts.clone(),
        hasher,
        tokens: tokens.clone(),
        sessions: Arc::new(sessions.clone()),
        throttle: accounts,
        clock: Arc::new(SystemClock),
        policy: config.tokens.signin_throttle,
    };
    let authenticator = Authenticator {
        tokens,
        sessions: match (config.tokens.sessions.check, cached_sessions) {
            (false, _) => Arc::new(NoSessionCheck),
            (true, Some(cached)) => Arc::new(cached),
            (true, None) => Arc::new(sessions),
        },
    };
    let stores = Arc::new(PgProposals::new(pool.clone()).reading_from(reads.clone()));
    let catalog = PgCatalog::new(pool.clone()).reading_from(reads.clone());
    let catalog_store: Arc<dyn CatalogStore> = match config.database.catalog_cache_entries {
        0 => Arc::new(catalog),
        entries => Arc::new(CachedCatalog::start(catalog, config.session_url(), entries)),
    };
    let proposals = ProposalService {
        proposals: stores.clone(),
        customers: stores.clone(),
        catalog: catalog_store.clone(),
        partners: stores.clone(),
        clock: Arc::new(SystemClock),
        rules: config.customer_rules,
    };
    let catalog = CatalogService { store: catalog_store };
    let callback_secret = given_or_random(&config.outside.signature.callback_secret);
    let mut signing = signing_service(config, &pool, stores.clone(), &callback_secret)?;
    // In development the clock the right of regret and the acceptance deadlines are judged by
    // can be moved forward (`POST /sandbox/clock`), for every instance at once.
    let shifted_clock = development_clock(config, &pool);
    let rules_clock = rules_clock(&shifted_clock);
    let pix = pix_collection(config, &pool, signing.claims.clone(), rules_clock.clone())?;
    signing.after_signing = pix.as_ref().map(|(collection, _)| after_signing(collection));
    let payments = payment_services(
        config,
        &pool,
        stores.clone(),
        &signing,
        rules_clock.clone(),
        outbox.clone(),
        pix_refunds(&pix),
    )?;
    // The legal holds are judged by the same clock (a hold's end can be lived through in tests).
    let privacy_clock = rules_clock.clone();
    let acceptance = acceptance_service(&pool, rules_clock);
    let sandbox_payments = shifted_clock.map(|clock| crate::state::SandboxPayments {
        gateway: payments.sandbox_gateway.clone(),
        clock,
    });
    let (ecommerce, withdrawal, settlement) = (payments.ecommerce, payments.withdrawal, payments.settlement);
    let subject_mail = mailer.clone();
    let certificates = certificate_service(&pool, mailer);
    // The service's sealing keys: webhook secrets, kept idempotent answers and the digests that
    // find a person's answers.
    let sealing_keys = hook_keys(config)?;
    let sealer = sealing_keys.sealer();
    let hooks = HookService {
        store: Arc::new(PgHooks::new(pool.clone(), &sealing_keys)),
        partners: stores.clone(),
        guard: Arc::new(webhook_sender(config)?),
        keys: Arc::new(OsSecretGenerator),
        clock: Arc::new(SystemClock),
        rotation_grace: config.hooks.rotation_grace,
        max_subscriptions_per_owner: config.hooks.max_subscriptions_per_owner,
        max_replay_deliveries: config.hooks.replay_max_deliveries,
        // The sender's timeouts, the workers' wake-up and a margin for recording the attempt.
        test_outcome_wait: config.hooks.connect_timeout
            + config.hooks.request_timeout
            + config.hooks.delivery.poll_interval
            + std::time::Duration::from_secs(1),
    };
    // The sandbox provider's pages: development only, and only while it is the provider.
    let sandbox = (config.server.environment == Environment::Development
        && config.outside.signature.clicksign.is_none())
    .then(|| SandboxSigningPages {
        signing: signing.clone(),
        signatures: signing.signatures.clone(),
        proposals: signing.proposals.clone(),
        clock: Arc::new(SystemClock),
    });
    let idempotency = domain::idempotency::Idempotency {
        store: Arc::new(adapters_postgres::PgIdempotency::new(pool.clone(), sealer.clone())),
        clock: Arc::new(SystemClock),
        policy: domain::idempotency::IdempotencyPolicy::default(),
    };
    let privacy = domain::privacy::PrivacyService {
        store: Arc::new(adapters_postgres::PgPersonalData::new(pool.clone(), sealer).reading_from(reads.clone())),
        // The same platform the sales go through: its customers of the person are redacted.
        gateway: ecommerce.gateway.clone(),
        schedule: config.privacy.schedule,
        clock: privacy_clock.clone(),
    };
    let subject_requests = domain::privacy::subject_requests::SubjectRequestService {
        store: Arc::new(adapters_postgres::PgSubjectRequests::new(pool.clone())),
        privacy: privacy.clone(),
        mail: subject_mail,
        clock: privacy_clock.clone(),
    };
    let debit_revocation = domain::billing::revocation::RevocationService {
        proposals: stores.clone(),
        partners: stores.clone(),
        store: Arc::new(adapters_postgres::PgDebits::new(pool.clone())),
        clock: privacy_clock.clone(),
    };
    let refund_destinations = domain::refunds::destinations::RefundDestinationService {
        proposals: stores.clone(),
        partners: stores.clone(),
        store: Arc::new(adapters_postgres::refunds::PgRefunds::new(pool.clone())),
        mail: outbox.clone(),
        clock: privacy_clock.clone(),
    };
    let debits = debits_service(config, &pool, privacy_clock);
    let pix = pix.map(|(collection, sandbox)| crate::state::PixState {
        collection,
        webhook: config.outside.pix_webhook.clone(),
        sandbox,
    });
    Ok(AppState {
        users,
        pix,
        subject_requests,
        debits,
        debit_revocation,
        refund_destinations,
        sandbox,
        acceptance,
        withdrawal,
        settlement,
        certificates,
        sandbox_payments,
        hooks,
        privacy,
        idempotency,
        sign_in,
        proposals,
        catalog,
        recovery,
        signing,
        ecommerce,
        authenticator,
        readiness: Arc::new(PgReadiness(pool)),
        jwks,
        trusted_proxies: config.server.trusted_proxies.clone(),
        rate_limiter: config.server.rate_limit.zip(rate_counter).map(|(settings, counter)| {
            domain::rate_limit::RateLimiter {
                limit: settings.per_minute,
                counter,
                clock: Arc::new(SystemClock),
            }
        }),
    })
}

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
        .configure(assets::routes);
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

/// The delivery engine running beside the HTTP server, and the switch that stops it.
struct EngineTask {
    stop: tokio::sync::oneshot::Sender<()>,
    task: tokio::task::JoinHandle<()>,
}

impl EngineTask {
    fn start(engine: DeliveryEngine) -> Self {
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let task = tokio::spawn(async move {
            engine
                .run(async move {
                    let _ = stopped.await;
                })
                .await;
        });
        Self { stop, task }
    }

    /// Stops claiming and waits (up to `timeout`) for the requests in flight.
    async fn stop(self, timeout: std::time::Duration) {
        let _ = self.stop.send(());
        if tokio::time::timeout(timeout, self.task).await.is_err() {
            tracing::warn!("webhook deliveries still in flight at shutdown; their leases will expire");
        }
    }
}

/// The signing use case over the pool: the configured provider (Clicksign, or the sandbox at
/// `PUBLIC_URL`) and the stores. `serve` answers routes 12 and 13 with it; `serve` and `worker`
/// both expire the proposals past their signing deadline with it.
fn signing_service(
    config: &Config,
    pool: &PgPool,
    stores: Arc<PgProposals>,
    callback_secret: &[u8],
) -> Result<SigningService, StartupError> {
    Ok(SigningService {
        proposals: stores.clone(),
        partners: stores,
        signatures: Arc::new(PgSignatures::new(pool.clone())),
        provider: match &config.outside.signature.clicksign {
            Some((url, token)) => Arc::new(
                ClicksignProvider::new(ClicksignSettings {
                    remind_interval: config.outside.signature.remind_interval_days,
                    ..ClicksignSettings::new(url, token, callback_secret)
                })
                .map_err(|e| StartupError::Config(format!("CLICKSIGN_BASE_URL: {e}")))?,
            ),
            None => Arc::new(SandboxProvider::new(&config.server.public_url, callback_secret)),
        },
        requests: Arc::new(PgCustomerRequests::new(pool.clone())),
        renderer: Arc::new(PdfRenderer),
        claims: Arc::new(PgOperations::new(pool.clone())),
        clock: Arc::new(SystemClock),
        max_resends: config.outside.signature.max_resends,
        signing_deadline: config.outside.signature.deadline,
        callback_max_age: chrono::Duration::from_std(config.retention().callback_replay_window())
            .unwrap_or(chrono::Duration::days(15)),
        after_signing: None,
    })
}

/// The development clock (`SALES_ENV=development` only): shifted by `POST /sandbox/clock`, the
/// shift kept in the database so that every instance, the worker and the command line judge by
/// the same time.
pub fn development_clock(config: &Config, pool: &PgPool) -> Option<crate::state::DevelopmentClock> {
    (config.server.environment == Environment::Development).then(|| crate::state::DevelopmentClock {
        clock: Arc::new(domain::clock::ShiftedClock::default()),
        store: Arc::new(PgClockShift::new(pool.clone())),
    })
}

/// The clock the time-bound rules (regret, acceptance) are judged by: the development one when
/// there is one, else the machine's.
fn rules_clock(development: &Option<crate::state::DevelopmentClock>) -> Arc<dyn domain::clock::Clock> {
    match development {
        Some(dev) => dev.clock.clone(),
        None => Arc::new(SystemClock),
    }
}

pub fn acceptance_service(pool: &PgPool, clock: Arc<dyn domain::clock::Clock>) -> AcceptanceService {
    AcceptanceService {
        store: Arc::new(PgAcceptance::new(pool.clone())),
        partners: Arc::new(PgProposals::new(pool.clone())),
        clock,
    }
}

/// Reads the development clock's shared shift again every second, so that a move made through
/// another instance reaches this one.
fn spawn_clock_sync(clock: Option<crate::state::DevelopmentClock>) -> Option<tokio::task::JoinHandle<()>> {
    let clock = clock?;
    Some(tokio::spawn(async move {
        let mut ticks = tokio::time::interval(std::time::Duration::from_secs(1));
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            ticks.tick().await;
            if let Err(error) = clock.refresh().await {
                tracing::warn!(%error, "development clock not read");
            }
        }
    }))
}

/// Settles the acceptance clocks due every `interval` (tacit acceptance or overdue). Every
/// instance runs it: the store claims each due clock for one pass only (`FOR UPDATE SKIP LOCKED`).
fn spawn_acceptance_sweep(
    acceptance: AcceptanceService,
    certificates: CertificateService,
    clock: Option<crate::state::DevelopmentClock>,
    interval: std::time::Duration,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut ticks = tokio::time::interval(interval);
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            ticks.tick().await;
            // The development clock as every instance now sees it.
            if let Some(clock) = &clock
                && let Err(error) = clock.refresh().await
            {
                tracing::warn!(%error, "development clock not read");
            }
            match acceptance.sweep().await {
                Ok(report) if report.accepted.is_empty() && report.overdue.is_empty() => {}
                Ok(report) => tracing::info!(
                    accepted = report.accepted.len(),
                    overdue = report.overdue.len(),
                    "acceptance clocks settled"
                ),
                Err(error) => tracing::warn!(%error, "acceptance clocks could not be checked"),
            }
            // The contracts accepted since (by the analysts or by this sweep) get their
            // certificate.
            match certificates.deliver_due().await {
                Ok(pass) if pass.delivered.is_empty() && pass.failed.is_empty() => {}
                Ok(pass) => tracing::info!(
                    delivered = pass.delivered.len(),
                    failed = pass.failed.len(),
                    "certificates issued and mailed"
                ),
                Err(error) => tracing::warn!(%error, "certificates due could not be read"),
            }
        }
    })
}

/// The certificates of accepted contracts, rendered as the proposals are and mailed with `mail`.
pub fn certificate_service(pool: &PgPool, mail: Arc<dyn domain::mail::MailSender>) -> CertificateService {
    let stores = Arc::new(PgProposals::new(pool.clone()));
    CertificateService {
        store: Arc::new(adapters_postgres::certificates::PgCertificates::new(pool.clone())),
        proposals: stores.clone(),
        partners: stores,
        renderer: Arc::new(PdfRenderer),
        mail,
        clock: Arc::new(SystemClock),
    }
}

/// Outgoing mail: by SMTP when `SMTP_URL` is set, else `.eml` files under `MAIL_DIR`.
pub fn mailer(config: &Config) -> Result<Arc<BackgroundMailer>, StartupError> {
    let delivery = match &config.outside.mail.smtp_url {
        Some(url) => Delivery::smtp(url)?,
        None => Delivery::files(&config.outside.mail.directory)?,
    };
    Ok(Arc::new(BackgroundMailer::new(delivery, &config.outside.mail.from)?))
}

/// The use cases that move money on the payment platform (Stripe, or the sandbox platform in
/// development), sharing one gateway.
struct PaymentServices {
    ecommerce: EcommerceService,
    withdrawal: domain::proposals::withdrawal::WithdrawalService,
    settlement: domain::proposals::settlement::SettlementService,
    /// The sandbox platform, while it is the platform.
    sandbox_gateway: Option<Arc<SandboxGateway>>,
}

/// The payment platform: Stripe's API with `STRIPE_SECRET_KEY`, else the sandbox (development),
/// which is then also returned as itself.
type Gateways = (Arc<dyn domain::ecommerce::PaymentGateway>, Option<Arc<SandboxGateway>>);

fn payment_gateway(config: &Config, pool: &PgPool) -> Result<Gateways, StartupError> {
    let payment_webhook_secret = given_or_random(&config.outside.payment_webhook_secret);
    Ok(match &config.outside.stripe {
        Some((base, key)) => (
            Arc::new(
                StripeGateway::new(StripeSettings::new(base, key, &payment_webhook_secret))
                    .map_err(|e| StartupError::Config(format!("STRIPE_SECRET_KEY: {e}")))?,
            ),
            None,
        ),
        None => {
            let sandbox = Arc::new(SandboxGateway::new(
                Arc::new(PgSandboxLedger::new(pool.clone())),
                &payment_webhook_secret,
            ));
            (sandbox.clone(), Some(sandbox))
        }
    })
}

/// Pix Automático's PSP (issue 46) and, in development, the sandbox PSP itself (its payer's and
/// bank's moves on demand).
pub struct PixPsps {
    pub psp: Arc<dyn domain::billing::pix::PixPsp>,
    pub sandbox: Option<Arc<adapters_payment::pix::SandboxPsp>>,
}

/// The payee's PSP over the API Pix with `PIX_*` (its certificate and key read now, so that a
/// start with unreadable ones fails naming them); without them, the sandbox PSP in development,
/// nothing in production (Pix Automático not offered).
pub fn pix_psp(
    config: &Config,
    pool: &PgPool,
    clock: Arc<dyn domain::clock::Clock>,
) -> Result<Option<PixPsps>, StartupError> {
    use adapters_payment::pix::{HttpsTransport, PixClient, PixSchema, PixSettings, ReceiverAccount, SandboxPsp};
    let receiver = |r: &crate::config::ReceiverAccountConfig| ReceiverAccount {
        agencia: r.agencia.clone(),
        conta: r.conta.clone(),
        tipo_conta: r.tipo_conta.clone(),
    };
    if let Some(pix) = &config.outside.pix {
        let read = |var: &str, path: &std::path::Path| {
            std::fs::read(path).map_err(|e| StartupError::Config(format!("{var}: {} ilegível: {e}", path.display())))
        };
        let transport = HttpsTransport::new(PixSettings {
            base_url: pix.api_base.clone(),
            token_url: pix.token_url.clone(),
            client_id: pix.client_id.clone(),
            client_secret: pix.client_secret.clone(),
            certificate_pem: read("PIX_CERT_FILE", &pix.cert_file)?,
            key_pem: read("PIX_KEY_FILE", &pix.key_file)?,
            ca_pem: pix
                .ca_file
                .as_deref()
                .map(|path| read("PIX_CA_FILE", path))
                .transpose()?,
            connect_timeout: std::time::Duration::from_secs(5),
            timeout: std::time::Duration::from_secs(30),
        })
        .map_err(|e| StartupError::Config(format!("PIX_CERT_FILE, PIX_KEY_FILE, PIX_CA_FILE: {e}")))?;
        let client = PixClient::new(Arc::new(transport), receiver(&pix.receiver), clock);
        return Ok(Some(PixPsps {
            psp: Arc::new(client),
            sandbox: None,
        }));
    }
    if config.server.environment != Environment::Development {
        return Ok(None);
    }
    let schema = PixSchema::load().map_err(StartupError::Config)?;
    let sandbox = Arc::new(SandboxPsp::new(
        Arc::new(PgSandboxLedger::new(pool.clone())),
        Arc::new(schema),
        clock.clone(),
    ));
    let account =
        crate::config::parse_receiver_account(crate::config::SANDBOX_RECEIVER_ACCOUNT).map_err(StartupError::Config)?;
    let client = PixClient::new(sandbox.clone(), receiver(&account), clock);
    Ok(Some(PixPsps {
        psp: Arc::new(client),
        sandbox: Some(sandbox),
    }))
}

/// The retention schedule (issue 47), judged by `clock`; the people it anonymises whole are
/// redacted from the payment platform as the back office's anonymisation does.
pub fn retention_service(
    config: &Config,
    pool: &PgPool,
    clock: Arc<dyn domain::clock::Clock>,
) -> Result<RetentionService, StartupError> {
    let sealer = hook_keys(config)?.sealer();
    let (gateway, _) = payment_gateway(config, pool)?;
    Ok(RetentionService {
        store: Arc::new(adapters_postgres::PgRetention::new(pool.clone(), sealer.clone())),
        personal_data: Arc::new(adapters_postgres::PgPersonalData::new(pool.clone(), sealer)),
        gateway,
        schedule: config.privacy.schedule,
        clock,
    })
}

/// The billing of accepted contracts (issue 46), judged by `clock`.
pub fn billing_service(
    pool: &PgPool,
    clock: Arc<dyn domain::clock::Clock>,
) -> domain::billing::service::BillingService {
    domain::billing::service::BillingService {
        store: Arc::new(adapters_postgres::PgBilling::new(pool.clone())),
        clock,
    }
}

/// Débito em conta's files (issue 46) under the configured agreements, judged by `clock`.
pub fn debits_service(
    config: &Config,
    pool: &PgPool,
    clock: Arc<dyn domain::clock::Clock>,
) -> domain::billing::debits::DebitsService {
    domain::billing::debits::DebitsService {
        store: Arc::new(adapters_postgres::PgDebits::new(pool.clone())),
        billing: billing_service(pool, clock.clone()),
        clock,
        agreements: config.outside.debit_agreements.clone(),
    }
}

/// Runs the billing every `interval`, the first pass at the start. Every instance runs it: each
/// contract's charges are created under its claim, once per period, and a status moves once.
fn spawn_billing_run(
    billing: domain::billing::service::BillingService,
    pix: Option<domain::billing::pix_collection::PixCollection>,
    settlement: domain::proposals::settlement::SettlementService,
    ledger: domain::ledger::check::LedgerCheck,
    interval: std::time::Duration,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut ticks = tokio::time::interval(interval);
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            ticks.tick().await;
            match billing.run().await {
                Ok(run) if run.created == 0 && run.moved.is_empty() => {}
                Ok(run) => tracing::info!(created = run.created, moved = run.moved.len(), "billing run"),
                Err(error) => tracing::warn!(%error, "billing run could not complete"),
            }
            // The Pix charges the run created, sent in their window (each under its claim).
            if let Some(pix) = &pix {
                match pix.run().await {
                    Ok(pass) if pass == Default::default() => {}
                    Ok(pass) => tracing::info!(?pass, "Pix collection pass"),
                    Err(error) => tracing::warn!(%error, "Pix collection pass could not complete"),
                }
            }
            // What a rail reported paid after its contract ended goes back (each under its claim).
            match settlement.give_back_late_payments().await {
                Ok(0) => {}
                Ok(given) => tracing::info!(given, "payments received after the end given back"),
                Err(error) => tracing::warn!(%error, "late payments' refunds could not complete"),
            }
            // The ledger's nightly check, by the first instance to take the day.
            match ledger.nightly().await {
                Ok(None) => {}
                Ok(Some(report)) if report.drift_count == 0 => {
                    tracing::info!(contracts = report.contracts, "ledger check: no drift")
                }
                Ok(Some(report)) => tracing::error!(
                    contracts = report.contracts,
                    drifts = report.drift_count,
                    drifted_contracts = report.drifted_contracts,
                    "ledger check: entries differ from the facts (sales-api ledger check --dry-run lists them)"
                ),
                Err(error) => tracing::warn!(%error, "ledger check could not complete"),
            }
        }
    })
}

/// The contracts' ledger check (issue 65), judged by `clock`.
pub fn ledger_check(pool: &PgPool, clock: Arc<dyn domain::clock::Clock>) -> domain::ledger::check::LedgerCheck {
    domain::ledger::check::LedgerCheck {
        store: Arc::new(adapters_postgres::ledger::PgLedger::new(pool.clone())),
        clock,
    }
}

/// The Pix collection and, in development, the sandbox PSP it runs against.
pub type PixWiring = (
    domain::billing::pix_collection::PixCollection,
    Option<Arc<adapters_payment::pix::SandboxPsp>>,
);

/// Pix Automático's collection over the configured PSP (the sandbox in development); `None`
/// where Pix is not offered. The sandbox PSP comes with it, for its on-demand moves.
pub fn pix_collection(
    config: &Config,
    pool: &PgPool,
    claims: Arc<dyn domain::proposals::operations::OperationClaims>,
    clock: Arc<dyn domain::clock::Clock>,
) -> Result<Option<PixWiring>, StartupError> {
    let Some(psps) = pix_psp(config, pool, clock.clone())? else {
        return Ok(None);
    };
    let collection = domain::billing::pix_collection::PixCollection {
        store: Arc::new(adapters_postgres::pix::PgPix::new(pool.clone())),
        claims,
        psp: psps.psp,
        billing: billing_service(pool, clock.clone()),
        clock,
    };
    Ok(Some((collection, psps.sandbox)))
}

fn after_signing(
    collection: &domain::billing::pix_collection::PixCollection,
) -> Arc<dyn domain::proposals::signing::AfterSigning> {
    Arc::new(collection.clone())
}

/// What a contract's end needs to give back Pix payments.
fn pix_refunds<S>(
    pix: &Option<(domain::billing::pix_collection::PixCollection, S)>,
) -> Option<domain::billing::pix_collection::PixRefunds> {
    pix.as_ref()
        .map(|(collection, _)| domain::billing::pix_collection::PixRefunds {
            store: collection.store.clone(),
            psp: collection.psp.clone(),
        })
}

/// Applies the retention schedule every `interval`. Every instance runs it: each person is taken
/// by one instance at a time.
fn spawn_retention_schedule(retention: RetentionService, interval: std::time::Duration) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        // The first pass one interval after the start: a fleet restarting does not run it at once.
        let mut ticks = tokio::time::interval_at(tokio::time::Instant::now() + interval, interval);
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            ticks.tick().await;
            // Each pass that changed something is recorded (the metrics sample the records) and
            // logged by the use case.
            if let Err(error) = retention.run(false).await {
                tracing::warn!(%error, "retention schedule could not be applied");
            }
        }
    })
}

fn payment_services(
    config: &Config,
    pool: &PgPool,
    stores: Arc<PgProposals>,
    signing: &SigningService,
    regret_clock: Arc<dyn domain::clock::Clock>,
    mail: Arc<dyn domain::mail::MailOutbox>,
    pix: Option<domain::billing::pix_collection::PixRefunds>,
) -> Result<PaymentServices, StartupError> {
    let (gateway, sandbox_gateway) = payment_gateway(config, pool)?;
    let index = price_index(config)?;
    let settlement = domain::proposals::settlement::SettlementService {
        signing: signing.clone(),
        proposals: stores.clone(),
        partners: stores.clone(),
        requests: signing.requests.clone(),
        gateway: gateway.clone(),
        index,
        refunds: Arc::new(adapters_postgres::refunds::PgRefunds::new(pool.clone())),
        claims: signing.claims.clone(),
        mail,
        pix,
        clock: regret_clock.clone(),
        refund_due_days: config.outside.refund_due_days,
    };
    Ok(PaymentServices {
        ecommerce: EcommerceService {
            store: Arc::new(PgEcommerce::new(pool.clone())),
            proposals: stores.clone(),
            partners: stores.clone(),
            gateway: gateway.clone(),
            claims: signing.claims.clone(),
            clock: Arc::new(SystemClock),
        },
        withdrawal: domain::proposals::withdrawal::WithdrawalService {
            settlement: settlement.clone(),
        },
        settlement,
        sandbox_gateway,
    })
}

/// The IPCA follows the platform: the Central Bank's series with the real one, the sandbox's
/// index with the sandbox (development only).
pub fn price_index(config: &Config) -> Result<Arc<dyn domain::refunds::ports::PriceIndex>, StartupError> {
    Ok(match &config.outside.stripe {
        Some(_) => Arc::new(
            adapters_payment::BcbIpca::new(&config.outside.ipca_series_url)
                .map_err(|e| StartupError::Config(format!("IPCA_SERIES_URL: {e}")))?,
        ),
        None => Arc::new(adapters_payment::SandboxIpca),
    })
}

/// The worker's pass over operations left pending by a request that died, for the use cases
/// that own them.
fn operation_recovery(
    config: &Config,
    signing: &SigningService,
    ecommerce: &EcommerceService,
    withdrawal: &domain::proposals::withdrawal::WithdrawalService,
    settlement: &domain::proposals::settlement::SettlementService,
    pix: Option<&domain::billing::pix_collection::PixCollection>,
) -> OperationRecovery {
    let mut finishers: Vec<Arc<dyn domain::proposals::operations::OperationFinisher>> = vec![
        Arc::new(signing.clone()),
        Arc::new(ecommerce.clone()),
        Arc::new(withdrawal.clone()),
        Arc::new(settlement.clone()),
    ];
    finishers.extend(pix.map(|p| Arc::new(p.clone()) as Arc<dyn domain::proposals::operations::OperationFinisher>));
    OperationRecovery {
        claims: signing.claims.clone(),
        finishers,
        clock: Arc::new(SystemClock),
        recover_after: chrono::Duration::from_std(config.outside.operation_recovery_after)
            .unwrap_or(chrono::Duration::minutes(1)),
    }
}

/// Finishes the operations pending past `OPERATION_RECOVERY_AFTER_MS`, looking every quarter of
/// it. Every instance runs it: each operation is taken by one (a lease, `FOR UPDATE SKIP LOCKED`).
fn spawn_recovery(recovery: OperationRecovery, after: std::time::Duration) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut ticks = tokio::time::interval((after / 4).max(std::time::Duration::from_millis(250)));
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            ticks.tick().await;
            match recovery.run_once().await {
                Ok(pass) if pass == RecoveryPass::default() => {}
                Ok(pass) => tracing::info!(
                    finished = pass.finished,
                    failed = pass.failed,
                    retried = pass.retried,
                    "pending operations taken by the worker"
                ),
                Err(error) => tracing::warn!(%error, "pending operations could not be read"),
            }
        }
    })
}

/// Expires the proposals past their signing deadline every `interval`. Every instance runs it:
/// the store claims each overdue proposal for one pass only, so each expires once.
fn spawn_expiry(signing: SigningService, interval: std::time::Duration) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut ticks = tokio::time::interval(interval);
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            ticks.tick().await;
            match signing.expire_overdue().await {
                Ok(0) => {}
                Ok(expired) => tracing::info!(expired, "proposals past their signing deadline expired"),
                Err(error) => tracing::warn!(%error, "signing deadlines could not be checked"),
            }
        }
    })
}

/// Runs the background work without an HTTP server (`sales-api worker`): the webhook deliveries
/// and the signing deadlines' expiry, until SIGTERM or SIGINT.
pub async fn run_worker(config: Config) -> Result<(), StartupError> {
    deployment::refuse_unsafe(&config).map_err(|e| StartupError::Config(e.0))?;
    deployment::announce(&config);
    let (engine, pool) = delivery_engine(&config)?;
    let metrics = MetricsListener::start(
        &config,
        Sampled {
            pools: vec![("webhooks".to_owned(), pool.clone())],
            queue: pool.clone(),
            operation_recovery_after: config.outside.operation_recovery_after,
            development_clock: development_clock(&config, &pool),
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
    let development = development_clock(&config, &pool);
    let pix = pix_collection(&config, &pool, signing.claims.clone(), rules_clock(&development))?;
    signing.after_signing = pix.as_ref().map(|(collection, _)| after_signing(collection));
    let payments = payment_services(
        &config,
        &pool,
        Arc::new(PgProposals::new(pool.clone())),
        &signing,
        rules_clock(&development),
        mailer(&config)?,
        pix_refunds(&pix),
    )?;
    let pix = pix.map(|(collection, _)| collection);
    let retention = spawn_retention_schedule(
        retention_service(&config, &pool, rules_clock(&development))?,
        config.privacy.retention_check_interval,
    );
    // The billing judges by the clock the acceptance sweep keeps reading (the same shared shift).
    let billing = spawn_billing_run(
        billing_service(&pool, rules_clock(&development)),
        pix.clone(),
        payments.settlement.clone(),
        ledger_check(&pool, rules_clock(&development)),
        config.outside.billing_run_interval,
    );
    let acceptance = spawn_acceptance_sweep(
        acceptance_service(&pool, rules_clock(&development)),
        certificate_service(&pool, mailer(&config)?),
        development,
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

/// The metrics listener running beside the service (or the worker).
struct MetricsListener {
    handle: ServerHandle,
    port: u16,
}

impl MetricsListener {
    /// Binds `METRICS_ADDR` and starts serving; nothing when it is `off`. A set address that
    /// cannot be opened stops the start; the default one, taken by another process on the host (a
    /// `worker` beside a `serve`), only turns the metrics off for this one, with a warning.
    fn start(config: &Config, sampled: Sampled) -> Result<Option<Self>, StartupError> {
        let Some(addr) = config.server.metrics_addr else {
            return Ok(None);
        };
        let bound = match scrape::listener(addr, sampled) {
            Ok(bound) => bound,
            Err(error) if !config.server.metrics_addr_given => {
                tracing::warn!(%addr, %error, "metrics off for this process: the default address is taken; set METRICS_ADDR");
                return Ok(None);
            }
            Err(error) => {
                return Err(StartupError::Config(format!(
                    "METRICS_ADDR: não foi possível abrir {addr}: {error}"
                )));
            }
        };
        Ok(bound.map(|bound| {
            tokio::spawn(bound.serving);
            tracing::info!(%addr, "metrics at /metrics");
            Self {
                handle: bound.handle,
                port: bound.port,
            }
        }))
    }

    async fn stop(self) {
        self.handle.stop(true).await;
    }
}

async fn wait_for_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = term.recv() => {}
                    _ = tokio::signal::ctrl_c() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
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
        let pool = build_pool(&pool_settings(&config))?;
        let mut sampled = Sampled {
            pools: vec![("api".to_owned(), pool.clone())],
            queue: pool.clone(),
            operation_recovery_after: config.outside.operation_recovery_after,
            development_clock: development_clock(&config, &pool),
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
        let retention_pool = pool.clone();
        let state = web::Data::new(build_state_reading_from(&config, pool, reads.clone(), rate_counter)?);
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
            ),
            config.outside.operation_recovery_after,
        );
        let development = state.sandbox_payments.as_ref().map(|s| s.clock.clone());
        let retention = spawn_retention_schedule(
            retention_service(&config, &retention_pool, rules_clock(&development))?,
            config.privacy.retention_check_interval,
        );
        let acceptance = std::iter::once(spawn_acceptance_sweep(
            state.acceptance.clone(),
            state.certificates.clone(),
            development.clone(),
            config.outside.acceptance_check_interval,
        ))
        .chain(std::iter::once(spawn_billing_run(
            billing_service(&retention_pool, rules_clock(&development)),
            state.pix.as_ref().map(|p| p.collection.clone()),
            state.settlement.clone(),
            ledger_check(&retention_pool, rules_clock(&development)),
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

#[cfg(test)]
mod tests {
    use super::*;

    fn config(pairs: &[(&str, &str)]) -> Config {
        let mut all = vec![
            ("DATABASE_URL", "postgres://postgres@127.0.0.1/sales"),
            ("JWT_PRIVATE_KEY_FILE", "target/dev-keys/jwt.pem"),
        ];
        all.extend_from_slice(pairs);
        Config::from_pairs(&all).unwrap_or_else(|e| panic!("{e}"))
    }

    fn pool() -> PgPool {
        // Lazy: nothing here connects.
        build_pool(&PoolSettings::new("postgres://postgres@127.0.0.1/sales")).unwrap_or_else(|e| panic!("{e}"))
    }

    #[tokio::test]
    async fn pix_is_the_sandbox_in_development_nothing_in_production_and_the_psp_with_its_files() {
        let clock: Arc<dyn domain::clock::Clock> = Arc::new(SystemClock);
        let development = pix_psp(&config(&[("SALES_ENV", "development")]), &pool(), clock.clone());
        assert!(matches!(development, Ok(Some(PixPsps { sandbox: Some(_), .. }))));
        assert!(matches!(pix_psp(&config(&[]), &pool(), clock.clone()), Ok(None)));
        let configured = config(&[
            ("PIX_API_BASE", "https://pix.psp.example/api/v2"),
            ("PIX_CLIENT_ID", "cliente"),
            ("PIX_CLIENT_SECRET", "segredo"),
            ("PIX_CERT_FILE", "/nao/existe/pix.crt"),
            ("PIX_KEY_FILE", "/nao/existe/pix.key"),
            ("PIX_KEY", "11222333000181"),
            ("PIX_RECEIVER_ACCOUNT", "0001/1234567/CORRENTE"),
        ]);
        match pix_psp(&configured, &pool(), clock) {
            Err(StartupError::Config(message)) => assert!(message.contains("PIX_CERT_FILE"), "{message}"),
            Err(other) => panic!("{other}"),
            Ok(_) => panic!("a start without the certificate"),
        }
    }
}
