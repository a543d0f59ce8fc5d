//! The proposal's unit of work: the transaction every store that moves a proposal or changes a
//! part of its document runs in. It locks the proposal's row, admits the move only when no other
//! operation is pending on it ([`operation_end`]), applies the move with its numbered event and
//! the webhook deliveries it queues ([`status_change`]), makes what the move does to the other
//! tables ([`on_move`]), ends the operation the move was for, and writes the proposal's document
//! (`read_model::write_documents`), all before it commits.
//!
//! It sits at the bottom of the adapter with the read model: every store imports it and it imports
//! no store (`scripts/check-module-cycles.py` keeps it so).

pub(crate) mod change_error;
pub(crate) mod on_move;
pub(crate) mod operation_end;
pub(crate) mod status_change;
