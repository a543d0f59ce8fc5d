//! The payment platform (Stripe's API over reqwest) and its sandbox, implementing the domain's
//! `PaymentGateway` port. Empty until the e-commerce issue lands: the workspace reserves its place.
