//! The use cases of customers and proposals.

use crate::access::{AccessError, Operation, Scope, authorize};
use crate::auth::model::Principal;
use crate::catalog::model::Product;
use crate::catalog::ports::CatalogStore;
use crate::clock::Clock;
use crate::history::HistoryEntry;
use crate::kyc::cpf_status::CpfSituation;
use crate::kyc::screening::{KycScreening, ScreeningError};
// Re-exported: the rules are configured where the service is built.
pub use crate::customers::CustomerRules;
use crate::customers::{AddressData, CustomerData, CustomerRecord, CustomerStore, OwnershipItem, Registration, Seller};
use crate::proposals::bodies::{
    AvailabilityQuery, Holder, ProposalBody, ReadingRules, RegistrationBody, ShopProposalBody,
};
use crate::proposals::model::{
    EcommerceProposalRequest, Flow, NewProposal, PartnerLink, PaymentDetails, ProposalDetail, ProposalRecord,
    ProposalRequest,
};
use crate::proposals::ports::{CreateProposalError, PartnerDirectory, ProposalStore};
use crate::proposals::reasons;
use crate::proposals::search::{ListCursor, ProposalPage, ProposalSearch};
use crate::store::StoreError;
use crate::validation::{Violations, codes};
use crate::values::{Cpf, ShippingType};
use chrono::NaiveDate;
use std::sync::Arc;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProposalError {
    #[error(transparent)]
    Access(#[from] AccessError),
    /// Fields that are well-formed but refer to nothing usable (an unknown product, a billing
    /// group of another product, a bank the product does not take).
    #[error("{0}")]
    Invalid(Violations),
    #[error("cliente já possui proposta em andamento para este produto")]
    DuplicateOpen,
    /// The person's data is blocked under a legal hold: no new registration or proposal.
    #[error("dados do titular bloqueados por retenção legal")]
    PersonBlocked,
    /// Not found, or not the caller's to see: the two are not told apart.
    #[error("proposta não encontrada")]
    NotFound,
    #[error("produto não encontrado")]
    UnknownProduct,
    /// The customer's CPF is not `REGULAR` at the Receita Federal: nothing is stored.
    #[error("CPF com situação {} na Receita Federal", .0.as_str())]
    CpfIrregular(CpfSituation),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<ScreeningError> for ProposalError {
    fn from(e: ScreeningError) -> Self {
        match e {
            ScreeningError::Irregular(situation) => ProposalError::CpfIrregular(situation),
            ScreeningError::Store(s) => ProposalError::Store(s),
        }
    }
}

impl From<crate::access::ScopeError> for ProposalError {
    fn from(e: crate::access::ScopeError) -> Self {
        match e {
            crate::access::ScopeError::Access(a) => ProposalError::Access(a),
            crate::access::ScopeError::Store(s) => ProposalError::Store(s),
        }
    }
}

impl From<crate::customers::RegistrationError> for ProposalError {
    fn from(e: crate::customers::RegistrationError) -> Self {
        match e {
            crate::customers::RegistrationError::PersonBlocked => ProposalError::PersonBlocked,
            crate::customers::RegistrationError::Store(s) => ProposalError::Store(s),
        }
    }
}

impl From<CreateProposalError> for ProposalError {
    fn from(e: CreateProposalError) -> Self {
        match e {
            CreateProposalError::DuplicateOpen => ProposalError::DuplicateOpen,
            CreateProposalError::PersonBlocked => ProposalError::PersonBlocked,
            CreateProposalError::Store(s) => ProposalError::Store(s),
        }
    }
}

/// What a customer lookup (route 4) found for the caller's seller.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ownership {
    NotRegistered,
    Registered(Vec<OwnershipItem>),
}

#[derive(Clone)]
pub struct ProposalService {
    pub proposals: Arc<dyn ProposalStore>,
    pub customers: Arc<dyn CustomerStore>,
    pub catalog: Arc<dyn CatalogStore>,
    pub partners: Arc<dyn PartnerDirectory>,
    pub clock: Arc<dyn Clock>,
    pub rules: CustomerRules,
    /// The customer's screening before a sale is stored (issue 70).
    pub kyc: KycScreening,
}

impl ProposalService {
    /// Today's date, for birth-date checks.
    pub fn today(&self) -> NaiveDate {
        self.clock.now().date_naive()
    }

    /// Whose data the caller may see.
    pub async fn scope(&self, principal: &Principal) -> Result<Scope, ProposalError> {
        Ok(crate::access::scope_of(principal, self.partners.as_ref()).await?)
    }

    /// What reading a body needs: today, and the configured rules.
    pub fn reading_rules(&self) -> ReadingRules {
        ReadingRules {
            today: self.today(),
            rules: self.rules,
        }
    }

    /// Route 3, from its body: every bad member at once, then [`Self::register_customer`].
    pub async fn create_customer(
        &self,
        principal: &Principal,
        body: RegistrationBody,
    ) -> Result<CustomerRecord, ProposalError> {
        let (customer, address) = body.read(&self.reading_rules()).map_err(ProposalError::Invalid)?;
        self.register_customer(principal, customer, address).await
    }

    /// Route 3: creates (or updates, by CPF) the caller's partner's own registration of a customer.
    #[tracing::instrument(skip_all, fields(cpf = %customer.cpf.masked()))]
    pub async fn register_customer(
        &self,
        principal: &Principal,
        customer: CustomerData,
        address: Option<AddressData>,
    ) -> Result<CustomerRecord, ProposalError> {
        authorize(principal, Operation::CreateCustomer)?;
        let seller = Seller::of(self.scope(principal).await?).ok_or(AccessError::Forbidden)?;
        Ok(self
            .customers
            .upsert(&customer, address, seller, &principal.email)
            .await?)
    }

    /// Every seller's registration of a CPF, with the seller it belongs to (back office only).
    pub async fn registrations(&self, principal: &Principal, cpf: &Cpf) -> Result<Vec<Registration>, ProposalError> {
        authorize(principal, Operation::ReadRegistrations)?;
        Ok(self.customers.registrations(cpf).await?)
    }

    /// Route 4.
    pub async fn customer_ownership(&self, principal: &Principal, cpf: &Cpf) -> Result<Ownership, ProposalError> {
        authorize(principal, Operation::CheckCustomer)?;
        let scope = self.scope(principal).await?;
        Ok(match self.customers.ownership(cpf, scope).await? {
            None => Ownership::NotRegistered,
            Some(items) => Ownership::Registered(items),
        })
    }

    /// The product and billing group a proposal names, checked against each other.
    async fn resolve_catalog(
        &self,
        v: &mut Violations,
        product_code: i32,
        billing_code: i32,
    ) -> Result<Option<Product>, ProposalError> {
        let product = self.catalog.product_with_banks(product_code).await?;
        let product = match product {
            Some(p) if p.active => Some(p),
            Some(_) => {
                v.add(
                    "productCode",
                    codes::UNKNOWN_REFERENCE,
                    "produto inativo: não aceita novas propostas",
                );
                None
            }
            None => {
                v.add(
                    "productCode",
                    codes::UNKNOWN_REFERENCE,
                    format!("produto {product_code} não encontrado"),
                );
                None
            }
        };
        match self.catalog.billing_group(billing_code).await? {
            None => v.add(
                "billingCode",
                codes::UNKNOWN_REFERENCE,
                format!("grupo de faturamento {billing_code} não encontrado"),
            ),
            Some(group) if group.product_code != product_code => v.add(
                "billingCode",
                codes::UNKNOWN_REFERENCE,
                format!("grupo de faturamento {billing_code} não pertence ao produto {product_code}"),
            ),
            Some(_) => {}
        }
        Ok(product)
    }

    /// The customer's screening before a sale is stored (routes 5 and 6): the diligence it calls
    /// for, if any; a CPF not `REGULAR` refuses the sale.
    async fn screen(&self, customer: &CustomerData) -> Result<Option<crate::kyc::screening::KycView>, ProposalError> {
        let screening = self
            .kyc
            .screen(&customer.cpf, customer.full_name.as_str(), customer.pep == Some(true))
            .await?;
        Ok(screening.diligence().cloned())
    }

    /// Route 5, from its body: every bad member at once, then [`Self::open_proposal`].
    pub async fn create_proposal(
        &self,
        principal: &Principal,
        body: ProposalBody,
    ) -> Result<ProposalRecord, ProposalError> {
        let request = body.read(&self.reading_rules()).map_err(ProposalError::Invalid)?;
        self.open_proposal(principal, request).await
    }

    /// Route 5: a representative's proposal; customer, address and proposal in one transaction.
    #[tracing::instrument(skip_all, fields(product = request.product_code))]
    pub async fn open_proposal(
        &self,
        principal: &Principal,
        request: ProposalRequest,
    ) -> Result<ProposalRecord, ProposalError> {
        authorize(principal, Operation::CreateProposal)?;
        let representation = self
            .partners
            .representation(principal.user_id)
            .await?
            .ok_or(AccessError::NoPartner)?;
        let mut v = Violations::new();
        let product = self
            .resolve_catalog(&mut v, request.product_code, request.billing_code)
            .await?;
        if let Some(product) = &product
            && product.beneficiaries_required
            && request.beneficiaries.is_empty()
        {
            v.add(
                "beneficiaries",
                codes::REQUIRED,
                format!("o produto {} exige ao menos um beneficiário", product.code),
            );
        }
        if let (Some(product), PaymentDetails::AccountDebit(account)) = (&product, &request.payment)
            && !product.banks.iter().any(|b| b.code == account.bank)
        {
            v.add(
                "debitAccount.bank",
                codes::UNKNOWN_REFERENCE,
                format!("banco {} não é aceito pelo produto {}", account.bank, product.code),
            );
        }
        v.into_result().map_err(ProposalError::Invalid)?;
        let Some(product) = product else {
            return Err(ProposalError::Invalid(Violations::new()));
        };
        let diligence = self.screen(&request.customer).await?;
        let new = NewProposal {
            flow: Flow::Partner,
            seller: Seller::Partner {
                partner_id: representation.partner.partner_id,
            },
            product_id: product.id,
            billing_code: request.billing_code,
            value: product.value_cents,
            payment: Some(request.payment),
            shipping: request.shipping,
            customer: request.customer,
            address: request.address,
            partner: Some(PartnerLink {
                representative_id: Some(representation.representative_id),
                ..representation.partner
            }),
            beneficiaries: request.beneficiaries,
            kyc: diligence,
            changed_by: principal.email.clone(),
            at: self.clock.now(),
        };
        let record = self.proposals.create(&new).await?;
        tracing::info!(proposal_id = record.id, "proposal created");
        Ok(record)
    }

    /// Route 6, from its body: every bad member at once, then [`Self::open_ecommerce_proposal`].
    pub async fn create_ecommerce_proposal(
        &self,
        principal: &Principal,
        body: ShopProposalBody,
    ) -> Result<ProposalRecord, ProposalError> {
        let request = body.read(&self.reading_rules()).map_err(ProposalError::Invalid)?;
        self.open_ecommerce_proposal(principal, request).await
    }

    /// Route 6: the online shop's proposal. Its value is 0: the price is the subscription's.
    #[tracing::instrument(skip_all, fields(product = request.product_code))]
    pub async fn open_ecommerce_proposal(
        &self,
        principal: &Principal,
        request: EcommerceProposalRequest,
    ) -> Result<ProposalRecord, ProposalError> {
        authorize(principal, Operation::CreateEcommerceProposal)?;
        let mut v = Violations::new();
        let product = self
            .resolve_catalog(&mut v, request.product_code, request.billing_code)
            .await?;
        let partner = match request.partner_id {
            Some(id) => {
                let found = self.partners.partner(id).await?;
                if found.is_none() {
                    v.add(
                        "partnerId",
                        codes::UNKNOWN_REFERENCE,
                        format!("parceiro {id} não encontrado"),
                    );
                }
                found
            }
            None => None,
        };
        v.into_result().map_err(ProposalError::Invalid)?;
        let Some(product) = product else {
            return Err(ProposalError::Invalid(Violations::new()));
        };
        let diligence = self.screen(&request.customer).await?;
        // The shop's own registration, whichever partner the sale is credited to.
        let new = NewProposal {
            flow: Flow::Ecommerce,
            seller: Seller::Shop,
            product_id: product.id,
            billing_code: request.billing_code,
            value: 0,
            payment: None,
            shipping: request.shipping.unwrap_or(ShippingType::Sms),
            customer: request.customer,
            address: request.address,
            partner,
            beneficiaries: Vec::new(),
            kyc: diligence,
            changed_by: principal.email.clone(),
            at: self.clock.now(),
        };
        Ok(self.proposals.create(&new).await?)
    }

    /// Route 7: 404 for a missing proposal and for one outside the caller's scope alike; a
    /// seller reads of a request for documents the proponent answers only that it was asked and
    /// answered (decision 289).
    pub async fn detail(&self, principal: &Principal, identifier: &str) -> Result<ProposalDetail, ProposalError> {
        authorize(principal, Operation::ReadProposal)?;
        let scope = self.scope(principal).await?;
        let mut detail = self
            .proposals
            .detail(identifier, scope)
            .await?
            .ok_or(ProposalError::NotFound)?;
        detail.acceptance = detail.acceptance.map(|a| a.as_read_by(principal));
        Ok(detail)
    }

    /// The back office console's page of a proposal: its detail and its history.
    pub async fn dossier(
        &self,
        principal: &Principal,
        identifier: &str,
    ) -> Result<(ProposalDetail, Vec<HistoryEntry>), ProposalError> {
        authorize(principal, Operation::ReadProposal)?;
        let scope = self.scope(principal).await?;
        let (detail, history) = futures_util::try_join!(
            self.proposals.detail(identifier, scope),
            self.proposals.history(identifier, scope),
        )?;
        let history = history.map(|entries| reasons::history_as_read_by(entries, principal));
        detail.zip(history).ok_or(ProposalError::NotFound)
    }

    /// A proposal's history, scoped as route 7 (404 alike for missing and not the caller's).
    pub async fn history(&self, principal: &Principal, identifier: &str) -> Result<Vec<HistoryEntry>, ProposalError> {
        authorize(principal, Operation::ReadProposal)?;
        let scope = self.scope(principal).await?;
        let entries = self
            .proposals
            .history(identifier, scope)
            .await?
            .ok_or(ProposalError::NotFound)?;
        Ok(reasons::history_as_read_by(entries, principal))
    }

    /// The proposal list: the caller's scope, newest first, one page and the cursor of the next.
    pub async fn list(&self, principal: &Principal, search: &ProposalSearch) -> Result<ProposalPage, ProposalError> {
        authorize(principal, Operation::ReadProposal)?;
        let scope = self.scope(principal).await?;
        let mut records = self.proposals.search(search, scope).await?;
        let next = crate::paging::keep_page(&mut records, search.limit, |last| ListCursor {
            created_at: last.record.stamp.created_at,
            id: last.record.id,
        });
        Ok(ProposalPage { records, next })
    }

    /// Routes 8 and 9: true when no unfinished proposal exists for the CPF (or cell phone) and
    /// the product.
    pub async fn availability(&self, principal: &Principal, query: &AvailabilityQuery) -> Result<bool, ProposalError> {
        authorize(principal, Operation::CheckAvailability)?;
        let code = query.integration_code;
        let open = match &query.holder {
            Holder::Cpf(cpf) => self.proposals.has_open_for_cpf(cpf, code).await?,
            Holder::CellPhone(phone) => self.proposals.has_open_for_cell_phone(phone, code).await?,
        };
        Ok(!open.ok_or(ProposalError::UnknownProduct)?)
    }
}
