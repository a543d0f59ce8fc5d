//! Proposals: what creating one needs, the stored record, and the detail read model.

pub use crate::billing::pix::PayerAccount;
pub use crate::customers::AddressView;
use crate::customers::{AddressData, CustomerData, CustomerSnapshot, Seller};
use crate::stamp::ChangeStamp;
pub use crate::values::Flow;
use crate::values::{BankAccount, PartyStatus, PaymentType, ProposalStatus, SheetType, ShippingType};
use chrono::{DateTime, Utc};

/// How a standard proposal is paid, with the fields each way needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PaymentDetails {
    /// `DESCONTO EM FOLHA`: the benefit or registration number, its kind and species.
    PayrollDiscount {
        number: String,
        specie: i32,
        sheet_type: SheetType,
    },
    /// `DÉBITO EM CONTA`.
    AccountDebit(BankAccount),
    /// `PIX AUTOMÁTICO`: the payer's account when the seller has it (the recurrence is then
    /// offered to the payer by their own bank, jornada 1), else none (the customer reads the QR
    /// code, jornada 2).
    PixAutomatic(Option<PayerAccount>),
}

impl PaymentDetails {
    /// The way of payment these details are for.
    pub fn payment_type(&self) -> PaymentType {
        match self {
            PaymentDetails::PayrollDiscount { .. } => PaymentType::PayrollDiscount,
            PaymentDetails::AccountDebit(_) => PaymentType::AccountDebit,
            PaymentDetails::PixAutomatic(_) => PaymentType::PixAutomatic,
        }
    }
}

/// A standard proposal (route 5), its fields valid.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProposalRequest {
    pub billing_code: i32,
    pub product_code: i32,
    pub payment: PaymentDetails,
    pub shipping: ShippingType,
    pub customer: CustomerData,
    pub address: AddressData,
    /// None: the legal heirs (decision 279).
    pub beneficiaries: Vec<crate::proposals::beneficiaries::Beneficiary>,
}

/// An e-commerce proposal (route 6), its fields valid.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EcommerceProposalRequest {
    pub billing_code: i32,
    pub product_code: i32,
    pub shipping: Option<ShippingType>,
    pub partner_id: Option<i64>,
    pub customer: CustomerData,
    pub address: AddressData,
}

/// Everything the store writes for a new proposal, references already resolved by the use case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewProposal {
    pub flow: Flow,
    /// Whose registration of the customer the proposal is made from (and writes to).
    pub seller: Seller,
    pub product_id: i64,
    pub billing_code: i32,
    pub value: i64,
    pub payment: Option<PaymentDetails>,
    pub shipping: ShippingType,
    pub customer: CustomerData,
    pub address: AddressData,
    pub partner: Option<PartnerLink>,
    /// The beneficiaries named (route 5; none: the legal heirs).
    pub beneficiaries: Vec<crate::proposals::beneficiaries::Beneficiary>,
    /// The due diligence the customer's screening calls for (none: clear).
    pub kyc: Option<crate::kyc::screening::KycView>,
    pub changed_by: String,
    /// When the service created it (its `criadoEm`, and its `PROPOSTA_CRIADA` event's).
    pub at: DateTime<Utc>,
}

/// The seller behind a proposal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartnerLink {
    pub partner_id: i64,
    pub partner_document: String,
    pub representative_id: Option<i64>,
    pub association_cnpj: Option<String>,
    pub federation_cnpj: Option<String>,
}

/// A stored proposal: the record routes 5 and 6 answer and each of the list's records (their
/// wire shape is the HTTP edge's `ProposalRecordDto`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProposalRecord {
    pub id: i64,
    pub identifier: String,
    pub jave_id: Option<String>,
    /// Cents (0 for e-commerce proposals).
    pub value: i64,
    pub partner_document: Option<String>,
    pub representative_id: Option<i64>,
    pub customer_id: i64,
    pub document_key: Option<String>,
    pub signature_request_key: Option<String>,
    pub resends: i32,
    pub status: ProposalStatus,
    pub stamp: ChangeStamp,
    pub association_cnpj: Option<String>,
    pub federation_cnpj: Option<String>,
    pub shipping: ShippingType,
    pub notification_resends: i32,
    pub flow: Flow,
    pub associate_code: Option<String>,
    pub motivation_id: i32,
    pub product_id: i64,
    pub recording_id: Option<String>,
    pub invite_id: Option<String>,
    pub electronic_signature: Option<String>,
    pub billing_code: i32,
}

/// Route 7's answer, gathered in a fixed number of queries.
#[derive(Debug, Clone, PartialEq)]
pub struct ProposalDetail {
    pub proposal: ProposalRecord,
    pub product_name: String,
    pub product_code: i32,
    pub motivation: String,
    pub representative: Option<RepresentativeView>,
    /// The customer and address as the proposal shows them: its own copy, made with it, refreshed
    /// from its seller's registration while it is NOVO and frozen afterwards.
    pub customer: ProposalCustomer,
    pub address: Option<AddressView>,
    pub partner: Option<PartnerView>,
    pub signature: Option<SignatureView>,
    pub payment: Option<PaymentView>,
    /// The e-commerce sale's recurring subscription as the payment platform last told it.
    pub subscription: Option<SubscriptionView>,
    /// The acceptance clock, from the proposal's entry in `EM ANÁLISE` (issue 45).
    pub acceptance: Option<crate::acceptance::AcceptanceView>,
    /// Every refund of the proposal: regret, refusal, cancellation (issue 45), oldest first.
    pub refunds: Vec<crate::refunds::RefundRecord>,
    /// The contract's last [`crate::billing::CHARGES_SHOWN`] charges, oldest first (none before
    /// its acceptance, nor for a card sale).
    pub charges: Vec<crate::billing::Charge>,
    /// The contract's billing status, from its acceptance on.
    pub billing: Option<crate::billing::Billing>,
    /// The `PIX AUTOMÁTICO` contract's recurrence at the PSP, from the last signature on.
    pub pix_recurrence: Option<crate::billing::pix::RecurrenceView>,
    /// The `DESCONTO EM FOLHA` contract's averbação, from its request on (issue 67).
    pub averbacao: Option<crate::billing::averbacao::AverbacaoView>,
    /// The contract's current term, from its acceptance on (issue 67, decision 270).
    pub term: Option<crate::billing::term::ContractTerm>,
    /// The contract's money as its ledger has it (issue 65): due, received, refunded, owed back.
    pub ledger: crate::ledger::LedgerBalance,
    /// The beneficiaries the insured named, in their order (none: the legal heirs; decision 279).
    pub beneficiaries: Vec<crate::proposals::beneficiaries::BeneficiaryView>,
    /// The product's line for the IOF (decision 280), as the catalog holds it.
    pub line: crate::contract::insurance::InsuranceLine,
    /// The contract's current certificate, from its acceptance on (decision 281).
    pub certificate: Option<CertificateView>,
    /// The due diligence of the customer (issue 70), when the screening called for it.
    pub kyc: Option<crate::kyc::screening::KycView>,
}

impl ProposalDetail {
    /// The contract's premium split into net premium and IOF (route 7's `data.premium`,
    /// decision 281), from what is charged: the proposal's value, or an online sale's (which
    /// records none) the price its subscription on the payment platform charges. None before
    /// either is known.
    pub fn premium(&self) -> Option<crate::contract::insurance::PremiumSplit> {
        let total = if self.proposal.value > 0 {
            Some(self.proposal.value)
        } else {
            self.subscription.as_ref().and_then(|s| s.price)
        };
        total.map(|total| crate::contract::insurance::PremiumSplit::of(total, self.line))
    }
}

/// A contract's certificate as route 7 shows it (`data.certificate`): its number from the
/// acceptance on, when it was issued and the issued PDF's SHA-256 once it was.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CertificateView {
    pub number: String,
    pub issued_at: Option<DateTime<Utc>>,
    pub sha256: Option<String>,
}

/// A proposal's subscription on the payment platform (route 7's `data.subscription`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubscriptionView {
    /// The platform's id (`sub_…`).
    pub id: String,
    /// As the platform writes it (`active`, `past_due`, `canceled`, …).
    pub status: String,
    pub current_period_end: Option<DateTime<Utc>>,
    pub latest_invoice_status: Option<String>,
    /// What its price charges each period, in cents, as the platform's subscription states it
    /// (its first item's price): the premium of an online sale.
    pub price: Option<i64>,
}

/// The customer data a proposal holds (see [`ProposalDetail::customer`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProposalCustomer {
    /// The seller's registration the copy came from (`id_cliente`).
    pub registration_id: i64,
    pub person: CustomerSnapshot,
    pub stamp: ChangeStamp,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RepresentativeView {
    pub cpf: Option<String>,
    pub email: String,
    pub name: Option<String>,
    pub video_attendance_token: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartnerView {
    pub document: String,
    pub fantasy_name: Option<String>,
    pub social_reason: String,
    /// Who changed it last, and when it was made and changed.
    pub stamp: ChangeStamp,
    pub company_cnpj: Option<String>,
    pub company_fantasy_name: Option<String>,
    pub company_social_reason: Option<String>,
    pub association_cnpj: Option<String>,
    pub association_name: Option<String>,
    pub federation_cnpj: Option<String>,
    pub federation_name: Option<String>,
}

/// The four parties' keys and statuses (filled by the signature issue).
#[derive(Debug, Clone, PartialEq)]
pub struct SignatureView {
    pub id: i64,
    pub client_key: Option<String>,
    pub association_key: Option<String>,
    pub federation_key: Option<String>,
    pub enterprise_key: Option<String>,
    pub client_status: Option<PartyStatus>,
    pub association_status: Option<PartyStatus>,
    pub federation_status: Option<PartyStatus>,
    pub enterprise_status: Option<PartyStatus>,
    /// Who changed it last, and when it was made and changed.
    pub stamp: ChangeStamp,
    pub latitude: Option<String>,
    pub longitude: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PaymentView {
    pub id: i64,
    pub payment_type: PaymentType,
    pub card_name: Option<String>,
    pub card_number: Option<String>,
    pub card_expiry: Option<String>,
    pub billing_day: Option<i32>,
    pub bank: Option<String>,
    pub agency: Option<String>,
    pub account: Option<String>,
    pub operation: Option<String>,
    pub sheet_number: Option<String>,
    pub sheet_type: Option<SheetType>,
    pub specie: Option<i32>,
    pub issuer_body: Option<String>,
    /// The payer's PSP (`PIX AUTOMÁTICO` with the payer's account; `agency` and `account` are then
    /// that account's).
    pub ispb: Option<String>,
    /// Who changed it last, and when it was made and changed.
    pub stamp: ChangeStamp,
}
