//! Proposals in PostgreSQL: the domain's `ProposalStore` (the registrations are `customers`, the
//! partners `partners`, route 7's document `read_model`).

use crate::composed::{Composed, Part};
use crate::event_outbox::{Audience, NO_OLDER_BODIES, QueuedFor, queued_deliveries};
use crate::list_statement::{NameHasWord, Older, WithPageLimit};
use crate::person_columns::address;
use crate::person_columns::{new_copy, refreshed_copies, registration};
use crate::pool::{PgPool, connection, is_blocked_person, query_error};
use crate::read_model;
use crate::replicas::ReadPools;
use crate::rows::ProposalRow;
use crate::schema::{
    personal_data_blocks, products, proposal_acceptances, proposal_customers, proposal_history, proposals,
};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use diesel::dsl::AsSelect;
use diesel::pg::Pg;
use diesel::prelude::*;
use diesel::result::{DatabaseErrorKind, Error as DieselError};
use diesel::sql_types::{Bool, Int8};
use diesel_async::RunQueryDsl;
use domain::access::Scope;
use domain::contract::terms::ProductTerms;
use domain::history::{FieldChange, HistoryEntry};
use domain::proposals::model::{Flow, NewProposal, PaymentDetails, ProposalDetail, ProposalRecord};
use domain::proposals::ports::{CreateProposalError, ProposalStore};
use domain::proposals::search::{ListedProposal, ProposalSearch, SearchText};
use domain::store::StoreError;
use domain::values::{CellPhone, Cpf, EventKind, ProposalStatus};
use std::collections::BTreeMap;

const OPEN_PROPOSAL_INDEX: &str = "proposals_one_open_per_cpf_product";

/// Statuses that free the customer to open a new proposal for the product.
fn finished_statuses() -> Vec<&'static str> {
    ProposalStatus::ALL
        .iter()
        .filter(|s| s.is_finished())
        .map(|s| s.as_str())
        .collect()
}

type PartnerVisible = diesel::dsl::And<
    diesel::dsl::Eq<diesel::dsl::AssumeNotNull<proposals::id_parceiro>, i64>,
    diesel::dsl::Eq<proposals::fluxo, &'static str>,
>;
type FlowVisible = diesel::dsl::Eq<proposals::fluxo, &'static str>;

/// The proposals a scope may see, as one condition on any statement that reads `proposals`
/// (`None`: the back office sees them all). A representative sees its partner's own flow only;
/// the shop, its own flow (decision 123). The read model's statements say the same of its copy of
/// these two columns (`read_model::read_detail`).
fn visible_to<QS>(scope: Scope) -> Option<Box<dyn BoxableExpression<QS, Pg, SqlType = Bool>>>
where
    PartnerVisible: BoxableExpression<QS, Pg, SqlType = Bool> + 'static,
    FlowVisible: BoxableExpression<QS, Pg, SqlType = Bool> + 'static,
{
    match scope {
        Scope::Partner { partner_id, .. } => Some(Box::new(
            // A proposal without a partner matches no partner (`NULL = $1`), whatever the type says.
            proposals::id_parceiro
                .assume_not_null()
                .eq(partner_id)
                .and(proposals::fluxo.eq(Flow::Partner.as_str())),
        )),
        Scope::Ecommerce => Some(Box::new(proposals::fluxo.eq(Flow::Ecommerce.as_str()))),
        Scope::Everything => None,
    }
}

#[derive(Clone)]
pub struct PgProposals {
    pub(crate) pool: PgPool,
    /// Route 7, the list and the history: on a replica when one is fresh enough.
    reads: ReadPools,
    /// The wake-up of the delivery workers after a creation that queued deliveries.
    wakeups: crate::event_outbox::Wakeups,
}

impl PgProposals {
    pub fn new(pool: PgPool) -> Self {
        Self {
            wakeups: crate::event_outbox::Wakeups::new(pool.clone()),
            reads: ReadPools::primary_only(pool.clone()),
            pool,
        }
    }

    /// The same store with its reads spread over `reads`' replicas.
    pub fn reading_from(self, reads: ReadPools) -> Self {
        Self { reads, ..self }
    }
}

/// `create_statement`'s answer: the proposal, and how many deliveries it queued.
#[derive(QueryableByName)]
struct CreatedRow {
    #[diesel(embed)]
    proposal: ProposalRow,
    #[diesel(sql_type = Int8)]
    queued_deliveries: i64,
}

/// Route 5's (and 6's) write, in one statement composed of named parts: the seller's
/// registration by CPF (`person_columns::registration`) and its address (`customers::address`),
/// the proposal and its payment (here), the proposal's copy of the customer and address and the
/// registration's earlier `NOVO` proposals' copies refreshed (`person_columns`), and its
/// `PROPOSTA_CRIADA` deliveries (`event_outbox`, the workers woken after the commit), the new
/// proposal's document and the refreshed proposals' (`read_model::new_document`,
/// `read_model::refreshed_documents`: the write and its documents commit together, in one round
/// trip); the history's creation entry is a trigger's. `bench/run.sh` replays it through pgbench
/// (`bench-tools`' `create-proposal-script`, from these same parts).
/// The beneficiaries of `p` as `proposal_beneficiaries` keeps them (JSON), `None` when it names none.
pub fn beneficiaries_json(p: &NewProposal) -> Option<String> {
    if p.beneficiaries.is_empty() {
        return None;
    }
    let parts: Vec<read_model::BeneficiaryPart> = p.beneficiaries.iter().map(read_model::BeneficiaryPart::of).collect();
    serde_json::to_string(&parts).ok()
}

/// The due diligence `p` calls for as `proposal_kyc` keeps it (JSON), `None` when none.
pub fn kyc_json(p: &NewProposal) -> Option<String> {
    p.kyc.as_ref().and_then(read_model::new_kyc_json)
}

pub fn create_statement<'a>(
    p: &'a NewProposal,
    identifier: &'a str,
    created_event: &'a str,
    beneficiaries: Option<&'a str>,
    kyc: Option<&'a str>,
) -> Composed<'a> {
    let audience = Audience::of(p.partner.as_ref().map(|l| l.partner_id), p.flow);
    Composed::new()
        .text("WITH ")
        .part(registration(&p.customer, p.seller, &p.changed_by, true))
        .text(", ")
        .part(address(Some(&p.address)))
        .text(", ")
        .part(proposal_part(p, identifier))
        .text(", ")
        .part(payment_part(p.payment.as_ref()))
        .text(", ")
        .part(beneficiaries_part(beneficiaries))
        .text(", ")
        .part(kyc_part(kyc))
        .text(", ")
        .part(new_copy())
        .text(", ")
        .part(refreshed_copies())
        .text(", ")
        .part(read_model::new_document())
        .text(", ")
        .part(read_model::refreshed_documents())
        .text(", ")
        .part(queued_deliveries(
            QueuedFor::CreatedProposal,
            EventKind::ProposalCreated,
            created_event,
            NO_OLDER_BODIES,
            audience,
        ))
        // The wake-up is sent after the commit (`event_outbox::Wakeups`), not inside it.
        .text(" SELECT proposal.*, (SELECT count(*) FROM queued) AS queued_deliveries FROM proposal")
}

/// `proposal`: the proposal itself, made from the statement's registration.
fn proposal_part<'a>(p: &'a NewProposal, identifier: &'a str) -> Part<'a> {
    let partner = p.partner.as_ref();
    Part::new(
        "proposal",
        "proposal AS ( \
         INSERT INTO proposals (identificador, valor, cpf_cnpj_parceiro, id_parceiro, id_representante, id_cliente, \
             cpf_cliente, alterado_por, cnpj_associacao, cnpj_federacao, tipo_envio, fluxo, id_produto, codigo_faturamento, \
             tipo_pagamento, criado_em, alterado_em) \
         SELECT {identificador}, {valor}, {cpf_cnpj_parceiro}, {id_parceiro}, {id_representante}, r.id, r.cpf, \
             r.alterado_por, {cnpj_associacao}, {cnpj_federacao}, {tipo_envio}, {fluxo}, {id_produto}, \
             {codigo_faturamento}, {tipo_pagamento}, {criado_em}, {criado_em} \
         FROM registration r \
         RETURNING *)",
    )
    .value("identificador", identifier)
    .value("valor", p.value)
    .value("cpf_cnpj_parceiro", partner.map(|l| l.partner_document.as_str()))
    .value("id_parceiro", partner.map(|l| l.partner_id))
    .value("id_representante", partner.and_then(|l| l.representative_id))
    .value("cnpj_associacao", partner.and_then(|l| l.association_cnpj.as_deref()))
    .value("cnpj_federacao", partner.and_then(|l| l.federation_cnpj.as_deref()))
    .value("tipo_envio", p.shipping.as_str())
    .value("fluxo", p.flow.as_str())
    .value("id_produto", p.product_id)
    .value("codigo_faturamento", p.billing_code)
    .value("tipo_pagamento", p.payment.as_ref().map(|d| d.payment_type().as_str()))
    .value("criado_em", p.at)
}

/// `beneficiaries`: the beneficiaries the proposal names, when it names any (one row, the array).
fn beneficiaries_part(beneficiaries: Option<&str>) -> Part<'_> {
    Part::new(
        "beneficiaries",
        "beneficiaries AS ( \
         INSERT INTO proposal_beneficiaries (id_proposta, beneficiarios, criado_em) \
         SELECT p.id, {beneficiarios}::jsonb, p.criado_em FROM proposal p WHERE {beneficiarios}::text IS NOT NULL \
         RETURNING *)",
    )
    .value("beneficiarios", beneficiaries)
}

/// `kyc`: the customer's due diligence, when the screening called for it (one row).
fn kyc_part(kyc: Option<&str>) -> Part<'_> {
    Part::new(
        "kyc",
        "kyc AS ( \
         INSERT INTO proposal_kyc (id_proposta, pep, situacao, motivos, criada_em) \
         SELECT p.id, ({kyc}::jsonb ->> 'pep')::boolean, {kyc}::jsonb ->> 'situacao', {kyc}::jsonb -> 'motivos', \
             p.criado_em \
         FROM proposal p WHERE {kyc}::text IS NOT NULL \
         RETURNING *)",
    )
    .value("kyc", kyc)
}

/// `payment`: the proposal's payment, when it has one, each kind's columns (the other's null).
fn payment_part(payment: Option<&PaymentDetails>) -> Part<'_> {
    let part = Part::new(
        "payment",
        "payment AS ( \
         INSERT INTO proposal_payments (id_proposta, tipo, alterado_por, banco, agencia, conta, operacao, numero_folha, \
             tipo_folha, especie, ispb) \
         SELECT p.id, p.tipo_pagamento, p.alterado_por, {banco}, {agencia}, {conta}, {operacao}, {numero_folha}, \
             {tipo_folha}, {especie}, {ispb} \
         FROM proposal p WHERE p.tipo_pagamento IS NOT NULL RETURNING *)",
    );
    // The debit's account and the Pix payer's share the account's columns; the Pix one names
    // its bank by ISPB.
    let (bank, agency, account, ispb) = match payment {
        Some(PaymentDetails::AccountDebit(a)) => (
            Some(a.bank.as_str()),
            Some(a.agency.as_str()),
            Some(a.account.as_str()),
            None,
        ),
        Some(PaymentDetails::PixAutomatic(Some(p))) => (
            None,
            p.agencia.as_deref(),
            Some(p.conta.as_str()),
            Some(p.ispb.as_str()),
        ),
        _ => (None, None, None, None),
    };
    let operation = match payment {
        Some(PaymentDetails::AccountDebit(a)) => a.operation.as_deref(),
        _ => None,
    };
    let sheet = match payment {
        Some(PaymentDetails::PayrollDiscount {
            number,
            specie,
            sheet_type,
        }) => Some((number.as_str(), sheet_type.as_str(), *specie)),
        _ => None,
    };
    part.value("banco", bank)
        .value("agencia", agency)
        .value("conta", account)
        .value("operacao", operation)
        .value("numero_folha", sheet.map(|(number, _, _)| number))
        .value("tipo_folha", sheet.map(|(_, sheet_type, _)| sheet_type))
        .value("especie", sheet.map(|(_, _, specie)| specie))
        .value("ispb", ispb)
}

/// The stored `{field: {from, to}}` object (written by the history triggers, migration 000016).
fn field_changes(stored: serde_json::Value) -> BTreeMap<String, FieldChange> {
    let serde_json::Value::Object(fields) = stored else {
        return BTreeMap::new();
    };
    fields
        .into_iter()
        .map(|(field, mut change)| {
            let mut take = |side: &str| change.get_mut(side).map(serde_json::Value::take).unwrap_or_default();
            let (from, to) = (take("from"), take("to"));
            (field, FieldChange { from, to })
        })
        .collect()
}

/// The list's statement without its `LIMIT`: the scope and each condition as a filter, newest
/// first from the cursor, each with the name and CPF of the proposal's copy of its customer (one
/// round trip). Each scope and the status and CPF filters have an index in this order
/// (migration 000015), and name words the trigram index on `nome_busca` (000021). Every part is
/// a column, a bound value or a `list_statement` fragment, so the statement is kept prepared per
/// combination of filters: a page costs no parse.
fn search_query(search: &ProposalSearch, scope: Scope) -> ListQuery {
    let mut query = proposals::table
        .left_join(proposal_customers::table)
        .select(listed_columns())
        .into_boxed();
    if let Some(visible) = visible_to(scope) {
        query = query.filter(visible);
        // A person's data blocked under a legal hold is the back office's only.
        query = query.filter(diesel::dsl::not(diesel::dsl::exists(
            personal_data_blocks::table.filter(personal_data_blocks::cpf.eq(proposals::cpf_cliente)),
        )));
    }
    let c = &search.conditions;
    if let Some(status) = c.status {
        query = query.filter(proposals::status.eq(status.as_str()));
    }
    if let Some(product_id) = c.product_id {
        query = query.filter(proposals::id_produto.eq(product_id));
    }
    if let Some(billing_code) = c.billing_code {
        query = query.filter(proposals::codigo_faturamento.eq(billing_code));
    }
    if let Some(document) = &c.partner_document {
        query = query.filter(proposals::cpf_cnpj_parceiro.eq(document.clone()));
    }
    if let Some(shipping) = c.shipping {
        query = query.filter(proposals::tipo_envio.eq(shipping.as_str()));
    }
    if let Some(customer_id) = c.customer_id {
        query = query.filter(proposals::id_cliente.eq(customer_id));
    }
    match &search.text {
        Some(SearchText::Cpf(cpf)) => query = query.filter(proposals::cpf_cliente.eq(cpf.as_str().to_owned())),
        Some(SearchText::NameWords(words)) => {
            for word in words {
                query = query.filter(NameHasWord(word.clone()));
            }
        }
        None => {}
    }
    if let Some(from) = search.created_from {
        query = query.filter(proposals::criado_em.ge(from));
    }
    if let Some(before) = search.created_before {
        query = query.filter(proposals::criado_em.lt(before));
    }
    if let Some(overdue) = search.overdue {
        // The overdue clocks, by their partial index (migration 000040).
        let late = proposal_acceptances::table
            .filter(proposal_acceptances::decidida_em.is_null())
            .filter(proposal_acceptances::vencida_em.is_not_null())
            .select(proposal_acceptances::id_proposta);
        query = if overdue {
            query.filter(proposals::id.eq_any(late))
        } else {
            query.filter(diesel::dsl::not(proposals::id.eq_any(late)))
        };
    }
    if let Some(after) = search.after {
        query = query.filter(Older(after));
    }
    query.order((proposals::criado_em.desc(), proposals::id.desc()))
}

/// What the list reads per proposal: its record, and its copy's name and CPF.
fn listed_columns() -> ListedColumns {
    (
        ProposalRow::as_select(),
        proposal_customers::nome_completo.nullable(),
        proposal_customers::cpf.nullable(),
    )
}

type ListQuery = diesel::dsl::IntoBoxed<
    'static,
    diesel::dsl::Select<diesel::dsl::LeftJoin<proposals::table, proposal_customers::table>, ListedColumns>,
    Pg,
>;
type ListedColumns = (
    AsSelect<ProposalRow, Pg>,
    diesel::dsl::Nullable<proposal_customers::nome_completo>,
    diesel::dsl::Nullable<proposal_customers::cpf>,
);

#[async_trait]
impl ProposalStore for PgProposals {
    async fn create(&self, p: &NewProposal) -> Result<domain::proposals::model::ProposalRecord, CreateProposalError> {
        let mut conn = connection(&self.pool).await?;
        // 122 random bits: an identifier nobody can guess from another.
        let identifier = uuid::Uuid::new_v4().to_string();
        let created_event = domain::hooks::payload::proposal_created(&identifier, p.flow, p.value, &p.changed_by, p.at);
        let beneficiaries = beneficiaries_json(p);
        let kyc = kyc_json(p);
        let result: QueryResult<CreatedRow> =
            create_statement(p, &identifier, &created_event, beneficiaries.as_deref(), kyc.as_deref())
                .get_result(&mut conn)
                .await;
        match result {
            Ok(row) => {
                if row.queued_deliveries > 0 {
                    self.wakeups.announce();
                }
                Ok(ProposalRecord::try_from(row.proposal).map_err(StoreError::from)?)
            }
            Err(DieselError::DatabaseError(DatabaseErrorKind::UniqueViolation, info))
                if info.constraint_name() == Some(OPEN_PROPOSAL_INDEX) =>
            {
                Err(CreateProposalError::DuplicateOpen)
            }
            Err(e) if is_blocked_person(&e) => Err(CreateProposalError::PersonBlocked),
            Err(e) => Err(CreateProposalError::Store(query_error(e))),
        }
    }

    async fn search(&self, search: &ProposalSearch, scope: Scope) -> Result<Vec<ListedProposal>, StoreError> {
        // The page and one more row, which says whether another page follows.
        let wanted = search.limit.saturating_add(1);
        let mut rows: Vec<(ProposalRow, Option<String>, Option<String>)> = self
            .reads
            .read(|mut conn| async move {
                let query = search_query(search, scope);
                if matches!(search.text, Some(SearchText::NameWords(_))) {
                    // Planned for its words each time (a bound `LIMIT` keeps PostgreSQL from a
                    // generic plan): the trigram index for words in few names, the list's order
                    // for words in many, and a plan kept for the one would cost seconds for the
                    // other.
                    query.limit(wanted).load(&mut conn).await
                } else {
                    WithPageLimit::new(query, wanted).load(&mut conn).await
                }
                .map_err(query_error)
            })
            .await?;
        rows.truncate(usize::try_from(wanted).unwrap_or(usize::MAX));
        rows.into_iter()
            .map(|(row, customer_name, customer_cpf)| {
                Ok(ListedProposal {
                    customer_name,
                    customer_cpf,
                    record: ProposalRecord::try_from(row)?,
                })
            })
            .collect()
    }

    async fn history(&self, identifier: &str, scope: Scope) -> Result<Option<Vec<HistoryEntry>>, StoreError> {
        // A proposal has at least its creation in its history: none means not found (or not yet
        // replayed on the replica, which `read_existing` reads again on the primary).
        let rows: Option<Vec<(DateTime<Utc>, String, String, serde_json::Value)>> = self
            .reads
            .read_existing(|mut conn| async move {
                let mut query = proposal_history::table
                    .inner_join(proposals::table)
                    .filter(proposals::identificador.eq(identifier.to_owned()))
                    .select((
                        proposal_history::at,
                        proposal_history::changed_by,
                        proposal_history::action,
                        proposal_history::changes,
                    ))
                    .order(proposal_history::id)
                    .into_boxed();
                if let Some(visible) = visible_to(scope) {
                    // A blocked person's proposal is the back office's only, but for a contract
                    // in force, which its seller still serves (decision 284), as route 7 reads.
                    let blocked = crate::schema::proposal_read_models::table
                        .filter(crate::schema::proposal_read_models::id_proposta.eq(proposals::id))
                        .filter(crate::schema::proposal_read_models::bloqueado);
                    query = query.filter(visible).filter(
                        proposals::status
                            .eq(ProposalStatus::Approved.as_str())
                            .or(diesel::dsl::not(diesel::dsl::exists(blocked))),
                    );
                }
                let rows: Vec<(DateTime<Utc>, String, String, serde_json::Value)> =
                    query.load(&mut conn).await.map_err(query_error)?;
                Ok((!rows.is_empty()).then_some(rows))
            })
            .await?;
        let Some(rows) = rows else {
            return Ok(None);
        };
        Ok(Some(
            rows.into_iter()
                .map(|(at, by, action, changes)| HistoryEntry {
                    at,
                    by,
                    action,
                    changes: field_changes(changes),
                })
                .collect(),
        ))
    }

    async fn product_terms(
        &self,
        product_id: i64,
        partner_document: Option<String>,
    ) -> Result<ProductTerms, StoreError> {
        let mut conn = connection(&self.pool).await?;
        crate::product_terms::product_terms(&mut conn, product_id, partner_document.as_deref()).await
    }

    async fn detail(&self, identifier: &str, scope: Scope) -> Result<Option<ProposalDetail>, StoreError> {
        read_model::read_detail(&self.pool, &self.reads, identifier, scope).await
    }

    async fn has_open_for_cpf(&self, cpf: &Cpf, integration_code: i32) -> Result<Option<bool>, StoreError> {
        self.has_open(CustomerKey::Cpf(cpf.as_str()), integration_code).await
    }

    async fn has_open_for_cell_phone(
        &self,
        cell_phone: &CellPhone,
        integration_code: i32,
    ) -> Result<Option<bool>, StoreError> {
        self.has_open(CustomerKey::CellPhone(cell_phone.as_str()), integration_code)
            .await
    }
}

impl PgProposals {
    /// The proposal's detail built from its parts now (`read_model::build_documents`), as its
    /// stored document must read (the read model's tests compare the two).
    pub async fn recomputed_detail(&self, identifier: &str) -> Result<Option<ProposalDetail>, StoreError> {
        read_model::built_detail(&self.pool, identifier).await
    }
}

/// How routes 8 and 9 name the customer.
enum CustomerKey<'a> {
    Cpf(&'a str),
    CellPhone(&'a str),
}

impl PgProposals {
    async fn has_open(&self, key: CustomerKey<'_>, integration_code: i32) -> Result<Option<bool>, StoreError> {
        let mut conn = connection(&self.pool).await?;
        let product_id: Option<i64> = products::table
            .filter(products::codigo_integracao.eq(integration_code))
            .select(products::id)
            .first(&mut conn)
            .await
            .optional()
            .map_err(query_error)?;
        let Some(product_id) = product_id else { return Ok(None) };
        // Global: every seller's proposals, each with the customer data it was made with.
        let mut open = proposals::table
            .inner_join(proposal_customers::table)
            .filter(proposals::id_produto.eq(product_id))
            .filter(proposals::status.ne_all(finished_statuses()))
            .into_boxed();
        open = match key {
            CustomerKey::Cpf(cpf) => open.filter(proposals::cpf_cliente.eq(cpf.to_owned())),
            CustomerKey::CellPhone(phone) => open.filter(proposal_customers::celular.eq(phone.to_owned())),
        };
        let count: i64 = open.count().get_result(&mut conn).await.map_err(query_error)?;
        Ok(Some(count > 0))
    }
}
