//! Who last changed a stored record, and when it was made and last changed: one shape for every
//! record that keeps it (a registration, a proposal and its copy of the customer, a partner, a
//! signature, a payment, a product, a billing group).

use chrono::{DateTime, Utc};

/// Who last changed a stored record, and when it was made and last changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChangeStamp {
    pub changed_by: String,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}
