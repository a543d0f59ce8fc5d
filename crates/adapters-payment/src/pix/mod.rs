//! Pix Automático at the payee's PSP through the Central Bank's API Pix (release 2.9.0): the
//! client of the domain's `PixPsp` port ([`client`]), how it reaches a PSP ([`transport`]: mutual
//! TLS and OAuth2 client credentials), the sandbox PSP of development ([`sandbox`]), and the
//! specification that judges both ([`schema`]).

pub mod client;
pub mod sandbox;
pub mod schema;
pub mod transport;

pub use client::{PixClient, ReceiverAccount, notified_ids};
pub use sandbox::SandboxPsp;
pub use schema::PixSchema;
pub use transport::{HttpsTransport, PixSettings, PixTransport};
