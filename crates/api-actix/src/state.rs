//! What handlers receive: the use cases, never a pool (and, in development, the sandbox provider's
//! pages, which stand where the provider's own would be).

use domain::auth::sign_in::{Authenticator, SignInService};
use domain::catalog::CatalogService;
use domain::ecommerce::EcommerceService;
use domain::health::Readiness;
use domain::hooks::HookService;
use domain::proposals::service::ProposalService;
use domain::proposals::signing::SigningService;
use domain::recovery::RecoveryService;
use ipnet::IpNet;
use std::sync::Arc;

pub struct AppState {
    pub sign_in: SignInService,
    pub proposals: ProposalService,
    pub catalog: CatalogService,
    pub recovery: RecoveryService,
    pub signing: SigningService,
    pub ecommerce: EcommerceService,
    pub hooks: HookService,
    /// A data subject's rights (LGPD).
    pub privacy: domain::privacy::PrivacyService,
    /// Data-subject requests, their deadlines and answers (LGPD art. 18 and 19).
    pub subject_requests: domain::privacy::subject_requests::SubjectRequestService,
    /// The person's own channel: requests and consents by a link mailed to them.
    pub person_channel: domain::privacy::person_channel::PersonChannel,
    /// Requests for documents: who answers them, and the proponent's link (decision 289).
    pub documents: domain::acceptance::proponent::ProponentDocuments,
    /// Débito em conta's files (issue 46): the console lists them.
    pub debits: domain::billing::debits::DebitsService,
    /// The customer's revocation of the debits' authorisation (issue 46).
    pub debit_revocation: domain::billing::revocation::RevocationService,
    pub refund_destinations: domain::refunds::destinations::RefundDestinationService,
    /// The keys of creating requests (`Idempotency-Key`).
    pub idempotency: domain::idempotency::Idempotency,
    /// Who a bearer token belongs to, while its session holds.
    pub authenticator: Authenticator,
    pub readiness: Arc<dyn Readiness>,
    /// The public keys that verify our tokens, as a JWK Set.
    pub jwks: serde_json::Value,
    pub trusted_proxies: Vec<IpNet>,
    /// Requests per caller and minute, across every instance; `None`: no limit.
    pub rate_limiter: Option<domain::rate_limit::RateLimiter>,
    /// The sandbox provider's pages: development only, while the sandbox is the provider.
    pub sandbox: Option<adapters_signature::SandboxSigningPages>,
    /// The acceptance clock (issue 45).
    pub acceptance: domain::acceptance::service::AcceptanceService,
    /// The right of regret.
    pub withdrawal: domain::proposals::withdrawal::WithdrawalService,
    /// The accepted contracts' certificates (issue 45).
    pub certificates: domain::certificates::CertificateService,
    /// The refusal and the cancellation after the sale, which return money (issue 45).
    pub settlement: domain::proposals::settlement::SettlementService,
    /// The sandbox platform's payments on demand and the clock the sandbox moves: development only.
    pub sandbox_payments: Option<SandboxPayments>,
    /// Development's answers of the CPF's status (`POST /sandbox/kyc/cpf/{cpf}`): development
    /// only, while the sandbox answers them.
    pub sandbox_kyc: Option<Arc<adapters_postgres::PgSandboxCpfStatus>>,
    /// Pix Automático (issue 46): `None` where no PSP is configured (production without `PIX_*`).
    pub pix: Option<PixState>,
    /// The back office's changes to a user's credential (its contract version, issue 49).
    pub users: domain::users::AdministerUsers,
}

/// Pix Automático's collection, who may notify it, and in development the sandbox PSP's moves.
#[derive(Clone)]
pub struct PixState {
    pub collection: domain::billing::pix_collection::PixCollection,
    pub webhook: crate::config::PixWebhookSettings,
    /// The sandbox PSP, while it is the PSP (development without `PIX_*`).
    pub sandbox: Option<Arc<adapters_payment::pix::SandboxPsp>>,
}

/// What the sandbox's payment pages and commands act on (development only).
#[derive(Clone)]
pub struct SandboxPayments {
    /// The sandbox platform, while it is the platform (`None` with Stripe configured).
    pub gateway: Option<Arc<adapters_payment::SandboxGateway>>,
    /// The clock the right of regret and the acceptance deadlines are judged by, which the
    /// sandbox may move forward.
    pub clock: DevelopmentClock,
}

/// The development clock: this process's copy and where every process keeps its shift.
#[derive(Clone)]
pub struct DevelopmentClock {
    pub clock: Arc<domain::clock::ShiftedClock>,
    pub store: Arc<dyn domain::clock::ClockShiftStore>,
}

impl DevelopmentClock {
    /// Reads the shared shift again into this process's copy.
    pub async fn refresh(&self) -> Result<(), domain::store::StoreError> {
        self.clock.refresh(self.store.as_ref()).await
    }
}
