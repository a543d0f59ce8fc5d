//! Text messages to a customer's mobile phone (SMS or WhatsApp), and the port that sends them:
//! each message has the provider's id and a delivery status the provider reports (its delivery
//! receipt), which is what a notice whose receipt must be proven keeps (Lei 15.040/2024 art. 20
//! §2, issue 67).

use crate::values::CellPhone;
use async_trait::async_trait;
use chrono::{DateTime, Utc};

/// The longest text one message carries: what three concatenated SMS segments hold (153 GSM
/// characters each), so that no provider cuts a notice's warnings.
pub const MAX_TEXT_CHARS: usize = 459;

/// Which channel carries a text message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MessageChannel {
    Sms,
    WhatsApp,
}

impl MessageChannel {
    /// As stored and shown.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Sms => "sms",
            Self::WhatsApp => "whatsapp",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        [Self::Sms, Self::WhatsApp].into_iter().find(|c| c.as_str() == text)
    }
}

/// One message to one phone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextMessage {
    pub to: CellPhone,
    pub channel: MessageChannel,
    /// At most [`MAX_TEXT_CHARS`].
    pub text: String,
}

/// What the provider says of a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MessageStatus {
    /// Taken, its delivery not reported yet.
    Accepted,
    /// The handset (or WhatsApp) reported it delivered.
    Delivered { at: DateTime<Utc> },
    /// It could not be delivered (no such number, switched off past the provider's validity).
    Failed { at: DateTime<Utc>, reason: String },
}

/// A message the provider took: its id there and what it says of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SentMessage {
    pub id: String,
    pub status: MessageStatus,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MessagingError {
    /// The provider refused the message itself (a number it does not serve, a text too long):
    /// sending it again changes nothing.
    #[error("mensagem recusada pelo provedor: {0}")]
    Refused(String),
    /// The provider could not be reached or answered with an error: worth trying again.
    #[error("provedor de mensagens indisponível: {0}")]
    Unavailable(String),
}

#[cfg_attr(feature = "mock", mockall::automock)]
#[async_trait]
pub trait Messenger: Send + Sync {
    /// Sends one message; answers once the provider took it, with what it knows of it already.
    async fn send(&self, message: &TextMessage) -> Result<SentMessage, MessagingError>;

    /// What the provider says now of a message it took.
    async fn status(&self, id: &str) -> Result<MessageStatus, MessagingError>;
}
