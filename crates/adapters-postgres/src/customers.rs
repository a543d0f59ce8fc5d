//! The sellers' registrations of customers in PostgreSQL: the domain's `CustomerStore`, and the
//! registration's writes that creating a proposal shares (the upsert by seller and CPF, the
//! address, the refresh of the registration's `NOVO` proposals' copies).

use crate::pool::{connection, query_error};
use crate::prepared::prepared;
use crate::proposals::PgProposals;
use crate::rows::{AddressRow, CustomerRow};
use crate::schema::{addresses, customers, partners, products, proposals};
use async_trait::async_trait;
use diesel::prelude::*;
use diesel::sql_types::{Bool, Date, Int8, Nullable, Text};
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use domain::access::Scope;
use domain::customers::{
    AddressData, CustomerData, CustomerRecord, CustomerStore, OwnershipItem, Registration, Seller, SellerView,
};
use domain::store::StoreError;
use domain::values::{Cpf, ProposalStatus};

/// Creates the seller's registration of the customer, or updates the seller's own one by CPF:
/// fields not sent keep their stored value. Another seller's registration is another row.
const UPSERT_CUSTOMER: &str = "\
         INSERT INTO customers (cpf, nome_completo, data_nascimento, sexo, estado_civil, nacionalidade, celular, telefone_fixo, \
             email, profissao, salario, trabalhando, servidor_publico, pep, afastado, medicamento, medicamento_descricao, \
             e_analfabeto, alterado_por, aplicacao_vendedor, id_parceiro_vendedor) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, COALESCE($12, false), COALESCE($13, false), COALESCE($14, false), \
             COALESCE($15, false), COALESCE($16, false), $17, COALESCE($18, false), $19, $20, $21) \
         ON CONFLICT ON CONSTRAINT customers_seller_cpf_key DO UPDATE SET \
             nome_completo = $2, data_nascimento = $3, sexo = $4, \
             estado_civil = COALESCE($5, customers.estado_civil), nacionalidade = COALESCE($6, customers.nacionalidade), \
             celular = COALESCE($7, customers.celular), telefone_fixo = COALESCE($8, customers.telefone_fixo), \
             email = COALESCE($9, customers.email), profissao = COALESCE($10, customers.profissao), \
             salario = COALESCE($11, customers.salario), trabalhando = COALESCE($12, customers.trabalhando), \
             servidor_publico = COALESCE($13, customers.servidor_publico), pep = COALESCE($14, customers.pep), \
             afastado = COALESCE($15, customers.afastado), medicamento = COALESCE($16, customers.medicamento), \
             medicamento_descricao = COALESCE($17, customers.medicamento_descricao), \
             e_analfabeto = COALESCE($18, customers.e_analfabeto), alterado_por = $19, alterado_em = now() \
         RETURNING *";

/// Copies the registration (and its address) into the proposals of it that are still NOVO: the
/// new one made in the same transaction, and the seller's earlier ones not yet sent for signature
/// (its corrections reach them). A proposal that left NOVO keeps the copy it had.
const REFRESH_PROPOSAL_CUSTOMERS: &str = "\
         INSERT INTO proposal_customers (id_proposta, id_cliente, cpf, nome_completo, data_nascimento, sexo, estado_civil, \
             nacionalidade, celular, telefone_fixo, email, profissao, salario, trabalhando, servidor_publico, pep, afastado, \
             medicamento, medicamento_descricao, e_analfabeto, cargo_politico, cep, endereco, numero, bairro, cidade, estado, \
             complemento, alterado_por, criado_em, alterado_em) \
         SELECT p.id, c.id, c.cpf, c.nome_completo, c.data_nascimento, c.sexo, c.estado_civil, c.nacionalidade, c.celular, \
             c.telefone_fixo, c.email, c.profissao, c.salario, c.trabalhando, c.servidor_publico, c.pep, c.afastado, \
             c.medicamento, c.medicamento_descricao, c.e_analfabeto, c.cargo_politico, a.cep, a.endereco, a.numero, a.bairro, \
             a.cidade, a.estado, a.complemento, c.alterado_por, c.criado_em, c.alterado_em \
         FROM proposals p JOIN customers c ON c.id = p.id_cliente JOIN addresses a ON a.id = c.id_endereco \
         WHERE p.id_cliente = $1 AND p.status = $2 \
         ON CONFLICT (id_proposta) DO UPDATE SET \
             cpf = EXCLUDED.cpf, nome_completo = EXCLUDED.nome_completo, data_nascimento = EXCLUDED.data_nascimento, \
             sexo = EXCLUDED.sexo, estado_civil = EXCLUDED.estado_civil, nacionalidade = EXCLUDED.nacionalidade, \
             celular = EXCLUDED.celular, telefone_fixo = EXCLUDED.telefone_fixo, email = EXCLUDED.email, \
             profissao = EXCLUDED.profissao, salario = EXCLUDED.salario, trabalhando = EXCLUDED.trabalhando, \
             servidor_publico = EXCLUDED.servidor_publico, pep = EXCLUDED.pep, afastado = EXCLUDED.afastado, \
             medicamento = EXCLUDED.medicamento, medicamento_descricao = EXCLUDED.medicamento_descricao, \
             e_analfabeto = EXCLUDED.e_analfabeto, cargo_politico = EXCLUDED.cargo_politico, cep = EXCLUDED.cep, \
             endereco = EXCLUDED.endereco, numero = EXCLUDED.numero, bairro = EXCLUDED.bairro, cidade = EXCLUDED.cidade, \
             estado = EXCLUDED.estado, complemento = EXCLUDED.complemento, alterado_por = EXCLUDED.alterado_por, \
             criado_em = EXCLUDED.criado_em, alterado_em = EXCLUDED.alterado_em";

/// Runs inside the caller's transaction, after the registration and its address (pipelined
/// statements run in order).
pub(crate) async fn refresh_proposal_customers(conn: &AsyncPgConnection, customer_id: i64) -> QueryResult<()> {
    let mut conn = conn;
    prepared(REFRESH_PROPOSAL_CUSTOMERS, |q| {
        q.bind::<Int8, _>(customer_id)
            .bind::<Text, _>(ProposalStatus::New.as_str())
    })
    .execute(&mut conn)
    .await?;
    Ok(())
}

/// Creates or updates the seller's registration of the customer by CPF. Runs inside the caller's
/// transaction; the address follows, pipelined.
pub(crate) async fn upsert_customer_row(
    conn: &mut AsyncPgConnection,
    c: &CustomerData,
    seller: Seller,
    changed_by: &str,
) -> QueryResult<CustomerRow> {
    prepared(UPSERT_CUSTOMER, |q| {
        q.bind::<Text, _>(c.cpf.as_str())
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
            .bind::<Text, _>(seller.application())
            .bind::<Nullable<Int8>, _>(seller.partner_id())
    })
    .get_result(conn)
    .await
}

#[derive(QueryableByName)]
struct NewAddress {
    #[diesel(sql_type = Int8)]
    id: i64,
}

/// Writes the customer's address: its stored one updated, or a new one linked to the customer
/// (one statement). Returns the address id.
pub(crate) async fn write_address(
    conn: &AsyncPgConnection,
    customer: &CustomerRow,
    a: &AddressData,
) -> QueryResult<i64> {
    let mut conn = conn;
    match customer.id_endereco {
        Some(address_id) => {
            diesel::update(addresses::table.find(address_id))
                .set((
                    addresses::cep.eq(a.cep.as_str()),
                    addresses::endereco.eq(&a.street),
                    addresses::numero.eq(&a.number),
                    addresses::bairro.eq(&a.neighborhood),
                    addresses::cidade.eq(&a.city),
                    addresses::estado.eq(a.state.as_str()),
                    addresses::complemento.eq(a.complement.as_deref()),
                    addresses::alterado_em.eq(diesel::dsl::now),
                ))
                .execute(&mut conn)
                .await?;
            Ok(address_id)
        }
        None => {
            let created: NewAddress = prepared(
                "WITH new_address AS ( \
                     INSERT INTO addresses (cep, endereco, numero, bairro, cidade, estado, complemento) \
                     VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id) \
                 UPDATE customers SET id_endereco = new_address.id FROM new_address \
                 WHERE customers.id = $8 RETURNING new_address.id",
                |q| {
                    q.bind::<Text, _>(a.cep.as_str())
                        .bind::<Text, _>(&a.street)
                        .bind::<Text, _>(&a.number)
                        .bind::<Text, _>(&a.neighborhood)
                        .bind::<Text, _>(&a.city)
                        .bind::<Text, _>(a.state.as_str())
                        .bind::<Nullable<Text>, _>(a.complement.as_deref())
                        .bind::<Int8, _>(customer.id)
                },
            )
            .get_result(&mut conn)
            .await?;
            Ok(created.id)
        }
    }
}

/// Creates or updates the seller's registration, writes its address and refreshes its NOVO
/// proposals' copies, inside the caller's transaction: two round trips.
async fn upsert_customer(
    conn: &mut AsyncPgConnection,
    c: &CustomerData,
    address: Option<&AddressData>,
    seller: Seller,
    changed_by: &str,
) -> QueryResult<CustomerRow> {
    let mut row = upsert_customer_row(conn, c, seller, changed_by).await?;
    let shared: &AsyncPgConnection = conn;
    let address_write = async {
        match address {
            Some(a) => write_address(shared, &row, a).await.map(Some),
            None => Ok(None),
        }
    };
    let (address_id, refreshed) = futures_util::join!(address_write, refresh_proposal_customers(shared, row.id));
    // Pipelined statements fail in order: the first error is the cause, later ones only report
    // the aborted transaction.
    if let Some(address_id) = address_id? {
        row.id_endereco = Some(address_id);
    }
    refreshed?;
    Ok(row)
}

#[async_trait]
impl CustomerStore for PgProposals {
    async fn upsert(
        &self,
        customer: &CustomerData,
        address: Option<AddressData>,
        seller: Seller,
        changed_by: &str,
    ) -> Result<CustomerRecord, StoreError> {
        let mut conn = connection(&self.pool).await?;
        let row = conn
            .transaction(async |conn| upsert_customer(conn, customer, address.as_ref(), seller, changed_by).await)
            .await
            .map_err(query_error)?;
        Ok(row.into())
    }

    async fn ownership(&self, cpf: &Cpf, scope: Scope) -> Result<Option<Vec<OwnershipItem>>, StoreError> {
        let mut conn = connection(&self.pool).await?;
        let mut registrations = customers::table
            .filter(customers::cpf.eq(cpf.as_str()))
            .select(customers::id)
            .into_boxed();
        if let Some(seller) = Seller::of(scope) {
            registrations = registrations.filter(customers::aplicacao_vendedor.eq(seller.application()));
            registrations = match seller.partner_id() {
                Some(partner_id) => registrations.filter(customers::id_parceiro_vendedor.eq(partner_id)),
                None => registrations.filter(customers::id_parceiro_vendedor.is_null()),
            };
        }
        let ids: Vec<i64> = registrations.load(&mut conn).await.map_err(query_error)?;
        if ids.is_empty() {
            return Ok(None);
        }
        // A registration's proposals are its seller's: no further scoping needed.
        let mut items: Vec<(i64, i32)> = proposals::table
            .inner_join(products::table)
            .filter(proposals::id_cliente.eq_any(&ids))
            .select((proposals::id_cliente, products::codigo_produto))
            .distinct()
            .load(&mut conn)
            .await
            .map_err(query_error)?;
        items.sort_unstable();
        Ok(Some(
            items
                .into_iter()
                .map(|(customer_id, product_code)| OwnershipItem {
                    customer_id,
                    product_code,
                })
                .collect(),
        ))
    }

    async fn registrations(&self, cpf: &Cpf) -> Result<Vec<Registration>, StoreError> {
        let mut conn = connection(&self.pool).await?;
        type Row = (
            CustomerRow,
            Option<AddressRow>,
            Option<(String, Option<String>, String)>,
        );
        let rows: Vec<Row> = customers::table
            .left_join(addresses::table)
            .left_join(partners::table)
            .filter(customers::cpf.eq(cpf.as_str()))
            .order(customers::id)
            .select((
                CustomerRow::as_select(),
                Option::<AddressRow>::as_select(),
                (partners::cpf_cnpj, partners::fantasy_name, partners::social_reason).nullable(),
            ))
            .load(&mut conn)
            .await
            .map_err(query_error)?;
        Ok(rows
            .into_iter()
            .map(|(customer, address, partner)| {
                let seller = match customer.id_parceiro_vendedor {
                    Some(partner_id) => Seller::Partner { partner_id },
                    None => Seller::Shop,
                };
                let (partner_document, partner_name) = match partner {
                    Some((document, fantasy, social)) => (Some(document), Some(fantasy.unwrap_or(social))),
                    None => (None, None),
                };
                Registration {
                    seller: SellerView {
                        seller,
                        partner_document,
                        partner_name,
                    },
                    customer: customer.into(),
                    address: address.map(Into::into),
                }
            })
            .collect())
    }
}
