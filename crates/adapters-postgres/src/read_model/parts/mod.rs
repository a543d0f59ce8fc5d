//! The parts of the proposal's document that other tables than the proposal's own hold: each
//! part's row as the document keeps it (columns by their names, to and from JSON), how it reads
//! into the domain, and the one statement that loads it for many proposals at once (the read
//! model's build pipelines them on one connection). The stores that write those tables read
//! their rows through these types too; nothing here imports a store.

pub(crate) mod acceptance;
pub(crate) mod averbacao;
pub(crate) mod billing;
pub(crate) mod certificate;
pub(crate) mod kyc;
pub(crate) mod ledger;
pub(crate) mod pix;
pub(crate) mod refunds;
pub(crate) mod term;
