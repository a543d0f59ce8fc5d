//! Repository tests of customers, proposals and the catalog against real PostgreSQL.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapters_postgres::testing::TestDatabase;
use adapters_postgres::{PgCatalog, PgPool, PgProposals, PoolSettings, build_pool, seed};
use diesel_async::{RunQueryDsl, SimpleAsyncConnection};
use domain::access::Scope;
use domain::catalog::model::{ListQuery, ProductField};
use domain::catalog::ports::CatalogStore;
use domain::customers::{CustomerStore, Seller};
use domain::proposals::model::{Flow, NewProposal, PartnerLink, PaymentDetails};
use domain::proposals::ports::{CreateProposalError, PartnerDirectory, ProposalStore};
use domain::proposals::search::ProposalSearch;
use domain::store::StoreError;
use domain::testing::{address, customer};
use domain::values::*;

#[derive(diesel::QueryableByName)]
struct Count {
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    n: i64,
}

async fn count(pool: &PgPool, sql: &str) -> i64 {
    let mut conn = pool.get().await.unwrap();
    diesel::sql_query(sql).get_result::<Count>(&mut conn).await.unwrap().n
}

async fn seeded() -> (TestDatabase, PgPool, PgProposals, i64) {
    let db = TestDatabase::new().await;
    let pool = build_pool(&PoolSettings::new(&db.url)).unwrap();
    seed::seed_demo_catalog(&pool).await.unwrap();
    let product_id = PgCatalog::new(pool.clone())
        .product_with_banks(101)
        .await
        .unwrap()
        .unwrap()
        .id;
    (db, pool.clone(), PgProposals::new(pool), product_id)
}

async fn new_proposal(proposals: &PgProposals, product_id: i64, name: &str, street: &str) -> NewProposal {
    let partner = proposals.partner(1).await.unwrap().unwrap();
    NewProposal {
        flow: Flow::Ecommerce,
        seller: Seller::Shop,
        product_id,
        billing_code: 5001,
        value: 0,
        payment: Some(PaymentDetails::PayrollDiscount {
            number: "123".into(),
            specie: 41,
            sheet_type: SheetType::Benefit,
        }),
        shipping: ShippingType::Sms,
        customer: customer(name),
        address: address(street),
        partner: Some(PartnerLink {
            representative_id: None,
            ..partner
        }),
        beneficiaries: Vec::new(),
        kyc: None,
        changed_by: "teste@exemplo.com.br".into(),
        at: chrono::Utc::now(),
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_refused_proposal_rolls_back_the_customer_and_address_it_wrote() {
    let (_db, pool, proposals, product_id) = seeded().await;
    proposals
        .create(&new_proposal(&proposals, product_id, "Maria da Silva", "Avenida Paulista").await)
        .await
        .unwrap();
    let again = proposals
        .create(&new_proposal(&proposals, product_id, "Mariana Trocada", "Rua Trocada").await)
        .await;
    assert_eq!(again, Err(CreateProposalError::DuplicateOpen));
    assert_eq!(
        count(
            &pool,
            "SELECT count(*) AS n FROM customers WHERE nome_completo = 'Maria da Silva'"
        )
        .await,
        1
    );
    assert_eq!(
        count(
            &pool,
            "SELECT count(*) AS n FROM addresses WHERE endereco = 'Avenida Paulista'"
        )
        .await,
        1
    );
    assert_eq!(count(&pool, "SELECT count(*) AS n FROM proposals").await, 1);
    assert_eq!(count(&pool, "SELECT count(*) AS n FROM proposal_payments").await, 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn concurrent_creates_for_one_customer_and_product_store_exactly_one() {
    let (_db, pool, proposals, product_id) = seeded().await;
    let proposal = new_proposal(&proposals, product_id, "Maria da Silva", "Avenida Paulista").await;
    let attempts = (0..10).map(|_| proposals.create(&proposal));
    let results = futures_util::future::join_all(attempts).await;
    assert_eq!(results.iter().filter(|r| r.is_ok()).count(), 1);
    assert!(
        results
            .iter()
            .filter(|r| r.is_err())
            .all(|r| *r == Err(CreateProposalError::DuplicateOpen))
    );
    assert_eq!(count(&pool, "SELECT count(*) AS n FROM proposals").await, 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn an_upsert_keeps_what_is_not_sent_and_each_seller_has_a_registration_of_its_own() {
    let (_db, pool, proposals, _) = seeded().await;
    let partner_1 = Seller::Partner { partner_id: 1 };
    let first = proposals
        .upsert(&customer("Maria da Silva"), None, partner_1, "a@exemplo.com.br")
        .await
        .unwrap();
    assert!(first.person.pep);
    let mut update = customer("Maria da Silva Souza");
    update.pep = None;
    update.nationality = None;
    let second = proposals
        .upsert(&update, Some(address("Rua Nova")), partner_1, "b@exemplo.com.br")
        .await
        .unwrap();
    assert_eq!(second.id, first.id);
    assert!(second.person.pep, "not sent: kept");
    assert_eq!(second.person.nationality.as_deref(), Some("Brasileira"));
    assert_eq!(second.person.full_name, "Maria da Silva Souza");
    assert!(second.address_id.is_some());
    assert_eq!(count(&pool, "SELECT count(*) AS n FROM customers").await, 1);
    let cpf = Cpf::parse("12345678909").unwrap();
    assert_eq!(
        proposals
            .ownership(
                &cpf,
                Scope::Partner {
                    partner_id: 1,
                    representative_id: 1
                }
            )
            .await
            .unwrap(),
        Some(vec![])
    );
    assert_eq!(
        proposals
            .ownership(
                &cpf,
                Scope::Partner {
                    partner_id: 2,
                    representative_id: 2
                }
            )
            .await
            .unwrap(),
        None
    );

    // The shop registers the same CPF with nothing optional: a record of its own, and the
    // partner's is untouched.
    let mut bare = customer("Maria Loja");
    bare.pep = None;
    bare.medication_description = None;
    let shop = proposals
        .upsert(&bare, None, Seller::Shop, "loja@exemplo.com.br")
        .await
        .unwrap();
    assert_ne!(shop.id, first.id);
    assert!(!shop.person.pep, "nothing of the partner's registration shows through");
    assert_eq!(shop.person.medication_description, None);
    let registrations = proposals.registrations(&cpf).await.unwrap();
    assert_eq!(registrations.len(), 2);
    assert_eq!(registrations[0].seller.seller, partner_1);
    assert_eq!(registrations[0].customer.person.full_name, "Maria da Silva Souza");
    assert_eq!(
        registrations[0].seller.partner_document.as_deref(),
        Some("11222333000181")
    );
    assert_eq!(registrations[1].seller.seller, Seller::Shop);
    assert_eq!(registrations[1].customer.person.full_name, "Maria Loja");
    assert_eq!(
        proposals.ownership(&cpf, Scope::Everything).await.unwrap(),
        Some(vec![]),
        "the back office sees registrations with no proposals"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_proposal_follows_its_sellers_corrections_while_new_and_is_frozen_once_it_leaves_new() {
    let (_db, pool, proposals, product_id) = seeded().await;
    let record = proposals
        .create(&new_proposal(&proposals, product_id, "Maria da Silva", "Avenida Paulista").await)
        .await
        .unwrap();
    let shown = |identifier: String| {
        let proposals = proposals.clone();
        async move {
            let d = proposals.detail(&identifier, Scope::Everything).await.unwrap().unwrap();
            (d.customer.person.full_name, d.address.unwrap().street)
        }
    };
    // Another seller's registration of the CPF changes nothing the proposal shows.
    proposals
        .upsert(
            &customer("Outra Pessoa"),
            Some(address("Rua de Outro")),
            Seller::Partner { partner_id: 1 },
            "x@exemplo.com.br",
        )
        .await
        .unwrap();
    assert_eq!(
        shown(record.identifier.clone()).await,
        ("Maria da Silva".to_owned(), "Avenida Paulista".to_owned())
    );
    // Its own seller's correction reaches it while it is NOVO.
    proposals
        .upsert(
            &customer("Maria da Silva Corrigida"),
            Some(address("Rua Corrigida")),
            Seller::Shop,
            "loja@exemplo.com.br",
        )
        .await
        .unwrap();
    assert_eq!(
        shown(record.identifier.clone()).await,
        ("Maria da Silva Corrigida".to_owned(), "Rua Corrigida".to_owned())
    );
    // Once it left NOVO, nothing changes it.
    let mut conn = pool.get().await.unwrap();
    diesel::sql_query("UPDATE proposals SET status = 'AGUARDANDO ASSINATURA'")
        .execute(&mut conn)
        .await
        .unwrap();
    proposals
        .upsert(
            &customer("Maria Mudou Depois"),
            Some(address("Rua Depois")),
            Seller::Shop,
            "loja@exemplo.com.br",
        )
        .await
        .unwrap();
    assert_eq!(
        shown(record.identifier.clone()).await,
        ("Maria da Silva Corrigida".to_owned(), "Rua Corrigida".to_owned())
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_one_open_proposal_rule_holds_across_sellers() {
    let (_db, _pool, proposals, product_id) = seeded().await;
    proposals
        .create(&new_proposal(&proposals, product_id, "Maria da Silva", "Avenida Paulista").await)
        .await
        .unwrap();
    // Made from another seller's registration (another customer row), same CPF and product.
    let mut by_partner = new_proposal(&proposals, product_id, "Maria da Silva", "Avenida Paulista").await;
    by_partner.seller = Seller::Partner { partner_id: 1 };
    assert_eq!(
        proposals.create(&by_partner).await,
        Err(CreateProposalError::DuplicateOpen)
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_detail_is_found_only_within_scope_and_open_checks_see_only_unfinished_proposals() {
    let (_db, pool, proposals, product_id) = seeded().await;
    // A shop's proposal that credits partner 1 (route 6's `partnerId`): the shop's, not the partner's.
    let record = proposals
        .create(&new_proposal(&proposals, product_id, "Maria da Silva", "Avenida Paulista").await)
        .await
        .unwrap();
    assert!(
        proposals
            .detail(&record.identifier, Scope::Ecommerce)
            .await
            .unwrap()
            .is_some()
    );
    let partner_1 = Scope::Partner {
        partner_id: 1,
        representative_id: 1,
    };
    assert!(
        proposals.detail(&record.identifier, partner_1).await.unwrap().is_none(),
        "the credited partner does not see the shop's proposal"
    );
    let mut conn = pool.get().await.unwrap();
    diesel::sql_query(
        "WITH u AS (INSERT INTO users (email, password_hash) VALUES ('rep@exemplo.com.br', 'x') RETURNING id),
              r AS (INSERT INTO representatives (user_id, partner_id) SELECT id, 1 FROM u RETURNING id)
         UPDATE proposals SET fluxo = 'PARCEIRO', id_representante = (SELECT id FROM r)",
    )
    .execute(&mut conn)
    .await
    .unwrap();
    assert!(
        proposals.detail(&record.identifier, partner_1).await.unwrap().is_some(),
        "a partner-flow proposal is its partner's"
    );
    assert!(
        proposals
            .detail(
                &record.identifier,
                Scope::Partner {
                    partner_id: 99,
                    representative_id: 1
                }
            )
            .await
            .unwrap()
            .is_none()
    );
    let cpf = Cpf::parse("12345678909").unwrap();
    assert_eq!(proposals.has_open_for_cpf(&cpf, 9101).await.unwrap(), Some(true));
    assert_eq!(proposals.has_open_for_cpf(&cpf, 1).await.unwrap(), None);
    diesel::sql_query("UPDATE proposals SET status = 'REPROVADO'")
        .execute(&mut conn)
        .await
        .unwrap();
    assert_eq!(proposals.has_open_for_cpf(&cpf, 9101).await.unwrap(), Some(false));
    assert_eq!(
        proposals
            .has_open_for_cell_phone(&CellPhone::parse("11912345678").unwrap(), 9101)
            .await
            .unwrap(),
        Some(false)
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_database_refuses_a_status_outside_the_lifecycle() {
    let (_db, pool, proposals, product_id) = seeded().await;
    proposals
        .create(&new_proposal(&proposals, product_id, "Maria da Silva", "Avenida Paulista").await)
        .await
        .unwrap();
    let mut conn = pool.get().await.unwrap();
    let refused = diesel::sql_query("UPDATE proposals SET status = 'PERDIDO'")
        .execute(&mut conn)
        .await;
    assert!(refused.unwrap_err().to_string().contains("proposals_status_check"));
}

/// A value no enum spells (written past the CHECK, as a hand edit or a faulty migration would)
/// is an internal error naming the table, the column and the value wherever the row is read:
/// never a default, never "no change".
#[tokio::test(flavor = "multi_thread")]
async fn a_stored_value_outside_its_enum_is_an_internal_error_naming_where_it_is() {
    let (_db, pool, proposals, product_id) = seeded().await;
    let record = proposals
        .create(&new_proposal(&proposals, product_id, "Maria da Silva", "Avenida Paulista").await)
        .await
        .unwrap();
    let mut conn = pool.get().await.unwrap();
    conn.batch_execute(
        "ALTER TABLE proposals DROP CONSTRAINT proposals_status_check, DROP CONSTRAINT proposals_tipo_envio_check;
         UPDATE proposals SET status = 'PERDIDO'",
    )
    .await
    .unwrap();
    let broken = StoreError::Unexpected("valor desconhecido em proposals.status: \"PERDIDO\"".into());
    assert_eq!(
        proposals.detail(&record.identifier, Scope::Everything).await,
        Err(broken.clone())
    );
    let search = ProposalSearch::parse(&[]).unwrap();
    assert_eq!(
        proposals.search(&search, Scope::Everything).await.map(|_| ()),
        Err(broken)
    );

    diesel::sql_query("UPDATE proposals SET status = 'NOVO', tipo_envio = 'pombo'")
        .execute(&mut conn)
        .await
        .unwrap();
    assert_eq!(
        proposals.detail(&record.identifier, Scope::Everything).await,
        Err(StoreError::Unexpected(
            "valor desconhecido em proposals.tipo_envio: \"pombo\"".into()
        ))
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn product_listing_filters_by_boolean_and_out_of_range_codes_match_nothing() {
    let (_db, pool, _, _) = seeded().await;
    let catalog = PgCatalog::new(pool);
    let params = |list: &[(&str, &str)]| {
        list.iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect::<Vec<_>>()
    };
    let active = ListQuery::<ProductField>::parse(&params(&[("conditions[ativo]", "true")])).unwrap();
    assert_eq!(catalog.list_products(&active).await.unwrap().len(), 3);
    let huge = ListQuery::<ProductField>::parse(&params(&[("conditions[codigo_produto]", "99999999999")])).unwrap();
    assert!(catalog.list_products(&huge).await.unwrap().is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_proposal_for_a_known_customer_rewrites_the_stored_address_and_keeps_a_debit_payment() {
    let (_db, pool, proposals, product_id) = seeded().await;
    let known = proposals
        .upsert(
            &customer("Maria da Silva"),
            Some(address("Rua Antiga")),
            Seller::Shop,
            "a@exemplo.com.br",
        )
        .await
        .unwrap();
    let mut proposal = new_proposal(&proposals, product_id, "Maria da Silva", "Avenida Paulista").await;
    proposal.payment = Some(PaymentDetails::AccountDebit(BankAccount {
        bank: "104".into(),
        agency: "1234".into(),
        account: "567890".into(),
        operation: Some("013".into()),
    }));
    let record = proposals.create(&proposal).await.unwrap();

    let detail = proposals
        .detail(&record.identifier, Scope::Everything)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(detail.customer.registration_id, known.id);
    assert_eq!(detail.address.unwrap().street, "Avenida Paulista");
    assert_eq!(
        count(&pool, "SELECT count(*) AS n FROM addresses").await,
        1,
        "rewritten, not added"
    );
    let payment = detail.payment.unwrap();
    assert_eq!(payment.payment_type, PaymentType::AccountDebit);
    assert_eq!(
        (
            payment.bank.as_deref(),
            payment.agency.as_deref(),
            payment.account.as_deref()
        ),
        (Some("104"), Some("1234"), Some("567890"))
    );
    assert_eq!(payment.operation.as_deref(), Some("013"));
    assert_eq!((payment.sheet_number, payment.specie), (None, None));
    assert_eq!(count(&pool, "SELECT count(*) AS n FROM customers").await, 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_registration_without_an_address_gets_one_with_its_first_proposal_and_a_later_correction_without_one_keeps_it()
 {
    let (_db, _pool, proposals, product_id) = seeded().await;
    // Route 3 without an address: the registration has none.
    let registered = proposals
        .upsert(&customer("Maria da Silva"), None, Seller::Shop, "loja@exemplo.com.br")
        .await
        .unwrap();
    assert_eq!(registered.address_id, None);

    // The first proposal writes the address under an id the registration now holds.
    let record = proposals
        .create(&new_proposal(&proposals, product_id, "Maria da Silva", "Avenida Paulista").await)
        .await
        .unwrap();
    assert_eq!(record.customer_id, registered.id, "the same registration");
    let with_address = proposals
        .upsert(&customer("Maria da Silva"), None, Seller::Shop, "loja@exemplo.com.br")
        .await
        .unwrap();
    let address_id = with_address
        .address_id
        .expect("the proposal's address is the registration's");
    let seller_view = proposals.registrations(&cpf()).await.unwrap();
    assert_eq!(seller_view[0].address.as_ref().unwrap().street, "Avenida Paulista");

    // A correction without an address reaches the NOVO proposal's copy and keeps its address.
    let corrected = proposals
        .upsert(
            &customer("Maria Corrigida Sem Endereço"),
            None,
            Seller::Shop,
            "loja@exemplo.com.br",
        )
        .await
        .unwrap();
    assert_eq!(
        corrected.address_id,
        Some(address_id),
        "the address is kept, not replaced"
    );
    let detail = proposals
        .detail(&record.identifier, Scope::Everything)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(detail.customer.person.full_name, "Maria Corrigida Sem Endereço");
    let shown = detail.address.unwrap();
    assert_eq!(
        (shown.street.as_str(), shown.city.as_str()),
        ("Avenida Paulista", "São Paulo")
    );

    // A refused proposal (one open per CPF and product) leaves the address as it was: the whole
    // statement is undone, its address part too.
    let refused = proposals
        .create(&new_proposal(&proposals, product_id, "Maria da Silva", "Rua Nova").await)
        .await;
    assert_eq!(refused, Err(CreateProposalError::DuplicateOpen));
    let seller_view = proposals.registrations(&cpf()).await.unwrap();
    assert_eq!(seller_view[0].address.as_ref().unwrap().street, "Avenida Paulista");
    assert_eq!(seller_view[0].customer.address_id, Some(address_id));
}

/// The CPF of `domain::testing::customer`.
fn cpf() -> Cpf {
    Cpf::parse("12345678909").unwrap()
}
