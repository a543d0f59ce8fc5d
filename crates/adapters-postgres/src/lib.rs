//! PostgreSQL adapters for the domain's store ports (diesel + diesel-async over a deadpool pool),
//! the embedded migrations, the demo seed, and, behind the `testing` feature, the harness that
//! gives each test its own database.

pub mod acceptance;
pub mod accounts;
pub mod arrears;
pub mod averbacoes;
pub mod billing;
pub mod catalog;
pub mod catalog_cache;
mod certificate_numbers;
pub mod certificates;
pub mod composed;
pub mod customer_requests;
pub mod customers;
pub mod debits;
pub mod ecommerce;
mod event_outbox;
pub mod hooks;
pub mod idempotency;
pub mod ledger;
mod list_statement;
mod listener;
pub mod migrations;
pub mod operations;
pub mod partners;
pub mod pep_list;
mod person_columns;
pub mod person_links;
pub mod personal_data_map;
pub mod pix;
pub mod pool;
pub mod premium_collection;
mod prepared;
pub mod privacy;
pub mod privacy_requests;
pub mod privacy_retention;
mod product_terms;
pub mod proposals;
pub mod rate_counters;
pub mod read_model;
pub mod recovery;
pub mod refunds;
pub mod refusal_defences;
pub mod replicas;
pub mod retention;
mod rows;
/// diesel's view of the tables: what `diesel print-schema` prints for the migrated database
/// (`diesel.toml`; `scripts/check-schema.sh` fails CI on a difference).
mod schema;
pub mod sealing;
pub mod seed;
pub mod sessions;
pub mod signatures;
mod statement;
pub mod terms;
#[cfg(feature = "testing")]
pub mod testing;
mod unit_of_work;

pub use acceptance::{PgAcceptance, PgClockShift, acceptance_overdue};
pub use accounts::{PgAccounts, UserListing};
pub use arrears::PgArrears;
pub use averbacoes::PgAverbacoes;
pub use billing::PgBilling;
pub use catalog::PgCatalog;
pub use catalog_cache::CachedCatalog;
pub use customer_requests::PgCustomerRequests;
pub use debits::PgDebits;
pub use ecommerce::{PgEcommerce, PgSandboxLedger};
pub use event_outbox::use_event_versions;
pub use hooks::{PgDeliveryWakeups, PgHooks, ResealReport, SealingKeys, WebhookBacklog, webhook_backlog};
pub use idempotency::PgIdempotency;
pub use operations::{OperationLevel, PgOperations, operation_levels};
pub use person_links::PgPersonLinks;
pub use pool::{PgPool, PgReadiness, PoolGauges, PoolSettings, build_pool, ping, pool_gauges};
pub use privacy::PgPersonalData;
pub use privacy_requests::{PgSubjectRequests, SubjectRequestLevels, subject_request_levels};
pub use privacy_retention::{PgRetention, RetentionTotals, retention_totals};
pub use proposals::PgProposals;
pub use rate_counters::PgRateCounter;
pub use read_model::{ReadModelReport, check_read_model};
pub use recovery::PgRecovery;
pub use replicas::{Lsn, ReadAfter, ReadPools, ReplicaPolicy, reading_after};
pub use retention::{PartitionLevel, PgExpiredRecords, partition_levels};
pub use sessions::{CachedSessions, ForgettingAdministration, PgSessions};
pub use signatures::PgSignatures;
