//! Value types: the only way to make one is its constructor, so a value in hand is valid.

pub mod bank_account;
pub mod birth_date;
pub mod cep;
pub mod choices;
pub mod cnpj;
pub mod cpf;
pub mod email;
pub mod full_name;
pub mod phone;
pub mod salary;

pub use bank_account::BankAccount;
pub use birth_date::{AgeBounds, BirthDate};
pub use cep::Cep;
pub use choices::{
    Application, BillingStatus, ChargeStatus, DeliveryState, EventKind, Flow, Gender, HookStatus, Kinship,
    MaritalStatus, PartyStatus, PaymentType, ProposalStatus, ReasonCategory, RegistrationStatus, SheetType,
    ShippingType, StoredValueError, Uf,
};
pub use cnpj::Cnpj;
pub use cpf::Cpf;
pub use email::Email;
pub use full_name::FullName;
pub use phone::{CellPhone, Landline};
pub use salary::SalaryCents;
