//! What the proposal use cases need from the store.

use crate::auth::model::UserId;
use crate::history::HistoryEntry;
use crate::proposals::model::{NewProposal, PartnerLink, ProposalDetail, ProposalRecord};
use crate::proposals::search::{ListedProposal, ProposalSearch};
use crate::scope::Scope;
use crate::store::StoreError;
use crate::values::{CellPhone, Cpf};
use async_trait::async_trait;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CreateProposalError {
    /// The customer already holds an unfinished proposal for the product (enforced by the
    /// database, so concurrent creates cannot both pass).
    #[error("cliente já possui proposta em andamento para este produto")]
    DuplicateOpen,
    /// The person's data is blocked under a legal hold (LGPD art. 18, IV): nothing new is made
    /// of it (enforced by the database, whichever write path comes).
    #[error("dados do titular bloqueados por retenção legal")]
    PersonBlocked,
    #[error(transparent)]
    Store(#[from] StoreError),
}

#[cfg_attr(feature = "mock", mockall::automock)]
#[async_trait]
pub trait ProposalStore: Send + Sync {
    /// Writes the seller's registration of the customer (created, or updated by seller and CPF),
    /// its address, the proposal (status `NOVO`, an unguessable identifier) with its own copy of
    /// the customer and address, and its payment, all or nothing. `DuplicateOpen` when any seller
    /// holds an unfinished proposal for the CPF and product.
    async fn create(&self, proposal: &NewProposal) -> Result<ProposalRecord, CreateProposalError>;

    /// The proposal with this identifier if the scope may see it (else `None`, as for a missing one).
    async fn detail(&self, identifier: &str, scope: Scope) -> Result<Option<ProposalDetail>, StoreError>;

    /// The proposals the scope may see that match the search, newest first (by creation time,
    /// then id), after the search's cursor: at most `limit + 1` of them, so that the caller
    /// learns whether another page follows.
    async fn search(&self, search: &ProposalSearch, scope: Scope) -> Result<Vec<ListedProposal>, StoreError>;

    /// The history of the proposal with this identifier, oldest first, if the scope may see it
    /// (else `None`, as for a missing one: every proposal has at least its creation entry).
    async fn history(&self, identifier: &str, scope: Scope) -> Result<Option<Vec<HistoryEntry>>, StoreError>;

    /// The contract text of a product (`termos`) with what the documents print besides the
    /// proposal (its cover, its line, and the selling partner's SUSEP registration), read only
    /// when a document is made: route 7's detail does not carry them.
    async fn product_terms(
        &self,
        product_id: i64,
        partner_document: Option<String>,
    ) -> Result<crate::contract::terms::ProductTerms, StoreError>;

    /// Whether an unfinished proposal exists, whoever sells it, for the CPF and the product with
    /// this integration code; `None` when no product has that code.
    async fn has_open_for_cpf(&self, cpf: &Cpf, integration_code: i32) -> Result<Option<bool>, StoreError>;

    /// The same, by the customer's cell phone.
    async fn has_open_for_cell_phone(
        &self,
        cell_phone: &CellPhone,
        integration_code: i32,
    ) -> Result<Option<bool>, StoreError>;
}

/// A representative and the partner it sells for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Representation {
    pub representative_id: i64,
    pub partner: PartnerLink,
}

#[cfg_attr(feature = "mock", mockall::automock)]
#[async_trait]
pub trait PartnerDirectory: Send + Sync {
    /// The representation of a `PARCEIRO` user, if it has one.
    async fn representation(&self, user_id: UserId) -> Result<Option<Representation>, StoreError>;
    async fn partner(&self, partner_id: i64) -> Result<Option<PartnerLink>, StoreError>;
}
