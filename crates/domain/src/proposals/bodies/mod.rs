//! The bodies of the proposal's routes as they arrive, and their reading into the requests of
//! `super::model`, by area: the customer and address (routes 3, 5 and 6), the proposal and its
//! payment (routes 5 and 6), the decisions on a proposal (send, status, cancellation,
//! withdrawal) and the paths and queries. The use case reads them with its own clock and rules
//! (`ProposalService`); every bad member is reported at once with its path.

mod customer;
mod decisions;
mod proposal;
mod queries;

pub use customer::*;
pub use decisions::*;
pub use proposal::*;
pub use queries::*;
