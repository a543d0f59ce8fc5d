//! Proposals in PostgreSQL: the domain's `ProposalStore` (the registrations are `customers`, the
//! partners `partners`, route 7's document `read_model`).

use crate::customers::write_address;
use crate::person_columns::{refresh_proposal_customers, upsert_registration};
use crate::pool::{PgPool, connection, names_no_row, query_error};
use crate::read_model::{self, DetailParts, PartyPart, RepresentativePart, SignaturePart};
use crate::rows::{PartnerRow, PaymentRow, ProposalRow, row_of_json};
use crate::schema::{
    motivations, partners, products, proposal_customers, proposal_history, proposal_payments, proposals,
    representatives, users,
};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use diesel::dsl::{AsSelect, SqlTypeOf, sql};
use diesel::pg::Pg;
use diesel::prelude::*;
use diesel::result::{DatabaseErrorKind, Error as DieselError};
use diesel::sql_types::{Bool, Int4, Int8, Jsonb, Nullable, Text, Timestamptz};
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use domain::access::Scope;
use domain::history::{FieldChange, HistoryEntry};
use domain::proposals::model::{Flow, NewProposal, PaymentDetails, ProposalDetail, ProposalRecord};
use domain::proposals::ports::{CreateProposalError, ProposalStore};
use domain::proposals::search::{ListedProposal, ProposalSearch, SearchText};
use domain::store::StoreError;
use domain::values::{CellPhone, Cpf, ProposalStatus};
use std::collections::BTreeMap;

const OPEN_PROPOSAL_INDEX: &str = "proposals_one_open_per_cpf_product";

/// Statuses that free the customer to open a new proposal for the product.
fn finished_statuses() -> Vec<&'static str> {
    [
        ProposalStatus::Approved,
        ProposalStatus::Rejected,
        ProposalStatus::Cancelled,
    ]
    .iter()
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
}

impl PgProposals {
    pub fn new(pool: PgPool) -> Self {
        Self { pool }
    }
}

async fn insert_proposal(
    conn: &AsyncPgConnection,
    p: &NewProposal,
    identifier: &str,
    customer_id: i64,
    payment_type: Option<&str>,
) -> QueryResult<ProposalRow> {
    let mut conn = conn;
    let partner = p.partner.as_ref();
    diesel::insert_into(proposals::table)
        .values((
            proposals::identificador.eq(identifier),
            proposals::valor.eq(p.value),
            proposals::cpf_cnpj_parceiro.eq(partner.map(|l| l.partner_document.as_str())),
            proposals::id_parceiro.eq(partner.map(|l| l.partner_id)),
            proposals::id_representante.eq(partner.and_then(|l| l.representative_id)),
            proposals::id_cliente.eq(customer_id),
            proposals::cpf_cliente.eq(p.customer.cpf.as_str()),
            proposals::alterado_por.eq(&p.changed_by),
            proposals::cnpj_associacao.eq(partner.and_then(|l| l.association_cnpj.as_deref())),
            proposals::cnpj_federacao.eq(partner.and_then(|l| l.federation_cnpj.as_deref())),
            proposals::tipo_envio.eq(p.shipping.as_str()),
            proposals::fluxo.eq(p.flow.as_str()),
            proposals::id_produto.eq(p.product_id),
            proposals::codigo_faturamento.eq(p.billing_code),
            proposals::tipo_pagamento.eq(payment_type),
        ))
        .returning(ProposalRow::as_returning())
        .get_result(&mut conn)
        .await
}

/// The proposal's payment, for the proposal with `identifier` (inserted just before it in the
/// same transaction and pipeline).
async fn insert_payment(
    conn: &AsyncPgConnection,
    p: &NewProposal,
    identifier: &str,
    payment_type: Option<&str>,
) -> QueryResult<()> {
    use diesel::IntoSql;
    let (Some(payment), Some(kind)) = (&p.payment, payment_type) else {
        return Ok(());
    };
    let mut conn = conn;
    let none = None::<&str>;
    let (bank, agency, account, operation, number, sheet_type, specie) = match payment {
        PaymentDetails::PayrollDiscount {
            number,
            specie,
            sheet_type,
        } => (
            none,
            none,
            none,
            none,
            Some(number.as_str()),
            Some(sheet_type.as_str()),
            Some(*specie),
        ),
        PaymentDetails::AccountDebit(a) => (
            Some(a.bank.as_str()),
            Some(a.agency.as_str()),
            Some(a.account.as_str()),
            a.operation.as_deref(),
            none,
            none,
            None,
        ),
    };
    let values = proposals::table
        .filter(proposals::identificador.eq(identifier))
        .select((
            proposals::id,
            kind.into_sql::<Text>(),
            p.changed_by.as_str().into_sql::<Text>(),
            bank.into_sql::<Nullable<Text>>(),
            agency.into_sql::<Nullable<Text>>(),
            account.into_sql::<Nullable<Text>>(),
            operation.into_sql::<Nullable<Text>>(),
            number.into_sql::<Nullable<Text>>(),
            sheet_type.into_sql::<Nullable<Text>>(),
            specie.into_sql::<Nullable<Int4>>(),
        ));
    diesel::insert_into(proposal_payments::table)
        .values(values)
        .into_columns((
            proposal_payments::id_proposta,
            proposal_payments::tipo,
            proposal_payments::alterado_por,
            proposal_payments::banco,
            proposal_payments::agencia,
            proposal_payments::conta,
            proposal_payments::operacao,
            proposal_payments::numero_folha,
            proposal_payments::tipo_folha,
            proposal_payments::especie,
        ))
        .execute(&mut conn)
        .await?;
    Ok(())
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

/// A name word as a LIKE pattern against the stored normalised name (`nome_busca`, written by
/// `search_text`: lower case, accents and full-width forms folded; migration 000021): the word
/// normalised the same way, then `%`, `_` and `\` escaped, in that order, so that a full-width
/// `％` folded into `%` is escaped too.
const NAME_WORD_MATCHES: &str = "proposal_customers.nome_busca LIKE '%' || \
     replace(replace(replace(search_text(";
const NAME_WORD_MATCHES_END: &str = "), '\\', '\\\\'), '%', '\\%'), '_', '\\_') || '%'";

/// The list's statement: the scope and each condition as a filter, newest first from the cursor,
/// one row more than the page. Each scope and the status and CPF filters have an index in this
/// order (migration 000015), and name words the trigram index on `nome_busca` (000021).
fn search_query(
    search: &ProposalSearch,
    scope: Scope,
) -> proposals::BoxedQuery<'static, Pg, SqlTypeOf<AsSelect<ProposalRow, Pg>>> {
    let mut query = proposals::table.select(ProposalRow::as_select()).into_boxed();
    if let Some(visible) = visible_to(scope) {
        query = query.filter(visible);
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
            let mut named = proposal_customers::table
                .select(proposal_customers::id_proposta)
                .into_boxed();
            for word in words {
                named = named.filter(
                    sql::<Bool>(NAME_WORD_MATCHES)
                        .bind::<Text, _>(word.clone())
                        .sql(NAME_WORD_MATCHES_END),
                );
            }
            query = query.filter(proposals::id.eq_any(named));
        }
        None => {}
    }
    if let Some(from) = search.created_from {
        query = query.filter(proposals::criado_em.ge(from));
    }
    if let Some(before) = search.created_before {
        query = query.filter(proposals::criado_em.lt(before));
    }
    if let Some(after) = search.after {
        // A row comparison, so the (criado_em DESC, id DESC) indexes serve it as one range.
        query = query.filter(
            sql::<Bool>("(proposals.criado_em, proposals.id) < (")
                .bind::<Timestamptz, _>(after.created_at)
                .sql(", ")
                .bind::<Int8, _>(after.id)
                .sql(")"),
        );
    }
    query
        .order((proposals::criado_em.desc(), proposals::id.desc()))
        .limit(search.limit.saturating_add(1))
}

#[async_trait]
impl ProposalStore for PgProposals {
    async fn create(&self, p: &NewProposal) -> Result<domain::proposals::model::ProposalRecord, CreateProposalError> {
        let mut conn = connection(&self.pool).await?;
        // Four round trips: BEGIN; the registration; its address, the proposal, its payment and
        // the proposal's copy of the customer, pipelined (the payment finds its proposal by the
        // identifier made here; the copy reads what the statements before it wrote); COMMIT.
        let result = conn
            .transaction(async |conn| {
                let customer = upsert_registration(conn, &p.customer, p.seller, &p.changed_by).await?;
                // 122 random bits: an identifier nobody can guess from another.
                let identifier = uuid::Uuid::new_v4().to_string();
                let payment_type = match &p.payment {
                    Some(PaymentDetails::PayrollDiscount { .. }) => Some("DESCONTO EM FOLHA"),
                    Some(PaymentDetails::AccountDebit(_)) => Some("DÉBITO EM CONTA"),
                    None => None,
                };
                let shared: &AsyncPgConnection = conn;
                let (address, proposal, payment, copied) = futures_util::join!(
                    write_address(shared, &customer, &p.address),
                    insert_proposal(shared, p, &identifier, customer.id, payment_type),
                    insert_payment(shared, p, &identifier, payment_type),
                    refresh_proposal_customers(shared, customer.id),
                );
                // In pipeline order: the first error is the cause (later statements only report
                // the aborted transaction).
                address?;
                let row = proposal?;
                payment?;
                copied?;
                Ok::<_, DieselError>(row)
            })
            .await;
        match result {
            Ok(row) => Ok(ProposalRecord::try_from(row).map_err(StoreError::from)?),
            Err(DieselError::DatabaseError(DatabaseErrorKind::UniqueViolation, info))
                if info.constraint_name() == Some(OPEN_PROPOSAL_INDEX) =>
            {
                Err(CreateProposalError::DuplicateOpen)
            }
            Err(e) => Err(CreateProposalError::Store(query_error(e))),
        }
    }

    async fn search(&self, search: &ProposalSearch, scope: Scope) -> Result<Vec<ListedProposal>, StoreError> {
        let mut conn = connection(&self.pool).await?;
        let rows: Vec<ProposalRow> = search_query(search, scope).load(&mut conn).await.map_err(query_error)?;
        // Who each customer is, from the proposals' own copies (by primary key).
        let ids: Vec<i64> = rows.iter().map(|r| r.id).collect();
        let customers: Vec<(i64, String, String)> = proposal_customers::table
            .filter(proposal_customers::id_proposta.eq_any(&ids))
            .select((
                proposal_customers::id_proposta,
                proposal_customers::nome_completo,
                proposal_customers::cpf,
            ))
            .load(&mut conn)
            .await
            .map_err(query_error)?;
        rows.into_iter()
            .map(|row| {
                let customer = customers.iter().find(|(id, _, _)| *id == row.id);
                Ok(ListedProposal {
                    customer_name: customer.map(|(_, name, _)| name.clone()),
                    customer_cpf: customer.map(|(_, _, cpf)| cpf.clone()),
                    record: ProposalRecord::try_from(row)?,
                })
            })
            .collect()
    }

    async fn history(&self, identifier: &str, scope: Scope) -> Result<Option<Vec<HistoryEntry>>, StoreError> {
        let mut conn = connection(&self.pool).await?;
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
            query = query.filter(visible);
        }
        let rows: Vec<(DateTime<Utc>, String, String, serde_json::Value)> =
            query.load(&mut conn).await.map_err(query_error)?;
        if rows.is_empty() {
            return Ok(None);
        }
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

    async fn product_terms(&self, product_id: i64) -> Result<Option<String>, StoreError> {
        let mut conn = connection(&self.pool).await?;
        let terms: Option<Option<String>> = products::table
            .find(product_id)
            .select(products::termos)
            .first(&mut conn)
            .await
            .optional()
            .map_err(query_error)?;
        Ok(terms.flatten())
    }

    async fn detail(&self, identifier: &str, scope: Scope) -> Result<Option<ProposalDetail>, StoreError> {
        read_model::read_detail(&self.pool, identifier, scope).await
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
    /// The proposal's detail joined afresh from its parts, as its stored document must read (the
    /// read model's tests compare the two). Two statements pipelined: the proposal with what it
    /// has at most one of, and its signature's parties.
    pub async fn recomputed_detail(&self, identifier: &str) -> Result<Option<ProposalDetail>, StoreError> {
        if names_no_row(identifier) {
            return Ok(None);
        }
        let conn = connection(&self.pool).await?;
        let shared: &AsyncPgConnection = &conn;
        let (mut for_proposal, mut for_signature) = (shared, shared);
        let proposal = proposals::table
            .inner_join(products::table)
            .inner_join(motivations::table)
            .inner_join(proposal_customers::table)
            .left_join(partners::table)
            .left_join(representatives::table.inner_join(users::table))
            .left_join(proposal_payments::table)
            .filter(proposals::identificador.eq(identifier))
            .select((
                ProposalRow::as_select(),
                (products::nome, products::codigo_produto, motivations::descricao),
                diesel::dsl::sql::<Jsonb>("to_jsonb(proposal_customers.*)"),
                Option::<PartnerRow>::as_select(),
                (
                    users::cpf,
                    users::email,
                    users::name,
                    representatives::video_attendance_token,
                )
                    .nullable(),
                Option::<PaymentRow>::as_select(),
            ))
            .first::<DetailRow>(&mut for_proposal);
        let proposal = async { proposal.await.optional() };
        let signature = signature_part(&mut for_signature, identifier);
        let (found, signature) = futures_util::try_join!(proposal, signature).map_err(query_error)?;
        let Some((proposal, (product_name, product_code, motivation), customer, partner, representative, payment)) =
            found
        else {
            return Ok(None);
        };
        let parts = DetailParts {
            proposal,
            product_name,
            product_code,
            motivation,
            customer: row_of_json("proposal_customers", customer)?,
            partner,
            representative: representative.map(|(cpf, email, name, video_attendance_token)| RepresentativePart {
                cpf,
                email,
                name,
                video_attendance_token,
            }),
            payment,
            signature,
        };
        Ok(Some(ProposalDetail::try_from(parts)?))
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

/// What route 7's joined statement returns: the proposal; its product's name and code and its
/// motivation; its copy of the customer and address; the partner; the representative (CPF,
/// e-mail, name, video token); the payment.
type DetailRow = (
    ProposalRow,
    (String, i32, String),
    serde_json::Value,
    Option<PartnerRow>,
    Option<(Option<String>, String, Option<String>, Option<String>)>,
    Option<PaymentRow>,
);

/// The signature of the proposal with this identifier, with its parties.
async fn signature_part(conn: &mut &AsyncPgConnection, identifier: &str) -> QueryResult<Option<SignaturePart>> {
    use crate::schema::{signature_parties, signatures};
    /// A party: role, request key, status, latitude, longitude.
    type Party = (String, String, String, Option<String>, Option<String>);
    type Row = (i64, String, DateTime<Utc>, DateTime<Utc>, Option<Party>);
    let rows: Vec<Row> = signatures::table
        .left_join(signature_parties::table)
        .inner_join(proposals::table)
        .filter(proposals::identificador.eq(identifier))
        .select((
            signatures::id,
            signatures::alterado_por,
            signatures::criado_em,
            signatures::alterado_em,
            (
                signature_parties::role,
                signature_parties::request_key,
                signature_parties::status,
                signature_parties::latitude,
                signature_parties::longitude,
            )
                .nullable(),
        ))
        .load(conn)
        .await?;
    let Some((id, changed_by, created_at, updated_at, _)) = <[Row]>::first(&rows).cloned() else {
        return Ok(None);
    };
    Ok(Some(SignaturePart {
        id,
        alterado_por: changed_by,
        criado_em: created_at,
        alterado_em: updated_at,
        parties: rows
            .into_iter()
            .filter_map(|(.., party)| party)
            .map(|(role, request_key, status, latitude, longitude)| PartyPart {
                role,
                request_key,
                status,
                latitude,
                longitude,
            })
            .collect(),
    }))
}
