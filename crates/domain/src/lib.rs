//! The business core of the sales back end: value types and their rules, the use cases, and the
//! port traits that the adapters (PostgreSQL, payment platform, signature provider, mailer)
//! implement. It knows nothing of HTTP, SQL or any outside service, so other Rust services can use
//! it on its own.
//!
//! # Values that are valid by construction
//!
//! Each field of the Brazilian market has a type whose only constructor checks it ([`values`]):
//! a [`values::Cpf`] in hand is a valid CPF. A refusal carries a stable code and a message in
//! Portuguese ([`validation::Rejection`]).
//!
//! ```
//! use domain::values::{CellPhone, Cpf, FullName};
//!
//! let cpf = Cpf::parse("123.456.789-09").unwrap();
//! assert_eq!(cpf.as_str(), "12345678909"); // stored as digits
//! assert_eq!(cpf.masked(), "***.***.***-09"); // all that logs may show
//! assert_eq!(Cpf::parse("123.456.789-00").unwrap_err().code, "cpf_digito");
//! assert_eq!(Cpf::parse("111.111.111-11").unwrap_err().code, "cpf_repetido");
//!
//! let phone = CellPhone::parse("(11) 91234-5678").unwrap();
//! assert_eq!(phone.as_str(), "11912345678");
//! assert_eq!(phone.formatted(), "(11) 91234-5678");
//! assert_eq!(CellPhone::parse("(11) 81234-5678").unwrap_err().code, "celular_nao_movel");
//! assert_eq!(CellPhone::parse("(20) 91234-5678").unwrap_err().code, "celular_ddd");
//!
//! // Names are normalised (NFC, spaces collapsed); a decomposed accent is the same name.
//! let name = FullName::parse("  Jose\u{301}   da Silva ").unwrap();
//! assert_eq!(name.as_str(), "José da Silva");
//! assert_eq!(FullName::parse("Maria").unwrap_err().code, "nome_palavras");
//! assert_eq!(FullName::parse("Maria 2 Silva").unwrap_err().code, "nome_caractere");
//! ```
//!
//! # The proposal's state machine
//!
//! [`proposals::lifecycle`] says which trigger may move a proposal between which statuses;
//! anything else is refused naming both states.
//!
//! ```
//! use domain::proposals::lifecycle::{Trigger, check};
//! use domain::values::ProposalStatus::*;
//!
//! // A partner's proposal: sent, signed by the four parties, approved by the back office.
//! check(New, AwaitingSignature, Trigger::SentForSignature).unwrap();
//! check(AwaitingSignature, InAnalysis, Trigger::AllPartiesSigned).unwrap();
//! check(InAnalysis, Approved, Trigger::BackOffice).unwrap();
//! // The back office cannot skip the signatures, and nothing leaves a finished state.
//! let refused = check(New, InAnalysis, Trigger::BackOffice).unwrap_err();
//! assert_eq!(refused.to_string(), "transição de NOVO para EM ANÁLISE não permitida");
//! assert!(check(Approved, Cancelled, Trigger::BackOffice).is_err());
//! ```
//!
//! # Ports and use cases
//!
//! A use case is a struct of the ports it needs ([`std::sync::Arc`]s of traits); an adapter is any
//! implementation. Here [`users::CreateUser`] runs over a user store kept in memory and a toy
//! hasher (the service's are PostgreSQL and bcrypt):
//!
//! ```
//! use async_trait::async_trait;
//! use domain::auth::model::UserId;
//! use domain::auth::password::{Password, PasswordHash, PasswordPolicy};
//! use domain::auth::ports::{HashError, PasswordHasher};
//! use domain::users::{CreateUser, CreateUserError, NewUser, NewUserInput, UserWriter};
//! use std::sync::{Arc, Mutex};
//!
//! #[derive(Default)]
//! struct InMemoryUsers(Mutex<Vec<NewUser>>);
//!
//! #[async_trait]
//! impl UserWriter for InMemoryUsers {
//!     async fn create(&self, user: &NewUser) -> Result<UserId, CreateUserError> {
//!         let mut users = self.0.lock().unwrap();
//!         if users.iter().any(|u| u.email == user.email) {
//!             return Err(CreateUserError::DuplicateEmail); // the port's contract
//!         }
//!         users.push(user.clone());
//!         Ok(users.len() as UserId)
//!     }
//! }
//!
//! struct ReversingHasher;
//!
//! #[async_trait]
//! impl PasswordHasher for ReversingHasher {
//!     async fn hash(&self, password: &Password) -> Result<PasswordHash, HashError> {
//!         Ok(PasswordHash(password.expose().chars().rev().collect()))
//!     }
//!     async fn verify(&self, password: &Password, hash: Option<PasswordHash>) -> Result<bool, HashError> {
//!         Ok(hash.is_some_and(|h| h.0.chars().rev().collect::<String>() == password.expose()))
//!     }
//! }
//!
//! # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
//! let users = Arc::new(InMemoryUsers::default());
//! let create = CreateUser { writer: users.clone(), hasher: Arc::new(ReversingHasher), policy: PasswordPolicy::default() };
//! let input = |email: &str, password: &str| NewUserInput {
//!     email: email.into(),
//!     password: password.into(),
//!     applications: vec!["BACKOFFICE".into()],
//!     ..Default::default()
//! };
//! assert_eq!(create.execute(input("Ana@Exemplo.com.br", "Vendas#2026")).await, Ok(1));
//! assert_eq!(users.0.lock().unwrap()[0].email.as_str(), "ana@exemplo.com.br");
//! // The rules are the use case's: a weak password never reaches the store.
//! let Err(CreateUserError::Invalid(refused)) = create.execute(input("bia@exemplo.com.br", "123")).await else {
//!     panic!("accepted a weak password");
//! };
//! assert_eq!(refused.errors()[0].field, "password");
//! assert_eq!(create.execute(input("ana@exemplo.com.br", "Vendas#2026")).await, Err(CreateUserError::DuplicateEmail));
//! # });
//! ```

pub mod acceptance;
pub mod access;
pub mod auth;
pub mod billing;
pub mod catalog;
pub mod certificates;
pub mod clock;
pub mod contract;
pub mod customers;
pub mod ecommerce;
#[cfg(test)]
mod ecommerce_tests;
pub mod field_codes;
pub mod health;
pub mod history;
pub mod hooks;
pub mod idempotency;
pub mod input;
pub mod kyc;
pub mod ledger;
pub mod mail;
pub mod masking;
pub mod messaging;
pub mod paging;
pub mod premium_collection;
pub mod privacy;
pub mod proposals;
pub mod rate_limit;
pub mod recovery;
pub mod refunds;
pub mod retention;
pub mod sandbox;
pub mod scope;
pub mod signature;
pub mod stamp;
pub mod store;
#[cfg(any(test, feature = "testing"))]
pub mod testing;
pub mod users;
pub mod validation;
pub mod values;
pub mod wire;
