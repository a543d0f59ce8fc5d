//! Adapters meeting each other without the service between them: a test of one adapter that needs
//! another's real implementation lives here, so that no adapter crate depends on another.

mod pix_sandbox_in_postgres;
