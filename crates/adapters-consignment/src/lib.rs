//! The consignment platform for the domain's `ConsignmentPlatform` port (issue 67: a payroll
//! discount is registered, its averbação, before any payroll is asked to discount it).
//!
//! No public standard reaches the platforms (Zetra eConsig, Neoconsig, the INSS's own each
//! contract their interface with the insurer), so production has no adapter of its own yet: the
//! back office registers each discount at the employer's platform and records its answer
//! (`sales-api averbacao registrar`, decision 268). Development runs [`SandboxConsignment`].

mod sandbox;

pub use sandbox::{SANDBOX_PENDING_DAYS, SANDBOX_PENDING_ENDING, SANDBOX_REFUSED_ENDING, SandboxConsignment};
