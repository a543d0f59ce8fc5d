//! [`SandboxMessenger`] is development's provider (`SALES_ENV=development`): it sends nothing,
//! and reports every message delivered when taken, save to a number ending in `0000`, which it
//! reports failed ("número inexistente"), so that a notice whose delivery is frustrated (Lei
//! 15.040/2024 art. 20 §3) can be tried without an account anywhere. It keeps nothing in memory:
//! a status asked of any instance answers the same. Its times are the service's rules clock
//! (development's shifted clock), as a provider's would be the world's.

use async_trait::async_trait;
use domain::clock::Clock;
use domain::messaging::{MAX_TEXT_CHARS, MessageStatus, MessagingError, Messenger, SentMessage, TextMessage};
use std::sync::Arc;

/// The ending of the numbers the sandbox cannot reach.
pub const SANDBOX_UNREACHABLE_ENDING: &str = "0000";

/// Development's provider: see the crate's documentation.
#[derive(Clone)]
pub struct SandboxMessenger {
    clock: Arc<dyn Clock>,
}

impl SandboxMessenger {
    pub fn new(clock: Arc<dyn Clock>) -> Self {
        Self { clock }
    }

    fn status_of(&self, id: &str) -> MessageStatus {
        let at = self.clock.now();
        if id.starts_with("SBX-F-") {
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
        let unreachable = message.to.as_str().ends_with(SANDBOX_UNREACHABLE_ENDING);
        // The id says what became of it, so that a status asked later needs no memory.
        let id = format!(
            "SBX-{}-{}",
            if unreachable { "F" } else { "D" },
            uuid::Uuid::new_v4().simple()
        );
        tracing::info!(
            channel = message.channel.as_str(),
            to = %message.to.masked(),
            %id,
            "sandbox message taken"
        );
        Ok(SentMessage {
            status: self.status_of(&id),
            id,
        })
    }

    async fn status(&self, id: &str) -> Result<MessageStatus, MessagingError> {
        if !id.starts_with("SBX-") {
            return Err(MessagingError::Refused(format!("mensagem {id} desconhecida")));
        }
        Ok(self.status_of(id))
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
    async fn a_text_longer_than_three_segments_is_refused() {
        let long = "a".repeat(MAX_TEXT_CHARS + 1);
        let refused = sandbox().send(&message("(11) 91234-5678", &long)).await.unwrap_err();
        assert!(matches!(refused, MessagingError::Refused(_)));
        assert!(sandbox().status("SM123").await.is_err());
    }
}
