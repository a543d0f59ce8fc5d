//! The composition root: configuration in, adapters built, use cases assembled. The only place
//! that knows every concrete type: `serve` builds its HTTP state here ([`build_state`]), and the
//! worker and every command take their parts from [`Services`] or the same functions, so that a use
//! case is wired once.

use crate::config::Config;
use crate::deployment::Environment;
use crate::security::hook_keys::hook_keys;
use crate::security::jwt::{JwtTokenService, KeyError};
use crate::security::no_session_check::NoSessionCheck;
use crate::security::password::BcryptHasher;
use crate::security::secrets::OsSecretGenerator;
use crate::state::AppState;
use crate::stores::store_pool;
use adapters_mailer::{BackgroundMailer, Delivery};
use adapters_payment::{SandboxGateway, StripeGateway, StripeSettings};
use adapters_postgres::migrations::MigrationError;
use adapters_postgres::pool::PoolBuildError;
use adapters_postgres::{
    CachedCatalog, CachedSessions, PgAccounts, PgCatalog, PgCustomerRequests, PgPool, PgProposals, PgReadiness,
    PgRecovery, PgSessions, PgSignatures, PoolSettings, ReadPools, ReplicaPolicy,
};
use adapters_postgres::{PgAcceptance, PgClockShift};
use adapters_postgres::{PgEcommerce, PgHooks, PgOperations, PgSandboxLedger};
use adapters_signature::{ClicksignProvider, ClicksignSettings, PdfRenderer, SandboxProvider, SandboxSigningPages};
use adapters_webhooks::{AddressPolicy, HttpWebhookSender, SenderSettings};
use domain::acceptance::service::AcceptanceService;
use domain::auth::ports::HashError;
use domain::auth::sign_in::{Authenticator, SignInService};
use domain::catalog::CatalogService;
use domain::catalog::ports::CatalogStore;
use domain::certificates::CertificateService;
use domain::clock::SystemClock;
use domain::ecommerce::EcommerceService;
use domain::hooks::HookService;
use domain::privacy::retention::RetentionService;
use domain::proposals::operations::OperationRecovery;
use domain::proposals::service::ProposalService;
use domain::proposals::signing::SigningService;
use domain::recovery::RecoveryService;
use std::sync::Arc;

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

/// What every entry point is made of, composed once per process: the configuration, the pool every
/// store shares and, in development, the clock every instance shares. `serve` builds its HTTP state
/// from it ([`Services::state`]), `worker` its jobs, and each command the one use case it runs, each
/// through the one function here that wires it.
pub struct Services {
    pub config: Config,
    pub pool: PgPool,
    /// The development clock (`SALES_ENV=development` only), shifted by `POST /sandbox/clock`.
    pub development: Option<crate::state::DevelopmentClock>,
}

impl Services {
    /// Over a pool of its own (lazy: nothing connects yet).
    pub fn build(config: &Config) -> Result<Self, StartupError> {
        Ok(Self::over(config, store_pool(&pool_settings(config))?))
    }

    /// Over `pool`.
    pub fn over(config: &Config, pool: PgPool) -> Self {
        let development = development_clock(config, &pool);
        Self {
            config: config.clone(),
            pool,
            development,
        }
    }

    /// The clock the time-bound rules are judged by: the development one when there is one (as
    /// this process last read it), else the machine's.
    pub fn rules_clock(&self) -> Arc<dyn domain::clock::Clock> {
        rules_clock(&self.development)
    }

    /// [`Services::rules_clock`] as every instance sees it now: a command reads the shared shift
    /// first, since it runs once.
    pub async fn rules_clock_now(&self) -> Result<Arc<dyn domain::clock::Clock>, domain::store::StoreError> {
        if let Some(development) = &self.development {
            development.refresh().await?;
        }
        Ok(self.rules_clock())
    }

    /// The rules' clock read afresh at every use (the finance team's long-lived commands).
    pub fn fresh_clock(&self) -> domain::clock::FreshClock {
        match &self.development {
            Some(dev) => domain::clock::FreshClock::shared(dev.clock.clone(), dev.store.clone()),
            None => domain::clock::FreshClock::fixed(Arc::new(SystemClock)),
        }
    }

    /// The HTTP edge's state over this pool, its reads routed through `reads`.
    pub fn state(
        &self,
        reads: ReadPools,
        rate_counter: Option<Arc<dyn domain::rate_limit::RateCounter>>,
    ) -> Result<AppState, StartupError> {
        compose_state(self, reads, rate_counter)
    }

    /// The HTTP edge's state with every read on the primary (what a command that needs several
    /// use cases at once takes).
    pub fn whole_state(&self) -> Result<AppState, StartupError> {
        self.state(ReadPools::primary_only(self.pool.clone()), None)
    }

    pub fn accounts(&self) -> PgAccounts {
        PgAccounts::new(self.pool.clone())
    }

    pub fn acceptance(&self, clock: Arc<dyn domain::clock::Clock>) -> AcceptanceService {
        acceptance_service(&self.pool, clock)
    }

    pub fn billing(&self, clock: Arc<dyn domain::clock::Clock>) -> domain::billing::service::BillingService {
        billing_service(&self.pool, clock)
    }

    /// The notices of an unpaid premium and the contracts' end for it (issue 67), judged by
    /// `clock`; `ender` is the settlement that ends a contract with its money.
    pub fn arrears(
        &self,
        clock: Arc<dyn domain::clock::Clock>,
        ender: Arc<dyn domain::billing::arrears::ContractEnd>,
    ) -> Result<domain::billing::arrears::ArrearsService, StartupError> {
        Ok(domain::billing::arrears::ArrearsService {
            store: Arc::new(adapters_postgres::PgArrears::new(self.pool.clone())),
            ender,
            mail: mailer(&self.config)?,
            messenger: messenger(&self.config, clock.clone())?,
            clock,
        })
    }

    /// The contracts' terms (issue 67, decision 270): the notices of their end, the renewals and
    /// the ends at term, judged by `clock`; `ender` is the settlement that ends a contract.
    pub fn terms(
        &self,
        clock: Arc<dyn domain::clock::Clock>,
        ender: Arc<dyn domain::billing::arrears::ContractEnd>,
    ) -> Result<domain::billing::term::TermService, StartupError> {
        Ok(domain::billing::term::TermService {
            store: Arc::new(adapters_postgres::terms::PgTerms::new(self.pool.clone())),
            ender,
            mail: mailer(&self.config)?,
            messenger: messenger(&self.config, clock.clone())?,
            clock,
        })
    }

    /// The payroll discounts' averbações (issue 67), judged by `clock`: the sandbox platform in
    /// development, none in production (the back office registers them, decision 268).
    pub fn averbacao(&self, clock: Arc<dyn domain::clock::Clock>) -> domain::billing::averbacao::AverbacaoService {
        averbacao_service(&self.config, &self.pool, clock)
    }

    /// The shop's first premium collected at acceptance (decision 271), judged by `clock`, on
    /// the configured payment platform.
    pub fn collection(
        &self,
        clock: Arc<dyn domain::clock::Clock>,
    ) -> Result<domain::ecommerce::collection::CollectionService, StartupError> {
        let (gateway, _) = payment_gateway(&self.config, &self.pool)?;
        Ok(domain::ecommerce::collection::CollectionService {
            store: Arc::new(adapters_postgres::premium_collection::PgPremiumCollection::new(
                self.pool.clone(),
            )),
            gateway,
            claims: Arc::new(PgOperations::new(self.pool.clone())),
            clock,
        })
    }

    pub fn debits(&self, clock: Arc<dyn domain::clock::Clock>) -> domain::billing::debits::DebitsService {
        debits_service(&self.config, &self.pool, clock)
    }

    pub fn ledger_check(&self, clock: Arc<dyn domain::clock::Clock>) -> domain::ledger::check::LedgerCheck {
        ledger_check(&self.pool, clock)
    }

    pub fn retention(&self, clock: Arc<dyn domain::clock::Clock>) -> Result<RetentionService, StartupError> {
        retention_service(&self.config, &self.pool, clock)
    }

    pub fn certificates(&self) -> Result<CertificateService, StartupError> {
        certificate_service(&self.config, &self.pool, mailer(&self.config)?)
    }

    pub fn refunds(&self) -> Result<domain::refunds::service::RefundsService, StartupError> {
        Ok(domain::refunds::service::RefundsService {
            index: price_index(&self.config)?,
            store: Arc::new(adapters_postgres::refunds::PgRefunds::new(self.pool.clone())),
            clock: self.fresh_clock(),
        })
    }

    /// The contracts' ends with their money (a refusal, a cancellation, the regret, an unpaid
    /// premium), composed as the worker composes them: no HTTP state and no token keys, so a
    /// command of the billing runs where the worker runs.
    pub fn settlement(
        &self,
        clock: Arc<dyn domain::clock::Clock>,
    ) -> Result<domain::proposals::settlement::SettlementService, StartupError> {
        let proposals = Arc::new(PgProposals::new(self.pool.clone()));
        let signing = signing_service(
            &self.config,
            &self.pool,
            proposals.clone(),
            &given_or_random(&self.config.outside.signature.callback_secret),
        )?;
        let pix = pix_collection(&self.config, &self.pool, signing.claims.clone(), clock.clone())?;
        let payments = payment_services(
            &self.config,
            &self.pool,
            proposals,
            &signing,
            clock,
            mailer(&self.config)?,
            pix_refunds(&pix),
        )?;
        Ok(payments.settlement)
    }

    /// Pix Automático's collection (`None` where Pix is not offered), its claims in this pool.
    pub fn pix_collection(
        &self,
        clock: Arc<dyn domain::clock::Clock>,
    ) -> Result<Option<domain::billing::pix_collection::PixCollection>, StartupError> {
        let claims = Arc::new(PgOperations::new(self.pool.clone()));
        Ok(pix_collection(&self.config, &self.pool, claims, clock)?.map(|(collection, _)| collection))
    }
}

/// A callback key when the configuration has none: random per start (sandboxes only; production
/// refuses to start without one).
pub(crate) fn given_or_random(secret: &Option<Vec<u8>>) -> Vec<u8> {
    secret.clone().unwrap_or_else(|| {
        use rand::RngCore;
        let mut random = vec![0u8; 32];
        rand::rngs::OsRng.fill_bytes(&mut random);
        random
    })
}

pub(crate) fn webhook_sender(config: &Config) -> Result<HttpWebhookSender, StartupError> {
    Ok(HttpWebhookSender::new(SenderSettings {
        connect_timeout: config.hooks.connect_timeout,
        request_timeout: config.hooks.request_timeout,
        policy: AddressPolicy::new(config.hooks.allowed_cidrs.clone()),
    })?)
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
    Services::over(config, pool).state(reads, rate_counter)
}

/// A pool per `DATABASE_READ_URLS` replica (lazy: nothing is opened yet).
pub fn replica_pools(config: &Config) -> Result<Vec<PgPool>, StartupError> {
    config
        .database
        .read_replicas
        .urls
        .iter()
        .map(|url| {
            Ok(store_pool(&PoolSettings {
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

/// The HTTP edge's state from `services`, its reads routed through `reads` ([`read_pools`]).
fn compose_state(
    services: &Services,
    reads: ReadPools,
    rate_counter: Option<Arc<dyn domain::rate_limit::RateCounter>>,
) -> Result<AppState, StartupError> {
    let (config, pool) = (&services.config, services.pool.clone());
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
        throttle: accounts.clone(),
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
    // In development the clock the right of regret and the acceptance deadlines are judged by
    // can be moved forward (`POST /sandbox/clock`), for every instance at once.
    let shifted_clock = services.development.clone();
    let rules_clock = rules_clock(&shifted_clock);
    let (kyc, sandbox_kyc) = kyc_screening(config, &pool, rules_clock.clone())?;
    let proposals = ProposalService {
        proposals: stores.clone(),
        customers: stores.clone(),
        catalog: catalog_store.clone(),
        partners: stores.clone(),
        clock: Arc::new(SystemClock),
        rules: config.customer_rules,
        kyc,
    };
    let catalog = CatalogService { store: catalog_store };
    let callback_secret = given_or_random(&config.outside.signature.callback_secret);
    let mut signing = signing_service(config, &pool, stores.clone(), &callback_secret)?;
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
    let certificates = certificate_service(config, &pool, mailer)?;
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
    // The person's own channel: links mailed to an address held, consents with their proof.
    let person_channel = domain::privacy::person_channel::PersonChannel {
        links: Arc::new(adapters_postgres::PgPersonLinks::new(pool.clone())),
        personal_data: privacy.store.clone(),
        secrets: Arc::new(OsSecretGenerator),
        outbox: outbox.clone(),
        throttle: accounts.clone(),
        clock: privacy_clock.clone(),
        policy: config.tokens.person_links.clone(),
    };
    // Requests for documents, mailed to the proponent when they are the one to answer.
    let documents = domain::acceptance::proponent::ProponentDocuments {
        store: acceptance.store.clone(),
        secrets: Arc::new(OsSecretGenerator),
        outbox: outbox.clone(),
        clock: acceptance.clock.clone(),
        policy: config.tokens.documents_links.clone(),
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
        person_channel,
        documents,
        debits,
        debit_revocation,
        refund_destinations,
        sandbox,
        acceptance,
        withdrawal,
        settlement,
        certificates,
        sandbox_payments,
        sandbox_kyc,
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

/// The screening of a sale's customer (issue 70): Serpro's Consulta CPF when configured, else
/// (development only) the sandbox, whose answers are kept in PostgreSQL and returned for
/// `POST /sandbox/kyc/cpf/{cpf}`; the statuses kept and the PEP list in PostgreSQL. Judged by the
/// rules' clock (development's shifted one).
fn kyc_screening(
    config: &Config,
    pool: &PgPool,
    clock: Arc<dyn domain::clock::Clock>,
) -> Result<
    (
        domain::kyc::screening::KycScreening,
        Option<Arc<adapters_postgres::PgSandboxCpfStatus>>,
    ),
    StartupError,
> {
    let settings = &config.outside.cpf_status;
    let (cpf_status, sandbox): (Arc<dyn domain::kyc::cpf_status::CpfStatus>, _) = match &settings.serpro {
        Some(serpro) => (
            Arc::new(
                adapters_kyc::serpro::SerproCpfStatus::new(adapters_kyc::serpro::SerproSettings {
                    base_url: serpro.api_base.clone(),
                    token_url: serpro.token_url.clone(),
                    consumer_key: serpro.consumer_key.clone(),
                    consumer_secret: serpro.consumer_secret.clone(),
                    timeout: settings.timeout,
                })
                .map_err(|e| StartupError::Config(format!("CPF_STATUS_API_BASE: {e}")))?,
            ),
            None,
        ),
        None if config.server.environment == Environment::Development => {
            let sandbox = Arc::new(adapters_postgres::PgSandboxCpfStatus::new(pool.clone()));
            (sandbox.clone(), Some(sandbox))
        }
        None => {
            return Err(StartupError::Config(
                "CPF_STATUS_CONSUMER_KEY: variável obrigatória ausente".into(),
            ));
        }
    };
    Ok((
        domain::kyc::screening::KycScreening {
            cpf_status,
            cache: Arc::new(adapters_postgres::PgCpfStatusCache::new(pool.clone())),
            pep_list: Arc::new(adapters_postgres::pep_list::PgPepList::new(pool.clone())),
            clock,
            cache_for: settings.cache_for,
        },
        sandbox,
    ))
}

/// The signing use case over the pool: the configured provider (Clicksign, or the sandbox at
/// `PUBLIC_URL`) and the stores. `serve` answers routes 12 and 13 with it; `serve` and `worker`
/// both expire the proposals past their signing deadline with it.
pub(crate) fn signing_service(
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
        privacy_contacts: config
            .privacy
            .contacts(config.server.environment)
            .map_err(|e| StartupError::Config(e.0))?,
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
pub(crate) fn rules_clock(development: &Option<crate::state::DevelopmentClock>) -> Arc<dyn domain::clock::Clock> {
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

/// The certificates of accepted contracts, rendered as the proposals are and mailed with `mail`.
pub fn certificate_service(
    config: &Config,
    pool: &PgPool,
    mail: Arc<dyn domain::mail::MailSender>,
) -> Result<CertificateService, StartupError> {
    let stores = Arc::new(PgProposals::new(pool.clone()));
    Ok(CertificateService {
        privacy_contacts: config
            .privacy
            .contacts(config.server.environment)
            .map_err(|e| StartupError::Config(e.0))?,
        store: Arc::new(adapters_postgres::certificates::PgCertificates::new(pool.clone())),
        proposals: stores.clone(),
        partners: stores,
        renderer: Arc::new(PdfRenderer),
        mail,
        clock: Arc::new(SystemClock),
    })
}

/// Outgoing mail: by SMTP when `SMTP_URL` is set, else `.eml` files under `MAIL_DIR`.
pub fn mailer(config: &Config) -> Result<Arc<BackgroundMailer>, StartupError> {
    let delivery = match &config.outside.mail.smtp_url {
        Some(url) => Delivery::smtp(url)?,
        None => Delivery::files(&config.outside.mail.directory)?,
    };
    Ok(Arc::new(BackgroundMailer::new(delivery, &config.outside.mail.from)?))
}

/// The provider of the notices' text messages: Twilio when `TWILIO_*` is set; else development's
/// sandbox (every message delivered at once, save to numbers ending in 0000), and none in
/// production, where the notices then go by e-mail alone (decision 266).
type TextMessages = Option<(Arc<dyn domain::messaging::Messenger>, domain::messaging::MessageChannel)>;

fn messenger(config: &Config, clock: Arc<dyn domain::clock::Clock>) -> Result<TextMessages, StartupError> {
    if let Some(twilio) = &config.outside.messaging {
        let messenger = adapters_messaging::TwilioMessenger::new(adapters_messaging::TwilioSettings {
            base_url: twilio.api_base.clone(),
            account_sid: twilio.account_sid.clone(),
            auth_token: twilio.auth_token.clone(),
            from: twilio.from.clone(),
            timeout: std::time::Duration::from_secs(15),
        })
        .map_err(|e| StartupError::Config(e.to_string()))?;
        return Ok(Some((Arc::new(messenger), twilio.channel)));
    }
    Ok(match config.server.environment {
        crate::config::Environment::Development => Some((
            Arc::new(adapters_messaging::SandboxMessenger::new(clock)),
            domain::messaging::MessageChannel::Sms,
        )),
        crate::config::Environment::Production => None,
    })
}

/// The use cases that move money on the payment platform (Stripe, or the sandbox platform in
/// development), sharing one gateway.
pub(crate) struct PaymentServices {
    pub(crate) ecommerce: EcommerceService,
    pub(crate) withdrawal: domain::proposals::withdrawal::WithdrawalService,
    pub(crate) settlement: domain::proposals::settlement::SettlementService,
    /// The sandbox platform, while it is the platform.
    pub(crate) sandbox_gateway: Option<Arc<SandboxGateway>>,
}

/// The payment platform: Stripe's API with `STRIPE_SECRET_KEY`, else the sandbox (development),
/// which is then also returned as itself.
pub(crate) type Gateways = (Arc<dyn domain::ecommerce::PaymentGateway>, Option<Arc<SandboxGateway>>);

pub(crate) fn payment_gateway(config: &Config, pool: &PgPool) -> Result<Gateways, StartupError> {
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

/// The payroll discounts' averbações over the consignment platform: development's sandbox, none
/// in production (decision 268).
pub fn averbacao_service(
    config: &Config,
    pool: &PgPool,
    clock: Arc<dyn domain::clock::Clock>,
) -> domain::billing::averbacao::AverbacaoService {
    let platform = match config.server.environment {
        Environment::Development => Some(Arc::new(adapters_consignment::SandboxConsignment::new(clock.clone()))
            as Arc<dyn domain::billing::averbacao::ConsignmentPlatform>),
        Environment::Production => None,
    };
    domain::billing::averbacao::AverbacaoService {
        store: Arc::new(adapters_postgres::PgAverbacoes::new(pool.clone())),
        claims: Arc::new(PgOperations::new(pool.clone())),
        platform,
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

pub(crate) fn after_signing(
    collection: &domain::billing::pix_collection::PixCollection,
) -> Arc<dyn domain::proposals::signing::AfterSigning> {
    Arc::new(collection.clone())
}

/// What a contract's end needs to give back Pix payments.
pub(crate) fn pix_refunds<S>(
    pix: &Option<(domain::billing::pix_collection::PixCollection, S)>,
) -> Option<domain::billing::pix_collection::PixRefunds> {
    pix.as_ref()
        .map(|(collection, _)| domain::billing::pix_collection::PixRefunds {
            store: collection.store.clone(),
            psp: collection.psp.clone(),
        })
}

pub(crate) fn payment_services(
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

/// The finishers of the operations the background passes claim (no request makes them).
pub(crate) struct BackgroundFinishers {
    pub(crate) averbacao: domain::billing::averbacao::AverbacaoService,
    pub(crate) collection: domain::ecommerce::collection::CollectionService,
}

impl BackgroundFinishers {
    /// Both over `services`, judged by the clock every instance judges the rules by.
    pub(crate) fn of(services: &Services) -> Result<Self, StartupError> {
        Ok(Self {
            averbacao: services.averbacao(services.rules_clock()),
            collection: services.collection(services.rules_clock())?,
        })
    }
}

/// The worker's pass over operations left pending by a request that died, for the use cases
/// that own them.
pub(crate) fn operation_recovery(
    config: &Config,
    signing: &SigningService,
    ecommerce: &EcommerceService,
    withdrawal: &domain::proposals::withdrawal::WithdrawalService,
    settlement: &domain::proposals::settlement::SettlementService,
    pix: Option<&domain::billing::pix_collection::PixCollection>,
    background: BackgroundFinishers,
) -> OperationRecovery {
    let mut finishers: Vec<Arc<dyn domain::proposals::operations::OperationFinisher>> = vec![
        Arc::new(signing.clone()),
        Arc::new(ecommerce.clone()),
        Arc::new(withdrawal.clone()),
        Arc::new(settlement.clone()),
    ];
    finishers.extend(pix.map(|p| Arc::new(p.clone()) as Arc<dyn domain::proposals::operations::OperationFinisher>));
    finishers.push(Arc::new(background.averbacao));
    finishers.push(Arc::new(background.collection));
    OperationRecovery {
        claims: signing.claims.clone(),
        finishers,
        clock: Arc::new(SystemClock),
        recover_after: chrono::Duration::from_std(config.outside.operation_recovery_after)
            .unwrap_or(chrono::Duration::minutes(1)),
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
        adapters_postgres::build_pool(&PoolSettings::new("postgres://postgres@127.0.0.1/sales"))
            .unwrap_or_else(|e| panic!("{e}"))
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
