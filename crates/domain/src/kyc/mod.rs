//! Know your customer (issue 70; Circular SUSEP 612/2020 under Lei 9.613/1998 arts. 10 and 11):
//! the lists a sale is screened against and how a person is matched on them.
//!
//! - [`pep_list`]: the CGU's list of politically exposed persons, as the Portal da Transparência
//!   publishes it (read by position, Latin-1 or UTF-8), and its import's port.
//! - [`names`]: the one way a name is compared with a list's (accents, case and spacing aside).
//! - [`cpf_status`]: the CPF's status at the Receita Federal, its provider's port and its cache's.
//! - [`screening`]: a sale's customer screened against both before anything is stored.

pub mod cpf_status;
pub mod names;
pub mod pep_list;
pub mod screening;
