//! Delivering webhooks: the HTTP sender and the address policy that keeps deliveries (and the
//! subscriptions that lead to them) off loopback, private and other non-public networks.

pub mod address_policy;
pub mod sender;

pub use address_policy::AddressPolicy;
pub use sender::{HttpWebhookSender, SenderBuildError, SenderSettings};
