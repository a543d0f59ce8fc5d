//! The proposal's read model (defined in Rust, `read_model::build_documents`) stays equal to its
//! parts: random sequences of the operations that change a proposal (creation, corrections while
//! NOVO, sending, resends, each party's signature or refusal, status moves, anonymisation, an
//! operator's SQL edit of the partner or representative it shows followed by the repair), each
//! followed by the check that builds every document again from its parts and by a comparison of
//! route 7's read with the detail built afresh. Also: the check command finds and mends a
//! document that drifted, and the migration builds documents for existing rows, down and up.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapters_postgres::testing::{TestDatabase, line, revert_through};
use adapters_postgres::{
    PgCatalog, PgPersonalData, PgPool, PgProposals, PgSignatures, PoolSettings, ReadModelReport, build_pool,
    check_read_model, migrations, read_model, seed,
};
use chrono::Utc;
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl, SimpleAsyncConnection};
use domain::access::Scope;
use domain::catalog::ports::CatalogStore;
use domain::customers::{CustomerData, CustomerStore, RegistrationError, Seller};
use domain::privacy::{AnonymizeOutcome, PersonalDataStore};
use domain::proposals::lifecycle::StatusChange;
use domain::proposals::model::{Flow, NewProposal, PartnerLink, PaymentDetails};
use domain::proposals::ports::{CreateProposalError, PartnerDirectory, ProposalStore};
use domain::signature::{PartyKeys, PartyRole, ProviderEvent, ProviderEventKind, SignatureStore};
use domain::testing::address;
use domain::values::*;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use std::sync::Arc;

/// What can happen to a customer's proposal, in any order (an operation the state refuses, such
/// as a second open proposal or a move outside the lifecycle, changes nothing and is fine).
#[derive(Debug, Clone)]
enum Operation {
    Create { debit: bool, name: usize },
    Correct { name: usize, street: usize },
    Send,
    Resend,
    Party { role: PartyRole, signed: bool },
    Move(ProposalStatus),
    Anonymise,
    EditPartner { name: usize },
    EditRepresentative { name: usize },
}

const NAMES: [&str; 3] = ["Maria da Silva", "José da Conceição", "Ana Paula Souza"];
const STREETS: [&str; 3] = ["Avenida Paulista", "Rua Augusta", "Rua da Consolação"];

fn operation() -> impl Strategy<Value = Operation> {
    prop_oneof![
        (any::<bool>(), 0..NAMES.len()).prop_map(|(debit, name)| Operation::Create { debit, name }),
        (0..NAMES.len(), 0..STREETS.len()).prop_map(|(name, street)| Operation::Correct { name, street }),
        Just(Operation::Send),
        Just(Operation::Resend),
        (prop::sample::select(PartyRole::ALL.to_vec()), any::<bool>())
            .prop_map(|(role, signed)| Operation::Party { role, signed }),
        prop::sample::select(ProposalStatus::ALL.to_vec()).prop_map(Operation::Move),
        Just(Operation::Anonymise),
        (0..NAMES.len()).prop_map(|name| Operation::EditPartner { name }),
        (0..NAMES.len()).prop_map(|name| Operation::EditRepresentative { name }),
    ]
}

/// The CPF of `domain::testing::customer`.
const CPF: &str = "12345678909";
const BY: &str = "teste@exemplo.com.br";

/// The customer, with health data and a social name (the documents and the anonymisation must
/// carry them right).
fn customer(name: &str) -> CustomerData {
    CustomerData {
        social_name: Some(domain::values::FullName::parse(&format!("Social {name}")).unwrap()),
        medication: Some(true),
        medication_description: Some("Losartana".into()),
        ..domain::testing::customer(name)
    }
}

struct World {
    _db: TestDatabase,
    pool: PgPool,
    proposals: PgProposals,
    signatures: PgSignatures,
    personal_data: PgPersonalData,
    product_id: i64,
    partner: PartnerLink,
    /// The proposals created so far (id, identifier), newest last.
    created: Vec<(i64, String)>,
    sent: u32,
    /// An operator's SQL changed what proposals show since the last agreement.
    edited_past_the_service: bool,
    /// An anonymisation met the legal hold of an approved contract: the person is blocked (no
    /// seller sees the proposals, no registration or proposal for the CPF is taken) until an
    /// anonymisation goes through.
    blocked: bool,
}

impl World {
    async fn new() -> Self {
        let db = TestDatabase::new().await;
        let pool = build_pool(&PoolSettings::new(&db.url)).unwrap();
        seed::seed_demo_catalog(&pool).await.unwrap();
        let product_id = PgCatalog::new(pool.clone())
            .product_with_banks(101)
            .await
            .unwrap()
            .unwrap()
            .id;
        let proposals = PgProposals::new(pool.clone());
        // A representative of the demo partner, whose name and e-mail its proposals show.
        let mut conn = pool.get().await.unwrap();
        conn.batch_execute(
            "INSERT INTO users (email, password_hash, name, cpf) VALUES ('rep@exemplo.com.br', 'x', 'Rita', '52998224725');
             INSERT INTO representatives (user_id, partner_id) SELECT id, 1 FROM users WHERE email = 'rep@exemplo.com.br';",
        )
        .await
        .unwrap();
        drop(conn);
        let user_id: i64 = users_id(&pool).await;
        let partner = proposals.representation(user_id).await.unwrap().unwrap().partner;
        let sealer = Arc::new(adapters_postgres::sealing::SecretSealer::new([7; 32], &[]));
        World {
            proposals,
            signatures: PgSignatures::new(pool.clone()),
            personal_data: PgPersonalData::new(pool.clone(), sealer),
            pool,
            _db: db,
            product_id,
            partner,
            created: Vec::new(),
            sent: 0,
            edited_past_the_service: false,
            blocked: false,
        }
    }

    async fn status(&self, identifier: &str) -> ProposalStatus {
        let detail = self.proposals.recomputed_detail(identifier).await.unwrap().unwrap();
        detail.proposal.status
    }

    async fn apply(&mut self, operation: &Operation) {
        let latest = self.created.last().cloned();
        match (operation, latest) {
            (Operation::Create { debit, name }, _) => {
                let payment = if *debit {
                    PaymentDetails::AccountDebit(BankAccount {
                        bank: "001".into(),
                        agency: "1234".into(),
                        account: "12345-6".into(),
                        operation: None,
                    })
                } else {
                    PaymentDetails::PayrollDiscount {
                        number: "123".into(),
                        specie: 41,
                        sheet_type: SheetType::Benefit,
                    }
                };
                let new = NewProposal {
                    flow: Flow::Partner,
                    seller: Seller::Partner {
                        partner_id: self.partner.partner_id,
                    },
                    product_id: self.product_id,
                    billing_code: 5001,
                    value: 2990,
                    payment: Some(payment),
                    shipping: ShippingType::Whatsapp,
                    customer: customer(NAMES[*name]),
                    address: address(STREETS[0]),
                    partner: Some(self.partner.clone()),
                    beneficiaries: Vec::new(),
                    kyc: None,
                    changed_by: BY.into(),
                    at: Utc::now(),
                };
                // A second open proposal for the customer is refused, and so is any for a blocked
                // person; nothing is written.
                match self.proposals.create(&new).await {
                    Ok(record) => {
                        assert!(!self.blocked, "a proposal was taken for a blocked person");
                        self.created.push((record.id, record.identifier))
                    }
                    Err(CreateProposalError::DuplicateOpen) => {}
                    Err(CreateProposalError::PersonBlocked) => assert!(self.blocked),
                    Err(other) => panic!("{other}"),
                }
            }
            (Operation::Correct { name, street }, _) => {
                let seller = Seller::Partner {
                    partner_id: self.partner.partner_id,
                };
                let corrected = self
                    .proposals
                    .upsert(&customer(NAMES[*name]), Some(address(STREETS[*street])), seller, BY)
                    .await;
                match corrected {
                    Ok(_) => assert!(!self.blocked, "a blocked person's registration was corrected"),
                    Err(RegistrationError::PersonBlocked) => assert!(self.blocked),
                    Err(other) => panic!("{other}"),
                }
            }
            (Operation::Send, Some((id, identifier))) => {
                if self.status(&identifier).await != ProposalStatus::New {
                    return;
                }
                self.sent += 1;
                let keys = PartyKeys {
                    client: format!("client-{}", self.sent),
                    association: format!("association-{}", self.sent),
                    federation: format!("federation-{}", self.sent),
                    enterprise: format!("enterprise-{}", self.sent),
                };
                self.signatures
                    .save_document(
                        id,
                        &format!("document-{}", self.sent),
                        chrono::Utc::now() + chrono::Duration::days(10),
                        BY,
                    )
                    .await
                    .unwrap();
                self.signatures
                    .save_parties(id, &keys, "https://assinatura.exemplo/1", BY)
                    .await
                    .unwrap();
                self.move_to(id, &identifier, ProposalStatus::AwaitingSignature).await;
            }
            (Operation::Resend, Some((id, _))) => {
                self.signatures.count_resend(id, 5, BY).await.unwrap();
            }
            (Operation::Party { role, signed }, Some(_)) => {
                if self.sent == 0 {
                    return;
                }
                let event = ProviderEvent {
                    event_id: uuid::Uuid::new_v4().to_string(),
                    request_key: format!("{}-{}", role.as_str(), self.sent),
                    kind: if *signed {
                        ProviderEventKind::Signed
                    } else {
                        ProviderEventKind::Refused
                    },
                    at: Utc::now(),
                    latitude: Some("-23.5614".into()),
                    longitude: Some("-46.6559".into()),
                    ip: Some("198.51.100.7".into()),
                    user_agent: None,
                    authentication: Some("whatsapp".into()),
                };
                self.signatures.record_party_event(&event, BY).await.unwrap();
            }
            (Operation::Move(to), Some((id, identifier))) => self.move_to(id, &identifier, *to).await,
            (Operation::Anonymise, _) => {
                let outcome = self
                    .personal_data
                    .anonymize(
                        &Cpf::parse(CPF).unwrap(),
                        BY,
                        Utc::now(),
                        domain::privacy::hold::HoldPolicy::default(),
                    )
                    .await
                    .unwrap();
                match outcome {
                    AnonymizeOutcome::Held(_) => self.blocked = true,
                    AnonymizeOutcome::Done(_) => self.blocked = false,
                    AnonymizeOutcome::Blocked(_) | AnonymizeOutcome::NothingHeld => {}
                }
            }
            (Operation::EditPartner { name }, _) => {
                let mut conn = self.pool.get().await.unwrap();
                diesel::sql_query("UPDATE partners SET fantasy_name = $1, alterado_em = now() WHERE id = $2")
                    .bind::<diesel::sql_types::Text, _>(NAMES[*name])
                    .bind::<diesel::sql_types::Int8, _>(self.partner.partner_id)
                    .execute(&mut conn)
                    .await
                    .unwrap();
                // No route edits it: an operator's SQL, which the guard marks for route 7's read.
                self.edited_past_the_service = true;
            }
            (Operation::EditRepresentative { name }, _) => {
                let mut conn = self.pool.get().await.unwrap();
                diesel::sql_query("UPDATE users SET name = $1 WHERE email = 'rep@exemplo.com.br'")
                    .bind::<diesel::sql_types::Text, _>(NAMES[*name])
                    .execute(&mut conn)
                    .await
                    .unwrap();
                // No route edits it: an operator's SQL, which the guard marks for route 7's read.
                self.edited_past_the_service = true;
            }
            (_, None) => {}
        }
    }

    /// A status move from wherever the proposal is (a refused one, or one that lost a race,
    /// changes nothing).
    async fn move_to(&self, id: i64, identifier: &str, to: ProposalStatus) {
        let from = self.status(identifier).await;
        let change = StatusChange {
            proposal_id: id,
            from,
            to,
            changed_by: BY.into(),
            reason: Some("conferido".into()),
            reason_category: None,
            at: Utc::now(),
            operation: None,
        };
        let _ = self.signatures.change_status(&change).await;
    }

    /// Every stored document equals its recomputation, and route 7's read equals the detail built
    /// from the parts, within each scope that may see it (a blocked person's, the back office's
    /// alone). After an operator's edit, the documents
    /// it marked (and only those) differ until route 7 reads them.
    async fn agrees(&mut self, after: &[Operation]) -> Result<(), TestCaseError> {
        if std::mem::take(&mut self.edited_past_the_service) {
            let marked = check_read_model(&self.pool, false).await.unwrap().drifted;
            for identifier in &marked {
                let read = self.proposals.detail(identifier, Scope::Everything).await.unwrap();
                prop_assert_eq!(read, self.proposals.recomputed_detail(identifier).await.unwrap());
            }
        }
        let report = check_read_model(&self.pool, false).await.unwrap();
        prop_assert_eq!(&report.drifted, &Vec::<String>::new(), "drift after {:?}", after);
        prop_assert_eq!(report.checked as usize, self.created.len());
        for (_, identifier) in &self.created {
            let joined = self.proposals.recomputed_detail(identifier).await.unwrap();
            prop_assert!(joined.is_some());
            let read = self.proposals.detail(identifier, Scope::Everything).await.unwrap();
            prop_assert_eq!(&read, &joined, "route 7 ≠ its parts after {:?}", after);
            let seller = Scope::Partner {
                partner_id: self.partner.partner_id,
                representative_id: self.partner.representative_id.unwrap(),
            };
            let read = self.proposals.detail(identifier, seller).await.unwrap();
            // A blocked person's contract in force is still its seller's to serve (decision 284).
            let in_force = joined
                .as_ref()
                .is_some_and(|d| d.proposal.status == ProposalStatus::Approved);
            if self.blocked && !in_force {
                prop_assert_eq!(read, None, "a seller reads a blocked person after {:?}", after);
            } else {
                prop_assert_eq!(&read, &joined, "the seller's route 7 ≠ its parts after {:?}", after);
            }
            // Another flow's caller does not see it.
            prop_assert_eq!(self.proposals.detail(identifier, Scope::Ecommerce).await.unwrap(), None);
        }
        Ok(())
    }
}

#[derive(diesel::QueryableByName)]
struct Id {
    #[diesel(sql_type = diesel::sql_types::Int8)]
    id: i64,
}

async fn users_id(pool: &PgPool) -> i64 {
    let mut conn = pool.get().await.unwrap();
    diesel::sql_query("SELECT id FROM users WHERE email = 'rep@exemplo.com.br'")
        .get_result::<Id>(&mut conn)
        .await
        .unwrap()
        .id
}

#[test]
fn after_any_sequence_of_changes_every_document_equals_its_parts() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let mut runner = TestRunner::new(Config {
        cases: 24,
        ..Config::default()
    });
    let sequences = prop::collection::vec(operation(), 1..14);
    runner
        .run(&sequences, |operations| {
            runtime.block_on(async {
                let mut world = World::new().await;
                for (done, operation) in operations.iter().enumerate() {
                    world.apply(operation).await;
                    world.agrees(&operations[..=done]).await?;
                }
                Ok(())
            })
        })
        .unwrap();
}

/// The sequence CI once drew (stop 57): anonymising an approved contract's person blocks them,
/// after which no new proposal or correction of theirs is taken; the contract in force is still
/// its seller's to read (decision 284), and the back office reads it equal to its parts.
#[tokio::test(flavor = "multi_thread")]
async fn a_person_held_by_an_approved_contract_is_blocked_and_the_documents_still_agree() {
    let mut world = World::new().await;
    let operations = [
        Operation::Create { debit: false, name: 0 },
        Operation::Move(ProposalStatus::Approved),
        Operation::Anonymise,
        Operation::Create { debit: true, name: 1 },
        Operation::Correct { name: 2, street: 1 },
        Operation::EditPartner { name: 1 },
    ];
    for (done, operation) in operations.iter().enumerate() {
        world.apply(operation).await;
        world.agrees(&operations[..=done]).await.unwrap();
    }
    assert!(world.blocked);
    assert_eq!(world.created.len(), 1, "nothing new was made of a blocked person");
}

async fn world_with_a_proposal() -> World {
    let mut world = World::new().await;
    world.apply(&Operation::Create { debit: true, name: 0 }).await;
    world.apply(&Operation::Send).await;
    world.agrees(&[]).await.unwrap();
    world
}

#[tokio::test(flavor = "multi_thread")]
async fn the_check_finds_a_drifted_missing_or_misfiled_document_and_the_repair_mends_each() {
    let mut world = world_with_a_proposal().await;
    let (_, identifier) = world.created[0].clone();
    let mut conn = world.pool.get().await.unwrap();
    // Written behind the triggers' back, as an operator's bulk load with triggers off would.
    conn.batch_execute(
        "SET session_replication_role = replica;
         UPDATE proposal_read_models SET documento = jsonb_set(documento, '{proposal,status}', '\"APROVADO\"');
         SET session_replication_role = DEFAULT;",
    )
    .await
    .unwrap();
    drop(conn);
    let found = check_read_model(&world.pool, false).await.unwrap();
    assert_eq!(
        found,
        ReadModelReport {
            checked: 1,
            drifted: vec![identifier.clone()],
            repaired: 0
        }
    );
    let detail = world
        .proposals
        .detail(&identifier, Scope::Everything)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        detail.proposal.status,
        ProposalStatus::Approved,
        "the check alone changes nothing"
    );

    let mended = check_read_model(&world.pool, true).await.unwrap();
    assert_eq!(mended.repaired, 1);
    world.agrees(&[]).await.unwrap();

    // A missing document, and one filed under another partner.
    let mut conn = world.pool.get().await.unwrap();
    conn.batch_execute("DELETE FROM proposal_read_models").await.unwrap();
    drop(conn);
    assert_eq!(
        check_read_model(&world.pool, false).await.unwrap().drifted,
        vec![identifier.clone()]
    );
    check_read_model(&world.pool, true).await.unwrap();
    let mut conn = world.pool.get().await.unwrap();
    conn.batch_execute(
        "SET session_replication_role = replica; UPDATE proposal_read_models SET id_parceiro = 999;
         SET session_replication_role = DEFAULT;",
    )
    .await
    .unwrap();
    drop(conn);
    assert_eq!(
        check_read_model(&world.pool, false).await.unwrap().drifted,
        vec![identifier]
    );
    check_read_model(&world.pool, true).await.unwrap();
    world.agrees(&[]).await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn the_migration_builds_documents_for_existing_proposals_and_goes_down_and_up() {
    let mut world = world_with_a_proposal().await;
    let url = world._db.url.clone();
    revert_through(&url, "20261125000022").await;
    let mut conn = AsyncPgConnection::establish(&url).await.unwrap();
    let gone = conn
        .batch_execute("SELECT 1 FROM proposal_read_models")
        .await
        .expect_err("the table is gone after the migration's down");
    assert!(gone.to_string().contains("proposal_read_models"), "{gone}");
    // A change made while the read model does not exist reaches it when it is built.
    conn.batch_execute("UPDATE proposals SET reenvios = 3").await.unwrap();

    migrations::run_pending(&url).await.unwrap();
    world.agrees(&[]).await.unwrap();
    let (_, identifier) = &world.created[0];
    let detail = world
        .proposals
        .detail(identifier, Scope::Everything)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(detail.proposal.resends, 3);
    assert_eq!(detail.proposal.status, ProposalStatus::AwaitingSignature);
    assert!(detail.signature.is_some());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_write_past_the_service_is_marked_until_route_7_reads_it_again() {
    let mut world = world_with_a_proposal().await;
    let (id, identifier) = world.created[0].clone();
    let mut conn = world.pool.get().await.unwrap();
    conn.batch_execute("UPDATE proposals SET reenvios = 5").await.unwrap();
    assert_eq!(
        line(
            &mut conn,
            "SELECT string_agg(id_proposta::text, ',') AS line FROM proposal_read_model_stale"
        )
        .await,
        id.to_string(),
        "the guard marked it at the commit"
    );
    drop(conn);
    assert_eq!(
        check_read_model(&world.pool, false).await.unwrap().drifted,
        vec![identifier.clone()]
    );

    // Route 7's next read builds it from its parts, writes it and clears the mark.
    let detail = world
        .proposals
        .detail(&identifier, Scope::Everything)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(detail.proposal.resends, 5);
    world.agrees(&[]).await.unwrap();

    // A proposal inserted past the service has no document: route 7 builds it too, within scope.
    let mut conn = world.pool.get().await.unwrap();
    conn.batch_execute("DELETE FROM proposal_read_models").await.unwrap();
    drop(conn);
    assert_eq!(
        world.proposals.detail(&identifier, Scope::Ecommerce).await.unwrap(),
        None
    );
    let rebuilt = world.proposals.detail(&identifier, Scope::Everything).await.unwrap();
    assert_eq!(rebuilt.map(|d| d.proposal.resends), Some(5));
    world.agrees(&[]).await.unwrap();
    // An identifier no proposal has is still nothing.
    assert_eq!(
        world
            .proposals
            .detail("00000000-0000-4000-8000-000000000000", Scope::Everything)
            .await
            .unwrap(),
        None
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_product_renamed_by_the_back_office_rewrites_its_proposals_documents_at_once() {
    let mut world = world_with_a_proposal().await;
    let (_, identifier) = world.created[0].clone();
    let catalog = PgCatalog::new(world.pool.clone());
    let product = catalog.product_with_banks(101).await.unwrap().unwrap();
    let input = domain::catalog::model::ProductInput {
        code: product.code,
        name: "Vida Renomeado".into(),
        integration_code: product.integration_code,
        active: product.active,
        value_cents: product.value_cents,
        banks: product.banks.clone(),
        price_id: product.price_id.clone(),
        terms: None,
    };
    catalog.update_product(101, &input, BY).await.unwrap();
    assert_eq!(
        marks(&world.pool).await,
        "0",
        "written in the edit's transaction, nothing left for a read"
    );
    let mut conn = world.pool.get().await.unwrap();
    assert_eq!(
        line(
            &mut conn,
            "SELECT documento->'product'->>'nome' AS line FROM proposal_read_models"
        )
        .await,
        "Vida Renomeado"
    );
    drop(conn);
    let detail = world
        .proposals
        .detail(&identifier, Scope::Everything)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(detail.product_name, "Vida Renomeado");
    world.agrees(&[]).await.unwrap();
}

/// Every key path of a JSON document (`proposal.status`, `customer.nome_completo`), its values
/// left out: what a statement that writes a document itself must write as the build does.
fn key_paths(value: &serde_json::Value) -> std::collections::BTreeSet<String> {
    fn walk(prefix: &str, value: &serde_json::Value, out: &mut std::collections::BTreeSet<String>) {
        if let serde_json::Value::Object(map) = value {
            for (key, inner) in map {
                let path = if prefix.is_empty() {
                    key.clone()
                } else {
                    format!("{prefix}.{key}")
                };
                walk(&path, inner, out);
                out.insert(path);
            }
        }
    }
    let mut out = std::collections::BTreeSet::new();
    walk("", value, &mut out);
    out
}

/// The stored document of `identifier` has the keys the build gives it, no more, no fewer, and
/// reads as the build's (`check read-model` finds no drift, nothing is marked).
async fn written_as_built(world: &World, identifier: &str) {
    let (stored, built) = read_model::stored_and_built_json(&world.pool, identifier)
        .await
        .unwrap()
        .expect("a stored and a built document");
    assert_eq!(key_paths(&stored), key_paths(&built), "{stored}");
    assert_eq!(
        marks(&world.pool).await,
        "0",
        "written by the statement itself, nothing marked"
    );
    assert_eq!(
        check_read_model(&world.pool, false).await.unwrap().drifted,
        Vec::<String>::new()
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn route_5_and_route_3_write_their_documents_in_their_one_statement_key_for_key_as_the_build() {
    let mut world = World::new().await;
    // Route 5 with a partner, a representative and a payment: every part of a new document.
    world.apply(&Operation::Create { debit: false, name: 0 }).await;
    let (_, first) = world.created[0].clone();
    written_as_built(&world, &first).await;

    // Route 3's correction refreshes the NOVO proposal's copy, and its document with it.
    world.apply(&Operation::Correct { name: 1, street: 1 }).await;
    written_as_built(&world, &first).await;
    let read = world
        .proposals
        .detail(&first, Scope::Everything)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(read.customer.person.full_name, NAMES[1]);
    assert_eq!(read.address.unwrap().street, STREETS[1]);

    // Route 5 for another product refreshes the first proposal's copy in its statement too.
    let catalog = PgCatalog::new(world.pool.clone());
    let other_product = catalog.product_with_banks(102).await.unwrap().unwrap().id;
    let new = NewProposal {
        flow: Flow::Partner,
        seller: Seller::Partner {
            partner_id: world.partner.partner_id,
        },
        product_id: other_product,
        billing_code: 5003,
        value: 2990,
        payment: None,
        shipping: ShippingType::Whatsapp,
        customer: customer(NAMES[2]),
        address: address(STREETS[2]),
        partner: Some(world.partner.clone()),
        beneficiaries: Vec::new(),
        kyc: None,
        changed_by: BY.into(),
        at: Utc::now(),
    };
    let second = world.proposals.create(&new).await.unwrap().identifier;
    written_as_built(&world, &second).await;
    written_as_built(&world, &first).await;
    let read = world
        .proposals
        .detail(&first, Scope::Everything)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        read.customer.person.full_name, NAMES[2],
        "the first proposal's copy follows"
    );
    assert_eq!(read.address.unwrap().street, STREETS[2]);

    // A shop sale paid by Pix: no partner nor representative (the left-joined parts are null),
    // and its payment's ISPB written where the debit's is absent.
    let shop = NewProposal {
        flow: Flow::Ecommerce,
        seller: Seller::Shop,
        payment: Some(PaymentDetails::PixAutomatic(Some(domain::billing::pix::PayerAccount {
            ispb: "60701190".into(),
            agencia: Some("0001".into()),
            conta: "123456".into(),
        }))),
        partner: None,
        // Another person: the first one has this product's sale open.
        customer: CustomerData {
            cpf: Cpf::parse("52998224725").unwrap(),
            ..customer(NAMES[0])
        },
        address: address(STREETS[0]),
        ..new
    };
    let third = world.proposals.create(&shop).await.unwrap().identifier;
    written_as_built(&world, &third).await;
    let (stored, _) = read_model::stored_and_built_json(&world.pool, &third)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(stored["partner"], serde_json::Value::Null, "{stored}");
    assert_eq!(stored["representative"], serde_json::Value::Null, "{stored}");
    assert_eq!(stored["payment"]["ispb"], "60701190", "{stored}");
    let read = world
        .proposals
        .detail(&third, Scope::Everything)
        .await
        .unwrap()
        .unwrap();
    assert!(read.partner.is_none() && read.representative.is_none());
    assert!(
        read.kyc.is_none(),
        "a screening that called for nothing writes no diligence"
    );

    // A sale under due diligence (issue 70): its row and its document's `kyc` part written by
    // the same statement, as the build reads them.
    let diligence = domain::kyc::screening::KycView {
        pep: true,
        status: domain::kyc::screening::KycStatus::Pending,
        reasons: vec![domain::kyc::screening::KycReason {
            code: domain::kyc::screening::KycReasonCode::PepList,
            detail: "DEPUTADO FEDERAL — CÂMARA DOS DEPUTADOS".into(),
        }],
    };
    let screened = NewProposal {
        customer: CustomerData {
            cpf: Cpf::parse("11144477735").unwrap(),
            ..customer(NAMES[0])
        },
        kyc: Some(diligence.clone()),
        ..shop
    };
    let fourth = world.proposals.create(&screened).await.unwrap().identifier;
    written_as_built(&world, &fourth).await;
    let read = world
        .proposals
        .detail(&fourth, Scope::Everything)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(read.kyc, Some(diligence));
}

/// How many proposals the guard has marked (documents a write left unwritten).
async fn marks(pool: &PgPool) -> String {
    let mut conn = pool.get().await.unwrap();
    line(
        &mut conn,
        "SELECT count(*)::text AS line FROM proposal_read_model_stale",
    )
    .await
}
