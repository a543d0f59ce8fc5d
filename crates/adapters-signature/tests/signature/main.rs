//! The signature adapters (one test binary): Clicksign's API against a double, and the proposal's
//! document as a person reads it (pages, fonts, the evidence page).

mod clicksign;
mod document_pages;
