//! A migration that moves or reshapes stored rows, tested on a database holding rows written
//! before it: up, down and up again, through the one helper `adapters_postgres::testing::MigrationRoundTrip`.

mod acceptance_clock;
mod account_debits;
mod analyst_queue;
mod anonymisation;
mod averbacoes;
mod billing_notices;
mod certificates;
mod charges;
mod charges_presented;
mod contract_ledger;
mod contract_terms;
mod contract_versions;
mod customer_requests;
mod customers_per_seller;
mod debit_revocation;
mod delivery_replays;
mod event_catalog;
mod late_refunds;
mod mother_name;
mod pending_events;
mod personal_data_blocks;
mod pix_automatico;
mod privacy_consents;
mod privacy_requests;
mod privacy_retention_runs;
mod proposal_notices;
mod rate_limit_counters;
mod read_model_in_rust;
mod refund_destinations;
mod refunds_settled;
mod signing_deadlines;
mod social_name;
mod stored_search_name;
mod subscription_state;
mod terms_deliveries;
