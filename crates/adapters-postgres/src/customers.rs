//! The sellers' registrations of customers in PostgreSQL: the domain's `CustomerStore` (route 3's
//! write is one statement, `REGISTER`; its parts, the registration's, the address's and the
//! copies', are in `person_columns`, shared with proposal creation).

use crate::composed::Composed;
use crate::person_columns::{address, refreshed_copies, registration};
use crate::pool::{connection, is_blocked_person, query_error};
use crate::proposals::PgProposals;
use crate::read_model;
use crate::rows::{AddressRow, CustomerRow, row_of_json};
use crate::schema::{addresses, customers, partners, products, proposals};
use async_trait::async_trait;
use diesel::prelude::*;
use diesel::sql_types::Jsonb;
use diesel_async::RunQueryDsl;
use domain::access::Scope;
use domain::customers::{
    AddressData, CustomerData, CustomerRecord, CustomerStore, OwnershipItem, Registration, RegistrationError, Seller,
    SellerView,
};
use domain::store::StoreError;
use domain::values::Cpf;

/// Route 3's write, in one statement: the seller's registration by CPF, its address when sent,
/// and its `NOVO` proposals' copies refreshed with their documents.
fn register<'a>(
    customer: &'a CustomerData,
    address_data: Option<&'a AddressData>,
    seller: Seller,
    changed_by: &'a str,
) -> Composed<'a> {
    Composed::new()
        .text("WITH ")
        .part(registration(customer, seller, changed_by, address_data.is_some()))
        .text(", ")
        .part(address(address_data))
        .text(", ")
        .part(refreshed_copies())
        .text(", ")
        .part(read_model::refreshed_documents())
        .text(" SELECT registration.* FROM registration")
}

#[async_trait]
impl CustomerStore for PgProposals {
    async fn upsert(
        &self,
        customer: &CustomerData,
        address: Option<AddressData>,
        seller: Seller,
        changed_by: &str,
    ) -> Result<CustomerRecord, RegistrationError> {
        let mut conn = connection(&self.pool).await?;
        let row: CustomerRow = register(customer, address.as_ref(), seller, changed_by)
            .get_result(&mut conn)
            .await
            .map_err(|e| match e {
                e if is_blocked_person(&e) => RegistrationError::PersonBlocked,
                e => RegistrationError::Store(query_error(e)),
            })?;
        Ok(row.try_into().map_err(StoreError::from)?)
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
                    customer: customer.try_into()?,
                    address: address.map(Into::into),
                })
            })
            .collect()
    }
}
