//! The payment platform (Stripe's model) for the domain's `PaymentGateway` port: the sandbox, the
//! default when no platform key is configured, and the verification of the platform's signed
//! events (`Stripe-Signature`).

// The subscription object is one large `json!` literal.
#![recursion_limit = "256"]

pub mod events;
pub mod objects;
pub mod pix;
pub mod price_index;
pub mod sandbox;
pub mod stripe;

pub use price_index::{BcbIpca, SandboxIpca};
pub use sandbox::SandboxGateway;
pub use stripe::{StripeGateway, StripeSettings};
