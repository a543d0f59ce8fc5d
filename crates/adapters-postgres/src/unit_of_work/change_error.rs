//! Why a proposal's transaction stopped.

use crate::pool::query_error;
use diesel::result::Error as DieselError;
use domain::proposals::operations::OperationKind;
use domain::signature::ChangeStatusError;
use domain::values::ProposalStatus;

/// Errors inside a status-change transaction: diesel's, the proposal not being where expected,
/// another operation pending on it, or the operation the move was to end already ended.
pub(crate) enum ChangeError {
    Db(DieselError),
    Conflict(ProposalStatus),
    Busy(OperationKind),
    OperationEnded,
}

impl From<DieselError> for ChangeError {
    fn from(e: DieselError) -> Self {
        ChangeError::Db(e)
    }
}

impl From<ChangeError> for ChangeStatusError {
    fn from(e: ChangeError) -> Self {
        match e {
            ChangeError::Conflict(current) => ChangeStatusError::Conflict { current },
            ChangeError::Busy(kind) => ChangeStatusError::Busy { kind },
            ChangeError::OperationEnded => ChangeStatusError::OperationEnded,
            ChangeError::Db(e) => ChangeStatusError::Store(query_error(e)),
        }
    }
}
