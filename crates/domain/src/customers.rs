//! Customers: validated data in, stored records out, and the store port.

use crate::access::Scope;
use crate::store::StoreError;
use crate::values::{
    BirthDate, CellPhone, Cep, Cpf, Email, FullName, Gender, Landline, MaritalStatus, SalaryCents, Uf,
};
use async_trait::async_trait;
use chrono::{DateTime, NaiveDate, Utc};

/// A customer's data as a route sent it, every value already valid. `None` leaves a stored value
/// as it is (the e-commerce proposal sends only a few fields); a new customer gets null or false.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CustomerData {
    pub full_name: FullName,
    pub cpf: Cpf,
    pub birth_date: BirthDate,
    pub gender: Gender,
    pub marital_status: Option<MaritalStatus>,
    pub nationality: Option<String>,
    pub cell_phone: Option<CellPhone>,
    pub landline: Option<Landline>,
    pub email: Option<Email>,
    pub profession: Option<String>,
    pub salary: Option<SalaryCents>,
    pub working: Option<bool>,
    pub public_servant: Option<bool>,
    pub pep: Option<bool>,
    pub absent: Option<bool>,
    pub medication: Option<bool>,
    pub medication_description: Option<String>,
    pub illiterate: Option<bool>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AddressData {
    pub cep: Cep,
    pub street: String,
    /// As written: `123`, `123A` or `S/N`.
    pub number: String,
    pub neighborhood: String,
    pub city: String,
    pub state: Uf,
    pub complement: Option<String>,
}

/// A stored customer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CustomerRecord {
    pub id: i64,
    pub changed_by: String,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    pub full_name: String,
    pub cpf: String,
    pub birth_date: NaiveDate,
    pub gender: String,
    pub marital_status: Option<String>,
    pub nationality: Option<String>,
    pub cell_phone: Option<String>,
    pub landline: Option<String>,
    pub email: Option<String>,
    pub profession: Option<String>,
    pub salary: Option<i64>,
    pub working: bool,
    pub public_servant: bool,
    pub pep: bool,
    pub absent: bool,
    pub medication: bool,
    pub medication_description: Option<String>,
    pub customer_key: Option<String>,
    pub status: String,
    pub illiterate: bool,
    pub jave_code: Option<String>,
    pub political_office: Option<String>,
    pub address_id: Option<i64>,
    pub ecommerce_customer_id: Option<String>,
}

/// A customer as seen by a seller: one item per product the seller has a proposal of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OwnershipItem {
    pub customer_id: i64,
    pub product_code: i32,
}

#[cfg_attr(feature = "mock", mockall::automock)]
#[async_trait]
pub trait CustomerStore: Send + Sync {
    /// Creates the customer, or updates the one with the same CPF, with its address when given,
    /// and links it to the partner when given; all in one transaction.
    async fn upsert(
        &self,
        customer: &CustomerData,
        address: Option<AddressData>,
        partner_id: Option<i64>,
        changed_by: &str,
    ) -> Result<CustomerRecord, StoreError>;

    /// `None` when the customer is not registered for the scope's seller; else the products the
    /// seller has proposals of for that customer (possibly none).
    async fn ownership(&self, cpf: &Cpf, scope: Scope) -> Result<Option<Vec<OwnershipItem>>, StoreError>;
}
