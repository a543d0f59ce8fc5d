//! Twilio's Messages API (`/2010-04-01/Accounts/{AccountSid}/Messages.json`): a message created
//! with `To`, `From` and `Body` (form-encoded, HTTP basic auth with the account's SID and token;
//! a WhatsApp message's numbers prefixed `whatsapp:`), its delivery read back by fetching it
//! (`delivered` or `read`: delivered; `undelivered`, `failed` or `canceled`: failed, with Twilio's
//! error code; anything else: not known yet).

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use domain::messaging::{MessageChannel, MessageStatus, MessagingError, Messenger, SentMessage, TextMessage};
use observability::metric::{self, Outcome};
use serde::Deserialize;
use std::time::{Duration, Instant};

/// Where and as whom the service sends.
#[derive(Clone)]
pub struct TwilioSettings {
    /// `https://api.twilio.com` (a test server in tests).
    pub base_url: String,
    pub account_sid: String,
    pub auth_token: String,
    /// The sender: a Twilio number in E.164 (`+5511…`), or a WhatsApp sender.
    pub from: String,
    pub timeout: Duration,
}

impl std::fmt::Debug for TwilioSettings {
    // The token is a credential: never printed.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TwilioSettings")
            .field("base_url", &self.base_url)
            .field("account_sid", &self.account_sid)
            .field("auth_token", &"***")
            .field("from", &self.from)
            .finish()
    }
}

#[derive(Debug, Clone)]
pub struct TwilioMessenger {
    settings: TwilioSettings,
    http: reqwest::Client,
}

impl TwilioMessenger {
    pub fn new(settings: TwilioSettings) -> Result<Self, MessagingError> {
        let http = reqwest::Client::builder()
            .timeout(settings.timeout)
            .build()
            .map_err(|e| MessagingError::Unavailable(e.to_string()))?;
        Ok(Self { settings, http })
    }

    fn messages_url(&self) -> String {
        format!(
            "{}/2010-04-01/Accounts/{}/Messages",
            self.settings.base_url.trim_end_matches('/'),
            self.settings.account_sid
        )
    }

    async fn call(&self, request: reqwest::RequestBuilder) -> Result<TwilioMessage, MessagingError> {
        let started = Instant::now();
        let answer = request
            .basic_auth(&self.settings.account_sid, Some(&self.settings.auth_token))
            .send()
            .await;
        let (outcome, result) = match answer {
            Err(e) if e.is_timeout() => (Outcome::Timeout, Err(MessagingError::Unavailable(e.to_string()))),
            Err(e) => (Outcome::Connection, Err(MessagingError::Unavailable(e.to_string()))),
            Ok(response) => {
                let status = response.status();
                let body = response.text().await.unwrap_or_default();
                if status.is_success() {
                    match serde_json::from_str::<TwilioMessage>(&body) {
                        Ok(message) => (Outcome::Ok, Ok(message)),
                        Err(e) => (
                            Outcome::Rejected,
                            Err(MessagingError::Unavailable(format!("resposta ilegível do Twilio: {e}"))),
                        ),
                    }
                } else {
                    let why = serde_json::from_str::<TwilioError>(&body)
                        .map(|e| format!("{} {}", e.code.map(|c| c.to_string()).unwrap_or_default(), e.message))
                        .unwrap_or_else(|_| format!("HTTP {status}"));
                    let why = why.trim().to_owned();
                    match status.as_u16() {
                        // The message itself refused (an invalid or unreachable number): sending it
                        // again changes nothing.
                        400 | 404 => (Outcome::Rejected, Err(MessagingError::Refused(why))),
                        429 => (Outcome::RateLimited, Err(MessagingError::Unavailable(why))),
                        500..=599 => (Outcome::ServerError, Err(MessagingError::Unavailable(why))),
                        _ => (Outcome::Rejected, Err(MessagingError::Unavailable(why))),
                    }
                }
            }
        };
        metric::outbound_call("twilio", started.elapsed(), outcome);
        result
    }
}

/// The part of Twilio's Message resource the service reads.
#[derive(Debug, Deserialize)]
struct TwilioMessage {
    sid: String,
    status: String,
    error_code: Option<i64>,
    error_message: Option<String>,
    /// RFC 2822 (`Tue, 03 Nov 2026 12:00:00 +0000`): when its status last changed.
    date_updated: Option<String>,
}

#[derive(Debug, Deserialize)]
struct TwilioError {
    code: Option<i64>,
    message: String,
}

impl TwilioMessage {
    fn status(&self) -> MessageStatus {
        let at = self
            .date_updated
            .as_deref()
            .and_then(|d| DateTime::parse_from_rfc2822(d).ok())
            .map_or_else(Utc::now, |d| d.with_timezone(&Utc));
        match self.status.as_str() {
            "delivered" | "read" => MessageStatus::Delivered { at },
            "undelivered" | "failed" | "canceled" => MessageStatus::Failed {
                at,
                reason: format!(
                    "{} {}",
                    self.error_code
                        .map(|c| c.to_string())
                        .unwrap_or_else(|| self.status.clone()),
                    self.error_message.clone().unwrap_or_default()
                )
                .trim()
                .to_owned(),
            },
            _ => MessageStatus::Accepted,
        }
    }
}

/// A number as Twilio's channel wants it: E.164, `whatsapp:` before it for WhatsApp.
fn address(channel: MessageChannel, e164: &str) -> String {
    match channel {
        MessageChannel::Sms => e164.to_owned(),
        MessageChannel::WhatsApp => format!("whatsapp:{e164}"),
    }
}

#[async_trait]
impl Messenger for TwilioMessenger {
    async fn send(&self, message: &TextMessage) -> Result<SentMessage, MessagingError> {
        let to = address(message.channel, &format!("+55{}", message.to.as_str()));
        let from = address(message.channel, &self.settings.from);
        let form = [
            ("To", to.as_str()),
            ("From", from.as_str()),
            ("Body", message.text.as_str()),
        ];
        let created = self
            .call(self.http.post(format!("{}.json", self.messages_url())).form(&form))
            .await?;
        tracing::info!(
            channel = message.channel.as_str(),
            to = %message.to.masked(),
            sid = %created.sid,
            status = %created.status,
            "text message taken by Twilio"
        );
        Ok(SentMessage {
            status: created.status(),
            id: created.sid,
        })
    }

    async fn status(&self, id: &str) -> Result<MessageStatus, MessagingError> {
        // A Message SID is `SM` or `MM` and 32 hex digits: nothing else goes into the path.
        if !id.chars().all(|c| c.is_ascii_alphanumeric()) || id.len() > 64 {
            return Err(MessagingError::Refused(format!("id de mensagem inválido: {id}")));
        }
        let fetched = self
            .call(self.http.get(format!("{}/{id}.json", self.messages_url())))
            .await?;
        Ok(fetched.status())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use domain::values::CellPhone;
    use wiremock::matchers::{basic_auth, body_string_contains, method, path};
    use wiremock::{Mock, MockServer, ResponseTemplate};

    const SID: &str = "SM0123456789abcdef0123456789abcdef";

    fn messenger(server: &MockServer) -> TwilioMessenger {
        TwilioMessenger::new(TwilioSettings {
            base_url: server.uri(),
            account_sid: "AC123".into(),
            auth_token: "token".into(),
            from: "+5511900000000".into(),
            timeout: Duration::from_secs(5),
        })
        .unwrap()
    }

    fn sms(text: &str) -> TextMessage {
        TextMessage {
            to: CellPhone::parse("(11) 91234-5678").unwrap(),
            channel: MessageChannel::Sms,
            text: text.into(),
        }
    }

    #[tokio::test]
    async fn a_message_is_created_with_the_numbers_in_e164_and_its_delivery_read_back() {
        let server = MockServer::start().await;
        Mock::given(method("POST"))
            .and(path("/2010-04-01/Accounts/AC123/Messages.json"))
            .and(basic_auth("AC123", "token"))
            .and(body_string_contains("To=%2B5511912345678"))
            .and(body_string_contains("From=%2B5511900000000"))
            .and(body_string_contains("Body=Aviso+de+atraso"))
            .respond_with(ResponseTemplate::new(201).set_body_json(serde_json::json!({
                "sid": SID, "status": "queued", "error_code": null, "error_message": null,
                "date_updated": "Sun, 06 Dec 2026 12:00:00 +0000"
            })))
            .expect(1)
            .mount(&server)
            .await;
        Mock::given(method("GET"))
            .and(path(format!("/2010-04-01/Accounts/AC123/Messages/{SID}.json")))
            .respond_with(ResponseTemplate::new(200).set_body_json(serde_json::json!({
                "sid": SID, "status": "delivered", "error_code": null, "error_message": null,
                "date_updated": "Sun, 06 Dec 2026 12:00:07 +0000"
            })))
            .mount(&server)
            .await;
        let twilio = messenger(&server);
        let sent = twilio.send(&sms("Aviso de atraso")).await.unwrap();
        assert_eq!((sent.id.as_str(), &sent.status), (SID, &MessageStatus::Accepted));
        assert_eq!(
            twilio.status(SID).await.unwrap(),
            MessageStatus::Delivered {
                at: "2026-12-06T12:00:07Z".parse().unwrap()
            }
        );
    }

    #[tokio::test]
    async fn an_undelivered_message_is_failed_with_twilios_error_and_a_whatsapp_goes_to_its_address() {
        let server = MockServer::start().await;
        Mock::given(method("POST"))
            .and(body_string_contains("To=whatsapp%3A%2B5511912345678"))
            .and(body_string_contains("From=whatsapp%3A%2B5511900000000"))
            .respond_with(ResponseTemplate::new(201).set_body_json(serde_json::json!({
                "sid": SID, "status": "undelivered", "error_code": 30003,
                "error_message": "Unreachable destination handset",
                "date_updated": "Sun, 06 Dec 2026 12:00:00 +0000"
            })))
            .mount(&server)
            .await;
        let message = TextMessage {
            channel: MessageChannel::WhatsApp,
            ..sms("Aviso")
        };
        let sent = messenger(&server).send(&message).await.unwrap();
        assert_eq!(
            sent.status,
            MessageStatus::Failed {
                at: "2026-12-06T12:00:00Z".parse().unwrap(),
                reason: "30003 Unreachable destination handset".into()
            }
        );
    }

    #[tokio::test]
    async fn a_refused_number_is_refused_and_a_server_error_is_worth_a_retry() {
        let server = MockServer::start().await;
        Mock::given(method("POST"))
            .respond_with(ResponseTemplate::new(400).set_body_json(serde_json::json!({
                "code": 21211, "message": "The 'To' number is not a valid phone number.", "status": 400
            })))
            .up_to_n_times(1)
            .mount(&server)
            .await;
        Mock::given(method("POST"))
            .respond_with(ResponseTemplate::new(503))
            .mount(&server)
            .await;
        let twilio = messenger(&server);
        assert_eq!(
            twilio.send(&sms("Aviso")).await.unwrap_err(),
            MessagingError::Refused("21211 The 'To' number is not a valid phone number.".into())
        );
        assert!(matches!(
            twilio.send(&sms("Aviso")).await.unwrap_err(),
            MessagingError::Unavailable(_)
        ));
        assert!(matches!(
            twilio.status("../../Calls").await.unwrap_err(),
            MessagingError::Refused(_)
        ));
    }
}
