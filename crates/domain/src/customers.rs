//! Customers: validated data in, stored records out, and the store port.

use crate::scope::Scope;
use crate::stamp::ChangeStamp;
use crate::store::StoreError;
use crate::values::{
    AgeBounds, Application, BirthDate, CellPhone, Cep, Cpf, Email, FullName, Gender, Landline, MaritalStatus,
    RegistrationStatus, SalaryCents, StoredValueError, Uf,
};
use async_trait::async_trait;
use chrono::NaiveDate;

/// The configurable rules of customer data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CustomerRules {
    /// The lowest salary a standard proposal accepts, in cents, inclusive (the minimum wage
    /// changes every year).
    pub min_salary_cents: i64,
    pub age: AgeBounds,
}

impl Default for CustomerRules {
    /// 141200 cents: the spec's own sample sends exactly this, so the bound is inclusive.
    fn default() -> Self {
        Self {
            min_salary_cents: 141_200,
            age: AgeBounds::default(),
        }
    }
}

/// A customer's data as a route sent it, every value already valid. `None` leaves a stored value
/// as it is (the e-commerce proposal sends only a few fields); a new customer gets null or false.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CustomerData {
    pub full_name: FullName,
    /// The name the person is known by (nome social, Decreto 8.727/2016), with the full name's
    /// rules.
    pub social_name: Option<FullName>,
    /// The mother's name (nome da mãe), used in identity checks, with the full name's rules.
    pub mother_name: Option<FullName>,
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

impl CustomerData {
    /// Only the four members every customer has; the rest left as stored.
    pub fn minimal(full_name: FullName, cpf: Cpf, birth_date: BirthDate, gender: Gender) -> Self {
        Self {
            full_name,
            social_name: None,
            mother_name: None,
            cpf,
            birth_date,
            gender,
            marital_status: None,
            nationality: None,
            cell_phone: None,
            landline: None,
            email: None,
            profession: None,
            salary: None,
            working: None,
            public_servant: None,
            pep: None,
            absent: None,
            medication: None,
            medication_description: None,
            illiterate: None,
        }
    }
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

/// A stored address as answers show it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AddressView {
    pub cep: String,
    pub street: String,
    pub number: String,
    pub neighborhood: String,
    pub city: String,
    pub state: String,
    pub complement: Option<String>,
}

/// A person's data as stored: the seller's registration holds one, and every proposal holds its
/// own copy (refreshed from the registration while the proposal is `NOVO`, frozen afterwards).
/// The one shape of a customer's personal fields: the registration, the proposal's copy, their
/// answers and the documents are all made from it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CustomerSnapshot {
    pub cpf: String,
    pub full_name: String,
    pub social_name: Option<String>,
    pub mother_name: Option<String>,
    pub birth_date: NaiveDate,
    pub gender: PersonGender,
    pub marital_status: Option<MaritalStatus>,
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
    pub illiterate: bool,
    pub political_office: Option<String>,
}

impl CustomerSnapshot {
    /// The lines that identify the person on a document (the contract's customer block), in
    /// order: label and value, already formatted for reading.
    pub fn identification(&self) -> Vec<(&'static str, String)> {
        use crate::contract::formats;
        // With a social name, it comes first and the civil name beside it (Decreto 8.727/2016,
        // art. 6: the civil name only alongside, for the record).
        let mut lines = match &self.social_name {
            Some(social) => vec![("Nome social", social.clone()), ("Nome civil", self.full_name.clone())],
            None => vec![("Nome", self.full_name.clone())],
        };
        lines.push(("CPF", formats::cpf(&self.cpf)));
        lines.push(("Data de nascimento", formats::date(self.birth_date)));
        if let Some(mother) = &self.mother_name {
            lines.push(("Nome da mãe", mother.clone()));
        }
        lines
    }
}

/// A person's gender as kept: the one stated (routes 3, 5 and 6), or none, an anonymised
/// person's (anonymisation stores [`PersonGender::NOT_INFORMED`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PersonGender {
    Stated(Gender),
    NotInformed,
}

impl PersonGender {
    /// How an anonymised person's gender is stored and shown.
    pub const NOT_INFORMED: &'static str = "Não informado";

    pub fn as_str(self) -> &'static str {
        match self {
            PersonGender::Stated(gender) => gender.as_str(),
            PersonGender::NotInformed => Self::NOT_INFORMED,
        }
    }

    /// A value read back from `table.column`: a gender's spelling or the anonymised one.
    pub fn from_stored(value: &str, table: &'static str, column: &'static str) -> Result<Self, StoredValueError> {
        if value == Self::NOT_INFORMED {
            return Ok(PersonGender::NotInformed);
        }
        Gender::from_stored(value, table, column).map(PersonGender::Stated)
    }
}

/// A stored customer: one seller's registration of a person.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CustomerRecord {
    pub id: i64,
    pub person: CustomerSnapshot,
    pub stamp: ChangeStamp,
    pub customer_key: Option<String>,
    pub status: RegistrationStatus,
    pub jave_code: Option<String>,
    pub address_id: Option<i64>,
    pub ecommerce_customer_id: Option<String>,
}

/// Who registered a customer: a partner (through its representatives) or the online shop. A
/// registration is private to its seller: another seller's registration of the same CPF is a
/// different record, never read or changed by it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Seller {
    Partner { partner_id: i64 },
    Shop,
}

impl Seller {
    /// The seller a scope writes as; the back office sells nothing.
    pub fn of(scope: Scope) -> Option<Seller> {
        match scope {
            Scope::Partner { partner_id, .. } => Some(Seller::Partner { partner_id }),
            Scope::Ecommerce => Some(Seller::Shop),
            Scope::Everything => None,
        }
    }

    /// The application the seller works in (`PARCEIRO` or `ECOMMERCE`).
    pub fn application(self) -> &'static str {
        match self {
            Seller::Partner { .. } => Application::Partner,
            Seller::Shop => Application::Ecommerce,
        }
        .as_str()
    }

    pub fn partner_id(self) -> Option<i64> {
        match self {
            Seller::Partner { partner_id } => Some(partner_id),
            Seller::Shop => None,
        }
    }
}

/// The seller of a registration as the back office sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SellerView {
    pub seller: Seller,
    /// The partner's CPF or CNPJ and name, for a partner's registration.
    pub partner_document: Option<String>,
    pub partner_name: Option<String>,
}

/// One seller's registration of a customer, with its address (back office).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Registration {
    pub seller: SellerView,
    pub customer: CustomerRecord,
    pub address: Option<AddressView>,
}

/// A customer as seen by a seller: one item per product the seller has a proposal of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OwnershipItem {
    pub customer_id: i64,
    pub product_code: i32,
}

/// Why a registration was not written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RegistrationError {
    /// The person's data is blocked under a legal hold (LGPD art. 18, IV): nothing new is made
    /// of it (enforced by the database, whichever write path comes).
    #[error("dados do titular bloqueados por retenção legal")]
    PersonBlocked,
    #[error(transparent)]
    Store(#[from] StoreError),
}

#[cfg_attr(feature = "mock", mockall::automock)]
#[async_trait]
pub trait CustomerStore: Send + Sync {
    /// Creates the seller's registration of the customer, or updates the seller's own one with the
    /// same CPF (fields not sent keep their value), with its address when given; the seller's NOVO
    /// proposals of that customer take the new data too. All in one transaction; another seller's
    /// registration of the CPF is never read or changed. `PersonBlocked` for a person whose data
    /// is blocked under a legal hold.
    async fn upsert(
        &self,
        customer: &CustomerData,
        address: Option<AddressData>,
        seller: Seller,
        changed_by: &str,
    ) -> Result<CustomerRecord, RegistrationError>;

    /// `None` when the scope's seller has no registration of the CPF (for the back office: when
    /// no seller has); else one item per registration and product of its proposals (possibly none).
    async fn ownership(&self, cpf: &Cpf, scope: Scope) -> Result<Option<Vec<OwnershipItem>>, StoreError>;

    /// Every seller's registration of the CPF, oldest first (the back office's view).
    async fn registrations(&self, cpf: &Cpf) -> Result<Vec<Registration>, StoreError>;
}

#[cfg(test)]
mod tests {
    use crate::testing::person;

    fn labels(lines: &[(&'static str, String)]) -> Vec<&'static str> {
        lines.iter().map(|(label, _)| *label).collect()
    }

    #[test]
    fn a_document_names_the_person_by_the_social_name_with_the_civil_name_beside_it() {
        let plain = person().identification();
        assert_eq!(labels(&plain), ["Nome", "CPF", "Data de nascimento"]);
        assert_eq!(plain[0].1, "Maria da Silva");
        assert_eq!(plain[1].1, "123.456.789-09");

        let known_as = crate::customers::CustomerSnapshot {
            social_name: Some("Mariana Souza".into()),
            ..person()
        }
        .identification();
        assert_eq!(
            labels(&known_as),
            ["Nome social", "Nome civil", "CPF", "Data de nascimento"]
        );
        assert_eq!(known_as[0].1, "Mariana Souza");
        assert_eq!(known_as[1].1, "Maria da Silva");
    }
}
