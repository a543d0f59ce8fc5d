//! Customers, proposals and partners in PostgreSQL: the domain's `CustomerStore`,
//! `ProposalStore` and `PartnerDirectory`.

use crate::pool::{PgPool, connection, query_error};
use crate::rows::{AddressRow, CustomerRow, PartnerRow, PaymentRow, ProposalRow};
use crate::schema::{
    addresses, customer_partners, customers, motivations, partners, products, proposal_payments, proposals,
    representatives, users,
};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::result::{DatabaseErrorKind, Error as DieselError};
use diesel::sql_types::{Bool, Date, Int8, Nullable, Text};
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use domain::access::Scope;
use domain::auth::model::UserId;
use domain::customers::{AddressData, CustomerData, CustomerRecord, CustomerStore, OwnershipItem};
use domain::proposals::model::{
    Flow, NewProposal, PartnerLink, PaymentDetails, ProposalDetail, RepresentativeView, SignatureView,
};
use domain::proposals::ports::{CreateProposalError, PartnerDirectory, ProposalStore, Representation};
use domain::store::StoreError;
use domain::values::{CellPhone, Cpf, ProposalStatus};

const OPEN_PROPOSAL_INDEX: &str = "proposals_one_open_per_customer_product";

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

#[derive(Clone)]
pub struct PgProposals {
    pool: PgPool,
}

impl PgProposals {
    pub fn new(pool: PgPool) -> Self {
        Self { pool }
    }
}

/// Creates or updates the customer by CPF (fields not sent keep their stored value), writes its
/// address, and links it to the partner. Runs inside the caller's transaction.
async fn upsert_customer(
    conn: &mut AsyncPgConnection,
    c: &CustomerData,
    address: Option<&AddressData>,
    partner_id: Option<i64>,
    changed_by: &str,
) -> QueryResult<CustomerRow> {
    let mut row: CustomerRow = diesel::sql_query(
        "INSERT INTO customers (cpf, nome_completo, data_nascimento, sexo, estado_civil, nacionalidade, celular, telefone_fixo, \
             email, profissao, salario, trabalhando, servidor_publico, pep, afastado, medicamento, medicamento_descricao, \
             e_analfabeto, alterado_por) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, COALESCE($12, false), COALESCE($13, false), COALESCE($14, false), \
             COALESCE($15, false), COALESCE($16, false), $17, COALESCE($18, false), $19) \
         ON CONFLICT (cpf) DO UPDATE SET \
             nome_completo = $2, data_nascimento = $3, sexo = $4, \
             estado_civil = COALESCE($5, customers.estado_civil), nacionalidade = COALESCE($6, customers.nacionalidade), \
             celular = COALESCE($7, customers.celular), telefone_fixo = COALESCE($8, customers.telefone_fixo), \
             email = COALESCE($9, customers.email), profissao = COALESCE($10, customers.profissao), \
             salario = COALESCE($11, customers.salario), trabalhando = COALESCE($12, customers.trabalhando), \
             servidor_publico = COALESCE($13, customers.servidor_publico), pep = COALESCE($14, customers.pep), \
             afastado = COALESCE($15, customers.afastado), medicamento = COALESCE($16, customers.medicamento), \
             medicamento_descricao = COALESCE($17, customers.medicamento_descricao), \
             e_analfabeto = COALESCE($18, customers.e_analfabeto), alterado_por = $19, alterado_em = now() \
         RETURNING *",
    )
    .bind::<Text, _>(c.cpf.as_str())
    .bind::<Text, _>(c.full_name.as_str())
    .bind::<Date, _>(c.birth_date.date())
    .bind::<Text, _>(c.gender.as_str())
    .bind::<Nullable<Text>, _>(c.marital_status.map(|m| m.as_str()))
    .bind::<Nullable<Text>, _>(c.nationality.as_deref())
    .bind::<Nullable<Text>, _>(c.cell_phone.as_ref().map(|p| p.as_str()))
    .bind::<Nullable<Text>, _>(c.landline.as_ref().map(|p| p.as_str()))
    .bind::<Nullable<Text>, _>(c.email.as_ref().map(|e| e.as_str()))
    .bind::<Nullable<Text>, _>(c.profession.as_deref())
    .bind::<Nullable<Int8>, _>(c.salary.map(|s| s.cents()))
    .bind::<Nullable<Bool>, _>(c.working)
    .bind::<Nullable<Bool>, _>(c.public_servant)
    .bind::<Nullable<Bool>, _>(c.pep)
    .bind::<Nullable<Bool>, _>(c.absent)
    .bind::<Nullable<Bool>, _>(c.medication)
    .bind::<Nullable<Text>, _>(c.medication_description.as_deref())
    .bind::<Nullable<Bool>, _>(c.illiterate)
    .bind::<Text, _>(changed_by)
    .get_result(conn)
    .await?;

    if let Some(a) = address {
        let values = (
            addresses::cep.eq(a.cep.as_str()),
            addresses::endereco.eq(&a.street),
            addresses::numero.eq(&a.number),
            addresses::bairro.eq(&a.neighborhood),
            addresses::cidade.eq(&a.city),
            addresses::estado.eq(a.state.as_str()),
            addresses::complemento.eq(a.complement.as_deref()),
        );
        match row.id_endereco {
            Some(address_id) => {
                diesel::update(addresses::table.find(address_id))
                    .set((values, addresses::alterado_em.eq(diesel::dsl::now)))
                    .execute(conn)
                    .await?;
            }
            None => {
                let address_id: i64 = diesel::insert_into(addresses::table)
                    .values(values)
                    .returning(addresses::id)
                    .get_result(conn)
                    .await?;
                diesel::update(customers::table.find(row.id))
                    .set(customers::id_endereco.eq(address_id))
                    .execute(conn)
                    .await?;
                row.id_endereco = Some(address_id);
            }
        }
    }
    if let Some(partner_id) = partner_id {
        diesel::insert_into(customer_partners::table)
            .values((
                customer_partners::customer_id.eq(row.id),
                customer_partners::partner_id.eq(partner_id),
            ))
            .on_conflict_do_nothing()
            .execute(conn)
            .await?;
    }
    Ok(row)
}

#[async_trait]
impl CustomerStore for PgProposals {
    async fn upsert(
        &self,
        customer: &CustomerData,
        address: Option<AddressData>,
        partner_id: Option<i64>,
        changed_by: &str,
    ) -> Result<CustomerRecord, StoreError> {
        let mut conn = connection(&self.pool).await?;
        let row = conn
            .transaction(async |conn| upsert_customer(conn, customer, address.as_ref(), partner_id, changed_by).await)
            .await
            .map_err(query_error)?;
        Ok(row.into())
    }

    async fn ownership(&self, cpf: &Cpf, scope: Scope) -> Result<Option<Vec<OwnershipItem>>, StoreError> {
        let mut conn = connection(&self.pool).await?;
        let customer_id: Option<i64> = customers::table
            .filter(customers::cpf.eq(cpf.as_str()))
            .select(customers::id)
            .first(&mut conn)
            .await
            .optional()
            .map_err(query_error)?;
        let Some(customer_id) = customer_id else {
            return Ok(None);
        };
        let mut items = proposals::table
            .inner_join(products::table)
            .filter(proposals::id_cliente.eq(customer_id))
            .select(products::codigo_produto)
            .distinct()
            .into_boxed();
        match scope {
            Scope::Partner { partner_id, .. } => {
                let linked: i64 = customer_partners::table
                    .filter(customer_partners::customer_id.eq(customer_id))
                    .filter(customer_partners::partner_id.eq(partner_id))
                    .count()
                    .get_result(&mut conn)
                    .await
                    .map_err(query_error)?;
                if linked == 0 {
                    return Ok(None);
                }
                items = items.filter(proposals::id_parceiro.eq(partner_id));
            }
            Scope::Ecommerce => items = items.filter(proposals::fluxo.eq(Flow::Ecommerce.as_str())),
            Scope::Everything => {}
        }
        let mut codes: Vec<i32> = items.load(&mut conn).await.map_err(query_error)?;
        codes.sort_unstable();
        Ok(Some(
            codes
                .into_iter()
                .map(|product_code| OwnershipItem {
                    customer_id,
                    product_code,
                })
                .collect(),
        ))
    }
}

#[async_trait]
impl ProposalStore for PgProposals {
    async fn create(&self, p: &NewProposal) -> Result<domain::proposals::model::ProposalRecord, CreateProposalError> {
        let mut conn = connection(&self.pool).await?;
        let partner_id = p.partner.as_ref().map(|l| l.partner_id);
        let result = conn
            .transaction(async |conn| {
                let customer = upsert_customer(conn, &p.customer, Some(&p.address), partner_id, &p.changed_by).await?;
                // 122 random bits: an identifier nobody can guess from another.
                let identifier = uuid::Uuid::new_v4().to_string();
                let payment_type = match &p.payment {
                    Some(PaymentDetails::PayrollDiscount { .. }) => Some("DESCONTO EM FOLHA"),
                    Some(PaymentDetails::AccountDebit(_)) => Some("DÉBITO EM CONTA"),
                    None => None,
                };
                let row: ProposalRow = diesel::insert_into(proposals::table)
                    .values((
                        proposals::identificador.eq(&identifier),
                        proposals::valor.eq(p.value),
                        proposals::cpf_cnpj_parceiro.eq(p.partner.as_ref().map(|l| l.partner_document.as_str())),
                        proposals::id_parceiro.eq(partner_id),
                        proposals::id_representante.eq(p.partner.as_ref().and_then(|l| l.representative_id)),
                        proposals::id_cliente.eq(customer.id),
                        proposals::alterado_por.eq(&p.changed_by),
                        proposals::cnpj_associacao.eq(p.partner.as_ref().and_then(|l| l.association_cnpj.as_deref())),
                        proposals::cnpj_federacao.eq(p.partner.as_ref().and_then(|l| l.federation_cnpj.as_deref())),
                        proposals::tipo_envio.eq(p.shipping.as_str()),
                        proposals::fluxo.eq(p.flow.as_str()),
                        proposals::id_produto.eq(p.product_id),
                        proposals::codigo_faturamento.eq(p.billing_code),
                        proposals::tipo_pagamento.eq(payment_type),
                    ))
                    .returning(ProposalRow::as_returning())
                    .get_result(conn)
                    .await?;
                if let (Some(payment), Some(kind)) = (&p.payment, payment_type) {
                    let base = (
                        proposal_payments::id_proposta.eq(row.id),
                        proposal_payments::tipo.eq(kind),
                        proposal_payments::alterado_por.eq(&p.changed_by),
                    );
                    let insert = diesel::insert_into(proposal_payments::table);
                    match payment {
                        PaymentDetails::PayrollDiscount {
                            number,
                            specie,
                            sheet_type,
                        } => {
                            insert
                                .values((
                                    base,
                                    proposal_payments::numero_folha.eq(number),
                                    proposal_payments::tipo_folha.eq(sheet_type.as_str()),
                                    proposal_payments::especie.eq(specie),
                                ))
                                .execute(conn)
                                .await?
                        }
                        PaymentDetails::AccountDebit(account) => {
                            insert
                                .values((
                                    base,
                                    proposal_payments::banco.eq(&account.bank),
                                    proposal_payments::agencia.eq(&account.agency),
                                    proposal_payments::conta.eq(&account.account),
                                    proposal_payments::operacao.eq(account.operation.as_deref()),
                                ))
                                .execute(conn)
                                .await?
                        }
                    };
                }
                Ok::<_, DieselError>(row)
            })
            .await;
        match result {
            Ok(row) => Ok(row.into()),
            Err(DieselError::DatabaseError(DatabaseErrorKind::UniqueViolation, info))
                if info.constraint_name() == Some(OPEN_PROPOSAL_INDEX) =>
            {
                Err(CreateProposalError::DuplicateOpen)
            }
            Err(e) => Err(CreateProposalError::Store(query_error(e))),
        }
    }

    async fn detail(&self, identifier: &str, scope: Scope) -> Result<Option<ProposalDetail>, StoreError> {
        let mut conn = connection(&self.pool).await?;
        // Query 1: the proposal with its product and motivation, within the caller's scope.
        let mut query = proposals::table
            .inner_join(products::table)
            .inner_join(motivations::table)
            .filter(proposals::identificador.eq(identifier))
            .select((
                ProposalRow::as_select(),
                products::nome,
                products::codigo_produto,
                motivations::descricao,
            ))
            .into_boxed();
        query = match scope {
            Scope::Partner { partner_id, .. } => query.filter(proposals::id_parceiro.eq(partner_id)),
            Scope::Ecommerce => query.filter(proposals::fluxo.eq(Flow::Ecommerce.as_str())),
            Scope::Everything => query,
        };
        let found: Option<(ProposalRow, String, i32, String)> =
            query.first(&mut conn).await.optional().map_err(query_error)?;
        let Some((proposal, product_name, product_code, motivation)) = found else {
            return Ok(None);
        };

        // Queries 2 to 5 depend only on the proposal: sent together on the one connection
        // (pipelined), so they cost one round trip, not four.
        let shared: &AsyncPgConnection = &conn;
        let (mut c2, mut c3, mut c4, mut c5, mut c6) = (shared, shared, shared, shared, shared);
        let customer_and_address = customers::table
            .left_join(addresses::table)
            .filter(customers::id.eq(proposal.id_cliente))
            .select((CustomerRow::as_select(), Option::<AddressRow>::as_select()))
            .first::<(CustomerRow, Option<AddressRow>)>(&mut c2);
        let partner = async {
            match proposal.id_parceiro {
                Some(id) => partners::table
                    .find(id)
                    .select(PartnerRow::as_select())
                    .first::<PartnerRow>(&mut c3)
                    .await
                    .optional(),
                None => Ok(None),
            }
        };
        let representative = async {
            match proposal.id_representante {
                Some(id) => representatives::table
                    .inner_join(users::table)
                    .filter(representatives::id.eq(id))
                    .select((
                        users::cpf,
                        users::email,
                        users::name,
                        representatives::video_attendance_token,
                    ))
                    .first::<(Option<String>, String, Option<String>, Option<String>)>(&mut c4)
                    .await
                    .optional(),
                None => Ok(None),
            }
        };
        let payment = proposal_payments::table
            .filter(proposal_payments::id_proposta.eq(proposal.id))
            .select(PaymentRow::as_select())
            .first::<PaymentRow>(&mut c5);
        let signature = signature_view(&mut c6, proposal.id);
        let ((customer, address), partner, representative, payment, signature) = futures_util::try_join!(
            customer_and_address,
            partner,
            representative,
            async { payment.await.optional() },
            signature
        )
        .map_err(query_error)?;
        let representative = representative.map(|(cpf, email, name, token)| RepresentativeView {
            cpf,
            email,
            name,
            video_attendance_token: token,
        });

        Ok(Some(ProposalDetail {
            proposal: proposal.into(),
            product_name,
            product_code,
            motivation,
            representative,
            customer: customer.into(),
            address: address.map(Into::into),
            partner: partner.map(Into::into),
            signature,
            payment: payment.map(Into::into),
        }))
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
        let mut open = proposals::table
            .inner_join(customers::table)
            .filter(proposals::id_produto.eq(product_id))
            .filter(proposals::status.ne_all(finished_statuses()))
            .into_boxed();
        open = match key {
            CustomerKey::Cpf(cpf) => open.filter(customers::cpf.eq(cpf.to_owned())),
            CustomerKey::CellPhone(phone) => open.filter(customers::celular.eq(phone.to_owned())),
        };
        let count: i64 = open.count().get_result(&mut conn).await.map_err(query_error)?;
        Ok(Some(count > 0))
    }
}

async fn signature_view(conn: &mut &AsyncPgConnection, proposal_id: i64) -> QueryResult<Option<SignatureView>> {
    use crate::schema::{signature_parties, signatures};
    type Row = (
        i64,
        String,
        DateTime<Utc>,
        DateTime<Utc>,
        Option<(String, String, String, Option<String>, Option<String>)>,
    );
    let rows: Vec<Row> = signatures::table
        .left_join(signature_parties::table)
        .filter(signatures::proposal_id.eq(proposal_id))
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
    let party = |role: &str| rows.iter().filter_map(|r| r.4.as_ref()).find(|p| p.0 == role).cloned();
    let client = party("client");
    let key_and_status = |role: &str| party(role).map(|p| (p.1, p.2)).unzip();
    let (association_key, association_status) = key_and_status("association");
    let (federation_key, federation_status) = key_and_status("federation");
    let (enterprise_key, enterprise_status) = key_and_status("enterprise");
    Ok(Some(SignatureView {
        id,
        client_key: client.as_ref().map(|p| p.1.clone()),
        association_key,
        federation_key,
        enterprise_key,
        client_status: client.as_ref().map(|p| p.2.clone()),
        association_status,
        federation_status,
        enterprise_status,
        changed_by,
        created_at,
        updated_at,
        latitude: client.as_ref().and_then(|p| p.3.clone()),
        longitude: client.as_ref().and_then(|p| p.4.clone()),
    }))
}

fn link(row: PartnerRow, representative_id: Option<i64>) -> PartnerLink {
    PartnerLink {
        partner_id: row.id,
        partner_document: row.cpf_cnpj,
        representative_id,
        association_cnpj: row.association_cnpj,
        federation_cnpj: row.federation_cnpj,
    }
}

#[async_trait]
impl PartnerDirectory for PgProposals {
    async fn representation(&self, user_id: UserId) -> Result<Option<Representation>, StoreError> {
        let mut conn = connection(&self.pool).await?;
        let found: Option<(i64, PartnerRow)> = representatives::table
            .inner_join(partners::table)
            .filter(representatives::user_id.eq(user_id))
            .select((representatives::id, PartnerRow::as_select()))
            .first(&mut conn)
            .await
            .optional()
            .map_err(query_error)?;
        Ok(found.map(|(representative_id, partner)| Representation {
            representative_id,
            partner: link(partner, Some(representative_id)),
        }))
    }

    async fn partner(&self, partner_id: i64) -> Result<Option<PartnerLink>, StoreError> {
        let mut conn = connection(&self.pool).await?;
        let found: Option<PartnerRow> = partners::table
            .find(partner_id)
            .select(PartnerRow::as_select())
            .first(&mut conn)
            .await
            .optional()
            .map_err(query_error)?;
        Ok(found.map(|row| link(row, None)))
    }
}
