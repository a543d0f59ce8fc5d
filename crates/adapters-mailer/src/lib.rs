//! E-mail delivery (SMTP with lettre) and the development mailer that writes `.eml` files,
//! implementing the domain's `Mailer` port. Empty until the recovery issue lands.
