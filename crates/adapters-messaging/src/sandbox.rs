//! [`SandboxMessenger`] is development's provider (`SALES_ENV=development`): it sends nothing,
//! and reports every message delivered when taken, save to a number ending in `0000`, which it
//! reports failed ("número inexistente"), so that a notice whose delivery is frustrated (Lei
//! 15.040/2024 art. 20 §3) can be tried without an account anywhere, and save to a number ending
//! in `1111`, which it takes without a report and reports delivered when next asked (as a
//! carrier's report reaches Twilio later), so that a receipt learned after the sending can be
//! tried too. It keeps nothing in memory:
//! a status asked of any instance answers the same. Its times are the service's rules clock
//! (development's shifted clock), as a provider's would be the world's.

use async_trait::async_trait;
use domain::clock::Clock;
use domain::messaging::{MAX_TEXT_CHARS, MessageStatus, MessagingError, Messenger, SentMessage, TextMessage};
use std::sync::Arc;

/// The ending of the numbers the sandbox cannot reach.
pub const SANDBOX_UNREACHABLE_ENDING: &str = "0000";
/// The ending of the numbers whose delivery the sandbox reports only when asked after sending.
pub const SANDBOX_LATER_REPORT_ENDING: &str = "1111";

/// Development's provider: see the crate's documentation.
#[derive(Clone)]
pub struct SandboxMessenger {
    clock: Arc<dyn Clock>,
}

impl SandboxMessenger {
    pub fn new(clock: Arc<dyn Clock>) -> Self {
        Self { clock }
    }

    /// The status of message `id`: when `asked`, a later report is known.
    fn status_of(&self, id: &str, asked: bool) -> MessageStatus {
        let at = self.clock.now();
        if id.starts_with("SBX-L-") && !asked {
            MessageStatus::Accepted
        } else if id.starts_with("SBX-F-") {
            MessageStatus::Failed {
                at,
                reason: "número inexistente (sandbox)".to_owned(),
            }
        } else {
            MessageStatus::Delivered { at }
        }
    }
}

#[async_trait]
impl Messenger for SandboxMessenger {
    async fn send(&self, message: &TextMessage) -> Result<SentMessage, MessagingError> {
        if message.text.chars().count() > MAX_TEXT_CHARS {
            return Err(MessagingError::Refused(format!(
                "texto com mais de {MAX_TEXT_CHARS} caracteres"
            )));
        }
        let to = message.to.as_str();
        let fate = if to.ends_with(SANDBOX_UNREACHABLE_ENDING) {
            "F"
        } else if to.ends_with(SANDBOX_LATER_REPORT_ENDING) {
            "L"
        } else {
            "D"
        };
        // The id says what became of it, so that a status asked later needs no memory.
        let id = format!("SBX-{fate}-{}", uuid::Uuid::new_v4().simple());
        tracing::info!(
            channel = message.channel.as_str(),
            to = %message.to.masked(),
            %id,
            "sandbox message taken"
        );
        Ok(SentMessage {
            status: self.status_of(&id, false),
            id,
        })
    }

    async fn status(&self, id: &str) -> Result<MessageStatus, MessagingError> {
        if !id.starts_with("SBX-") {
            return Err(MessagingError::Refused(format!("mensagem {id} desconhecida")));
        }
        Ok(self.status_of(id, true))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use domain::clock::SystemClock;
    use domain::messaging::MessageChannel;
    use domain::values::CellPhone;

    fn sandbox() -> SandboxMessenger {
        SandboxMessenger::new(Arc::new(SystemClock))
    }

    fn message(phone: &str, text: &str) -> TextMessage {
        TextMessage {
            to: CellPhone::parse(phone).unwrap(),
            channel: MessageChannel::Sms,
            text: text.to_owned(),
        }
    }

    #[tokio::test]
    async fn the_sandbox_delivers_at_once_and_answers_the_same_status_later() {
        let sent = sandbox().send(&message("(11) 91234-5678", "Aviso")).await.unwrap();
        assert!(matches!(sent.status, MessageStatus::Delivered { .. }), "{sent:?}");
        let later = sandbox().status(&sent.id).await.unwrap();
        assert!(matches!(later, MessageStatus::Delivered { .. }), "{later:?}");
    }

    #[tokio::test]
    async fn a_number_ending_in_0000_is_reported_unreachable() {
        let sent = sandbox().send(&message("(11) 91234-0000", "Aviso")).await.unwrap();
        assert!(
            matches!(&sent.status, MessageStatus::Failed { reason, .. } if reason.contains("inexistente")),
            "{sent:?}"
        );
    }

    #[tokio::test]
    async fn a_number_ending_in_1111_is_taken_without_a_report_and_delivered_when_asked_later() {
        let sent = sandbox().send(&message("(11) 91234-1111", "Aviso")).await.unwrap();
        assert_eq!(sent.status, MessageStatus::Accepted, "{sent:?}");
        let later = sandbox().status(&sent.id).await.unwrap();
        assert!(matches!(later, MessageStatus::Delivered { .. }), "{later:?}");
    }

    #[tokio::test]
    async fn a_text_longer_than_three_segments_is_refused() {
        let long = "a".repeat(MAX_TEXT_CHARS + 1);
        let refused = sandbox().send(&message("(11) 91234-5678", &long)).await.unwrap_err();
        assert!(matches!(refused, MessagingError::Refused(_)));
        assert!(sandbox().status("SM123").await.is_err());
    }
}
