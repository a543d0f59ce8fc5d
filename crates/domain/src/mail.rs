//! Outgoing e-mail: what the use cases ask to be sent, and the port that sends it.

use crate::values::Email;

/// One message to one person; the adapter renders it from its templates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MailMessage {
    pub to: Email,
    pub kind: MailKind,
}

#[derive(Clone, PartialEq, Eq)]
pub enum MailKind {
    /// The link to choose a new password; it carries the recovery token.
    PasswordRecovery { link: String, valid_hours: i64 },
    /// Notice that the password was changed.
    PasswordChanged,
}

impl std::fmt::Debug for MailKind {
    // The recovery link is a credential: never print it.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MailKind::PasswordRecovery { valid_hours, .. } => {
                write!(f, "PasswordRecovery {{ link: ***, valid_hours: {valid_hours} }}")
            }
            MailKind::PasswordChanged => f.write_str("PasswordChanged"),
        }
    }
}

impl MailKind {
    pub fn name(&self) -> &'static str {
        match self {
            MailKind::PasswordRecovery { .. } => "recuperacao_senha",
            MailKind::PasswordChanged => "senha_alterada",
        }
    }
}

/// Sends messages after the caller's work is done, without holding it: the adapter delivers in the
/// background and retries a few times; a failure is logged, never returned (an answer that changed
/// with the mail server's health would reveal who has an account).
#[cfg_attr(feature = "mock", mockall::automock)]
pub trait MailOutbox: Send + Sync {
    fn enqueue(&self, message: MailMessage);
}
