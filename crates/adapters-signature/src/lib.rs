//! The e-signature provider (Clicksign's model over reqwest) and its sandbox, implementing the
//! domain's `SignatureProvider` port. Empty until the signature and lifecycle issue lands.
