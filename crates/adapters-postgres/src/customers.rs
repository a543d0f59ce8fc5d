//! The sellers' registrations of customers in PostgreSQL: the domain's `CustomerStore`, and the
//! registration's writes that creating a proposal shares (the upsert by seller and CPF, the
//! address, the refresh of the registration's `NOVO` proposals' copies).

use crate::person_columns::{refresh_proposal_customers, upsert_registration};
use crate::pool::{connection, query_error};
use crate::prepared::prepared;
use crate::proposals::PgProposals;
use crate::rows::{AddressRow, CustomerRow, row_of_json};
use crate::schema::{addresses, customers, partners, products, proposals};
use async_trait::async_trait;
use diesel::prelude::*;
use diesel::sql_types::{Int8, Jsonb, Nullable, Text};
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use domain::access::Scope;
use domain::customers::{
    AddressData, CustomerData, CustomerRecord, CustomerStore, OwnershipItem, Registration, Seller, SellerView,
};
use domain::store::StoreError;
use domain::values::Cpf;

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
    let mut row = upsert_registration(conn, c, seller, changed_by).await?;
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
        // The registration as its row's `to_jsonb`: read by the same columns as the upsert's row.
        type Row = (
            serde_json::Value,
            Option<AddressRow>,
            Option<(String, Option<String>, String)>,
        );
        let rows: Vec<Row> = customers::table
            .left_join(addresses::table)
            .left_join(partners::table)
            .filter(customers::cpf.eq(cpf.as_str()))
            .order(customers::id)
            .select((
                diesel::dsl::sql::<Jsonb>("to_jsonb(customers.*)"),
                Option::<AddressRow>::as_select(),
                (partners::cpf_cnpj, partners::fantasy_name, partners::social_reason).nullable(),
            ))
            .load(&mut conn)
            .await
            .map_err(query_error)?;
        rows.into_iter()
            .map(|(customer, address, partner)| {
                let customer: CustomerRow = row_of_json("customers", customer)?;
                let seller = match customer.id_parceiro_vendedor {
                    Some(partner_id) => Seller::Partner { partner_id },
                    None => Seller::Shop,
                };
                let (partner_document, partner_name) = match partner {
                    Some((document, fantasy, social)) => (Some(document), Some(fantasy.unwrap_or(social))),
                    None => (None, None),
                };
                Ok(Registration {
                    seller: SellerView {
                        seller,
                        partner_document,
                        partner_name,
                    },
                    customer: customer.into(),
                    address: address.map(Into::into),
                })
            })
            .collect()
    }
}
