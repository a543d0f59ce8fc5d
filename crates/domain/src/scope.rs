//! Whose data a caller may see, as the stores' queries take it. Worked out from the caller by
//! `access::scope_of`.

/// Whose proposals and customers a caller may see.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// A representative: its partner's own proposals (route 5's flow) only. A shop's sale credited
    /// to the partner (route 6's `partnerId`) is attribution, not access: it stays the shop's.
    Partner { partner_id: i64, representative_id: i64 },
    /// The online shop: e-commerce proposals only.
    Ecommerce,
    /// The back office: all.
    Everything,
}
