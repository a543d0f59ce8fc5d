//! Electronic signature: the sandbox implementation of the domain's `SignatureProvider` (the
//! default when no provider is configured), the verification of inbound callbacks, and the PDF of
//! the proposal that the parties sign.

pub mod callback;
pub mod clicksign;
pub mod document;
pub mod sandbox;
pub mod sandbox_pages;
#[cfg(feature = "testing")]
pub mod testing;

pub use clicksign::{ClicksignProvider, ClicksignSettings};
pub use document::PdfRenderer;
pub use sandbox::SandboxProvider;
pub use sandbox_pages::SandboxSigningPages;
