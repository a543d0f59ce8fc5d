//! Use-case tests of customers and proposals, over mocked ports.

use super::bodies::AvailabilityQuery;
use super::model::*;
use super::ports::*;
use super::service::*;
use crate::access::{AccessError, Scope};
use crate::auth::model::Principal;
use crate::catalog::model::{Bank, BillingGroup, Product};
use crate::catalog::ports::MockCatalogStore;
use crate::customers::{AddressData, CustomerData, MockCustomerStore, Seller};
use crate::kyc::cpf_status::{CpfSituation, MockCpfStatus, MockCpfStatusCache};
use crate::kyc::screening::{KycReasonCode, KycScreening, KycStatus, MockPepLookup};
use crate::stamp::ChangeStamp;
use crate::validation::Violations;
use crate::values::*;
use chrono::{NaiveDate, Utc};
use std::sync::Arc;

fn principal(application: Application) -> Principal {
    Principal {
        user_id: 7,
        email: "rep@parceiro.com.br".into(),
        application,
        session_id: uuid::Uuid::nil(),
    }
}

fn customer() -> CustomerData {
    CustomerData {
        marital_status: Some(MaritalStatus::Single),
        nationality: Some("Brasileira".into()),
        cell_phone: Some(CellPhone::parse("(11) 91234-5678").unwrap()),
        email: Some(Email::parse("maria@exemplo.com.br").unwrap()),
        profession: Some("Professora".into()),
        salary: Some(SalaryCents::from_cents(250_000, 141_200).unwrap()),
        working: Some(true),
        ..CustomerData::minimal(
            FullName::parse("Maria da Silva").unwrap(),
            Cpf::parse("12345678909").unwrap(),
            BirthDate::from_stored(NaiveDate::from_ymd_opt(1990, 5, 15).unwrap()),
            Gender::Female,
        )
    }
}

fn address() -> AddressData {
    AddressData {
        cep: Cep::parse("01310100").unwrap(),
        street: "Avenida Paulista".into(),
        number: "1000".into(),
        neighborhood: "Bela Vista".into(),
        city: "São Paulo".into(),
        state: Uf::Sp,
        complement: None,
    }
}

fn product(active: bool) -> Product {
    Product {
        id: 11,
        code: 101,
        name: "Seguro".into(),
        integration_code: 9101,
        active,
        value_cents: 4990,
        banks: vec![Bank {
            code: "001".into(),
            name: "Banco do Brasil".into(),
        }],
        price_id: None,
        beneficiaries_required: false,
        terms: None,
        stamp: ChangeStamp {
            changed_by: "seed".into(),
            created_at: Utc::now(),
            updated_at: Utc::now(),
        },
    }
}

fn group(product_code: i32) -> BillingGroup {
    BillingGroup {
        id: 1,
        billing_code: 5001,
        description: "Mensal".into(),
        integration_code: 9101,
        product_code,
        stamp: ChangeStamp {
            changed_by: "seed".into(),
            created_at: Utc::now(),
            updated_at: Utc::now(),
        },
    }
}

fn partner_link() -> PartnerLink {
    PartnerLink {
        partner_id: 3,
        partner_document: "11222333000181".into(),
        representative_id: None,
        association_cnpj: Some("12ABC34501DE35".into()),
        federation_cnpj: None,
    }
}

fn request(payment: PaymentDetails) -> ProposalRequest {
    ProposalRequest {
        billing_code: 5001,
        product_code: 101,
        payment,
        shipping: ShippingType::Sms,
        customer: customer(),
        address: address(),
        beneficiaries: Vec::new(),
    }
}

/// The shop's proposal of [`customer`], credited to `partner_id` if given.
fn shop_request(partner_id: Option<i64>) -> EcommerceProposalRequest {
    EcommerceProposalRequest {
        billing_code: 5001,
        product_code: 101,
        shipping: None,
        partner_id,
        customer: customer(),
        address: address(),
    }
}

fn debit(bank: &str) -> PaymentDetails {
    PaymentDetails::AccountDebit(BankAccount {
        bank: bank.into(),
        agency: "1234".into(),
        account: "5678-9".into(),
        operation: None,
    })
}

struct Mocks {
    proposals: MockProposalStore,
    customers: MockCustomerStore,
    catalog: MockCatalogStore,
    partners: MockPartnerDirectory,
    /// What the Receita answers of every CPF.
    cpf_status: CpfSituation,
}

impl Mocks {
    fn new() -> Self {
        let mut partners = MockPartnerDirectory::new();
        partners.expect_representation().returning(|_| {
            Ok(Some(Representation {
                representative_id: 5,
                partner: partner_link(),
            }))
        });
        Self {
            proposals: MockProposalStore::new(),
            customers: MockCustomerStore::new(),
            catalog: MockCatalogStore::new(),
            partners,
            cpf_status: CpfSituation::Regular,
        }
    }

    /// The screening: every CPF answered `cpf_status`, nothing kept, nobody on the list.
    fn screening(cpf_status: CpfSituation) -> KycScreening {
        let mut status = MockCpfStatus::new();
        status.expect_situation().returning(move |_| Ok(cpf_status));
        let mut cache = MockCpfStatusCache::new();
        cache.expect_fresh().returning(|_, _| Ok(None));
        cache.expect_keep().returning(|_, _, _| Ok(()));
        let mut pep = MockPepLookup::new();
        pep.expect_exposed().returning(|_, _, _| Ok(Vec::new()));
        KycScreening {
            cpf_status: Arc::new(status),
            cache: Arc::new(cache),
            pep_list: Arc::new(pep),
            clock: Arc::new(crate::clock::SystemClock),
            cache_for: chrono::Duration::hours(24),
        }
    }

    fn catalog(mut self, product: Option<Product>, group: Option<BillingGroup>) -> Self {
        self.catalog
            .expect_product_with_banks()
            .returning(move |_| Ok(product.clone()));
        self.catalog
            .expect_billing_group()
            .returning(move |_| Ok(group.clone()));
        self
    }

    fn service(self) -> ProposalService {
        ProposalService {
            proposals: Arc::new(self.proposals),
            customers: Arc::new(self.customers),
            catalog: Arc::new(self.catalog),
            partners: Arc::new(self.partners),
            clock: Arc::new(crate::clock::SystemClock),
            rules: CustomerRules::default(),
            kyc: Self::screening(self.cpf_status),
        }
    }
}

/// A representative's new proposal as the store answers it.
fn record() -> ProposalRecord {
    ProposalRecord {
        identifier: "abc".into(),
        value: 4990,
        partner_document: Some("11222333000181".into()),
        stamp: ChangeStamp {
            changed_by: "rep@parceiro.com.br".into(),
            ..crate::testing::detail("NOVO").proposal.stamp
        },
        shipping: ShippingType::Sms,
        product_id: 11,
        ..crate::testing::detail("NOVO").proposal
    }
}

fn fields(v: &Violations) -> Vec<&str> {
    v.errors().iter().map(|e| e.field.as_str()).collect()
}

#[tokio::test]
async fn a_proposal_carries_the_product_value_the_representative_and_the_actor() {
    let mut m = Mocks::new().catalog(Some(product(true)), Some(group(101)));
    m.proposals
        .expect_create()
        .withf(|p| {
            p.flow == Flow::Partner
                && p.seller == Seller::Partner { partner_id: 3 }
                && p.product_id == 11
                && p.value == 4990
                && p.changed_by == "rep@parceiro.com.br"
                && p.partner
                    .as_ref()
                    .is_some_and(|l| l.representative_id == Some(5) && l.partner_id == 3)
        })
        .times(1)
        .returning(|_| Ok(record()));
    let created = m
        .service()
        .open_proposal(&principal(Application::Partner), request(debit("001")))
        .await
        .unwrap();
    assert_eq!(created.status, ProposalStatus::New);
}

#[tokio::test]
async fn unknown_product_or_billing_group_of_another_product_or_bank_not_taken_are_field_errors() {
    let m = Mocks::new().catalog(None, Some(group(999)));
    let Err(ProposalError::Invalid(v)) = m
        .service()
        .open_proposal(&principal(Application::Partner), request(debit("001")))
        .await
    else {
        panic!()
    };
    assert_eq!(fields(&v), ["productCode", "billingCode"]);

    let m = Mocks::new().catalog(Some(product(true)), Some(group(101)));
    let Err(ProposalError::Invalid(v)) = m
        .service()
        .open_proposal(&principal(Application::Partner), request(debit("237")))
        .await
    else {
        panic!()
    };
    assert_eq!(fields(&v), ["debitAccount.bank"]);

    let m = Mocks::new().catalog(Some(product(false)), Some(group(101)));
    let Err(ProposalError::Invalid(v)) = m
        .service()
        .open_proposal(&principal(Application::Partner), request(debit("001")))
        .await
    else {
        panic!()
    };
    assert_eq!(fields(&v), ["productCode"]);
}

#[tokio::test]
async fn a_cpf_not_regular_refuses_the_sale_before_anything_is_stored_on_either_route() {
    for status in [
        CpfSituation::Cancelada,
        CpfSituation::Suspensa,
        CpfSituation::TitularFalecido,
    ] {
        let mut m = Mocks::new().catalog(Some(product(true)), Some(group(101)));
        m.cpf_status = status;
        m.proposals.expect_create().never();
        let result = m
            .service()
            .open_proposal(&principal(Application::Partner), request(debit("001")))
            .await;
        assert_eq!(result, Err(ProposalError::CpfIrregular(status)));
    }
    let mut m = Mocks::new().catalog(Some(product(true)), Some(group(101)));
    m.cpf_status = CpfSituation::Nula;
    m.proposals.expect_create().never();
    let result = m
        .service()
        .open_ecommerce_proposal(&principal(Application::Ecommerce), shop_request(None))
        .await;
    assert_eq!(result, Err(ProposalError::CpfIrregular(CpfSituation::Nula)));
}

#[tokio::test]
async fn a_self_declared_pep_is_stored_with_its_diligence_pending() {
    let mut m = Mocks::new().catalog(Some(product(true)), Some(group(101)));
    m.proposals
        .expect_create()
        .withf(|p| {
            p.kyc.as_ref().is_some_and(|k| {
                k.pep
                    && k.status == KycStatus::Pending
                    && k.reasons.iter().map(|r| r.code).eq([KycReasonCode::PepDeclared])
            })
        })
        .times(1)
        .returning(|_| Ok(record()));
    let mut declared = request(debit("001"));
    declared.customer.pep = Some(true);
    m.service()
        .open_proposal(&principal(Application::Partner), declared)
        .await
        .unwrap();

    let mut m = Mocks::new().catalog(Some(product(true)), Some(group(101)));
    m.proposals
        .expect_create()
        .withf(|p| p.kyc.is_none())
        .times(1)
        .returning(|_| Ok(record()));
    m.service()
        .open_proposal(&principal(Application::Partner), request(debit("001")))
        .await
        .unwrap();
}

#[tokio::test]
async fn a_duplicate_open_proposal_is_reported_as_such() {
    let mut m = Mocks::new().catalog(Some(product(true)), Some(group(101)));
    m.proposals
        .expect_create()
        .returning(|_| Err(CreateProposalError::DuplicateOpen));
    let result = m
        .service()
        .open_proposal(&principal(Application::Partner), request(debit("001")))
        .await;
    assert_eq!(result, Err(ProposalError::DuplicateOpen));
}

#[tokio::test]
async fn only_partners_create_standard_proposals_and_only_the_shop_ecommerce_ones() {
    let mut m = Mocks::new();
    m.proposals.expect_create().never();
    let service = m.service();
    for app in [Application::Ecommerce, Application::BackOffice] {
        assert_eq!(
            service.open_proposal(&principal(app), request(debit("001"))).await,
            Err(ProposalError::Access(AccessError::Forbidden))
        );
    }
    let ecommerce = EcommerceProposalRequest {
        billing_code: 5001,
        product_code: 101,
        shipping: None,
        partner_id: None,
        customer: customer(),
        address: address(),
    };
    assert_eq!(
        service
            .open_ecommerce_proposal(&principal(Application::Partner), ecommerce)
            .await,
        Err(ProposalError::Access(AccessError::Forbidden))
    );
}

#[tokio::test]
async fn an_ecommerce_proposal_is_worth_zero_and_defaults_to_sms() {
    let mut m = Mocks::new().catalog(Some(product(true)), Some(group(101)));
    m.proposals
        .expect_create()
        .withf(|p| {
            p.flow == Flow::Ecommerce
                && p.seller == Seller::Shop
                && p.value == 0
                && p.shipping == ShippingType::Sms
                && p.partner.is_none()
                && p.payment.is_none()
        })
        .returning(|_| Ok(record()));
    let request = EcommerceProposalRequest {
        billing_code: 5001,
        product_code: 101,
        shipping: None,
        partner_id: None,
        customer: customer(),
        address: address(),
    };
    assert!(
        m.service()
            .open_ecommerce_proposal(&principal(Application::Ecommerce), request)
            .await
            .is_ok()
    );
}

#[tokio::test]
async fn an_unknown_partner_id_on_an_ecommerce_proposal_is_a_field_error() {
    let mut m = Mocks::new().catalog(Some(product(true)), Some(group(101)));
    m.partners.expect_partner().returning(|_| Ok(None));
    let request = EcommerceProposalRequest {
        billing_code: 5001,
        product_code: 101,
        shipping: None,
        partner_id: Some(404),
        customer: customer(),
        address: address(),
    };
    let Err(ProposalError::Invalid(v)) = m
        .service()
        .open_ecommerce_proposal(&principal(Application::Ecommerce), request)
        .await
    else {
        panic!()
    };
    assert_eq!(fields(&v), ["partnerId"]);
}

#[tokio::test]
async fn the_detail_is_looked_up_in_the_callers_scope_and_missing_is_not_found() {
    let mut m = Mocks::new();
    m.proposals
        .expect_detail()
        .withf(|_, scope| {
            *scope
                == Scope::Partner {
                    partner_id: 3,
                    representative_id: 5,
                }
        })
        .returning(|_, _| Ok(None));
    assert_eq!(
        m.service()
            .detail(&principal(Application::Partner), "x")
            .await
            .unwrap_err(),
        ProposalError::NotFound
    );
    let mut m = Mocks::new();
    m.proposals
        .expect_detail()
        .withf(|_, scope| *scope == Scope::Ecommerce)
        .returning(|_, _| Ok(None));
    assert_eq!(
        m.service()
            .detail(&principal(Application::Ecommerce), "x")
            .await
            .unwrap_err(),
        ProposalError::NotFound
    );
}

#[tokio::test]
async fn a_partner_user_without_a_partner_is_refused() {
    let mut m = Mocks::new();
    m.partners = MockPartnerDirectory::new();
    m.partners.expect_representation().returning(|_| Ok(None));
    assert_eq!(
        m.service()
            .detail(&principal(Application::Partner), "x")
            .await
            .unwrap_err(),
        ProposalError::Access(AccessError::NoPartner)
    );
}

#[tokio::test]
async fn availability_is_the_absence_of_an_open_proposal_and_an_unknown_product_is_told() {
    let mut m = Mocks::new();
    m.proposals
        .expect_has_open_for_cpf()
        .returning(|_, code| Ok(if code == 9101 { Some(true) } else { None }));
    let service = m.service();
    let query = |code: &str| AvailabilityQuery::by_cpf("123.456.789-09", code).unwrap();
    assert_eq!(
        service
            .availability(&principal(Application::Ecommerce), &query("9101"))
            .await,
        Ok(false)
    );
    assert_eq!(
        service
            .availability(&principal(Application::Ecommerce), &query("1"))
            .await,
        Err(ProposalError::UnknownProduct)
    );
}

#[tokio::test]
async fn customers_created_by_a_partner_are_that_partners_own_registration() {
    let mut m = Mocks::new();
    m.customers
        .expect_upsert()
        .withf(|_, address, seller, by| {
            address.is_none() && *seller == Seller::Partner { partner_id: 3 } && by == "rep@parceiro.com.br"
        })
        .returning(|_, _, _, _| Err(crate::store::StoreError::Unavailable("x".into()).into()));
    let result = m
        .service()
        .register_customer(&principal(Application::Partner), customer(), None)
        .await;
    assert!(matches!(result, Err(ProposalError::Store(_))));
}

#[tokio::test]
async fn only_the_back_office_reads_every_sellers_registration() {
    let mut m = Mocks::new();
    m.customers.expect_registrations().times(1).returning(|_| Ok(vec![]));
    let service = m.service();
    let cpf = Cpf::parse("12345678909").unwrap();
    for app in [Application::Ecommerce, Application::Partner] {
        assert_eq!(
            service.registrations(&principal(app), &cpf).await,
            Err(ProposalError::Access(AccessError::Forbidden))
        );
    }
    assert_eq!(
        service.registrations(&principal(Application::BackOffice), &cpf).await,
        Ok(vec![])
    );
}

#[tokio::test]
async fn the_list_is_searched_in_the_callers_scope_and_a_further_row_makes_the_next_cursor() {
    use super::search::{ListCursor, ProposalSearch};
    let numbered = |id: i64| super::search::ListedProposal {
        record: ProposalRecord { id, ..record() },
        customer_name: Some("Maria da Silva".into()),
        customer_cpf: Some("12345678909".into()),
    };
    let mut m = Mocks::new();
    m.proposals
        .expect_search()
        .withf(|search, scope| {
            search.limit == 2
                && *scope
                    == Scope::Partner {
                        partner_id: 3,
                        representative_id: 5,
                    }
        })
        .returning(move |_, _| Ok(vec![numbered(30), numbered(20), numbered(10)]));
    let search = ProposalSearch {
        limit: 2,
        ..ProposalSearch::default()
    };
    let page = m
        .service()
        .list(&principal(Application::Partner), &search)
        .await
        .unwrap();
    assert_eq!(
        page.records.iter().map(|r| r.record.id).collect::<Vec<_>>(),
        vec![30, 20]
    );
    assert_eq!(
        page.next,
        Some(ListCursor {
            created_at: page.records[1].record.stamp.created_at,
            id: 20
        })
    );

    // As many rows as the limit: the last page.
    let mut m = Mocks::new();
    m.proposals
        .expect_search()
        .withf(|_, scope| *scope == Scope::Everything)
        .returning(move |_, _| Ok(vec![numbered(30), numbered(20)]));
    let page = m
        .service()
        .list(&principal(Application::BackOffice), &search)
        .await
        .unwrap();
    assert_eq!((page.records.len(), page.next), (2, None));
}

#[tokio::test]
async fn the_history_is_read_in_the_callers_scope_and_missing_is_not_found() {
    let mut m = Mocks::new();
    m.proposals
        .expect_history()
        .withf(|identifier, scope| identifier == "p-1" && *scope == Scope::Ecommerce)
        .returning(|_, _| Ok(None));
    assert_eq!(
        m.service()
            .history(&principal(Application::Ecommerce), "p-1")
            .await
            .unwrap_err(),
        ProposalError::NotFound
    );
    let mut m = Mocks::new();
    m.proposals
        .expect_history()
        .withf(|_, scope| *scope == Scope::Everything)
        .returning(|_, _| {
            Ok(Some(vec![crate::history::HistoryEntry {
                at: Utc::now(),
                by: "rep@parceiro.com.br".into(),
                action: crate::history::actions::CREATED.into(),
                changes: Default::default(),
            }]))
        });
    let entries = m
        .service()
        .history(&principal(Application::BackOffice), "p-1")
        .await
        .unwrap();
    assert_eq!(entries[0].action, "criacao");
}
