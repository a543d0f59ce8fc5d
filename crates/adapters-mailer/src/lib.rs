//! E-mail for the domain's `MailOutbox` port. Messages are rendered from the templates in
//! `templates/` (plain text and HTML, in Brazilian Portuguese) and sent either by SMTP (lettre,
//! when `SMTP_URL` is set) or, for development, written as `.eml` files under `MAIL_DIR`. Sending
//! happens in the background with a few retries and never reaches the caller.

mod compose;

pub use compose::{ComposeError, Rendered, compose, render};

use domain::mail::{MailError, MailMessage, MailOutbox, MailSender};
use lettre::transport::smtp::AsyncSmtpTransport;
use lettre::{AsyncFileTransport, AsyncTransport, Tokio1Executor};
use observability::metric::{self, Outcome};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

#[derive(Debug, thiserror::Error)]
pub enum MailerError {
    #[error("SMTP_URL inválida: {0}")]
    SmtpUrl(String),
    #[error("MAIL_FROM inválido: {0}")]
    From(String),
    #[error("MAIL_DIR inacessível: {0}")]
    Directory(String),
}

/// Where messages go.
#[derive(Clone)]
pub enum Delivery {
    Smtp(AsyncSmtpTransport<Tokio1Executor>),
    /// Development: one `.eml` file per message.
    Files {
        transport: AsyncFileTransport<Tokio1Executor>,
        directory: PathBuf,
    },
}

impl Delivery {
    /// `smtp://host:port` (STARTTLS when offered... see lettre), `smtps://user:pass@host:465` (TLS),
    /// with `?tls=required` to insist on STARTTLS.
    pub fn smtp(url: &str) -> Result<Self, MailerError> {
        AsyncSmtpTransport::<Tokio1Executor>::from_url(url)
            .map(|builder| Delivery::Smtp(builder.timeout(Some(Duration::from_secs(15))).build()))
            .map_err(|e| MailerError::SmtpUrl(e.to_string()))
    }

    pub fn files(directory: impl Into<PathBuf>) -> Result<Self, MailerError> {
        let directory = directory.into();
        std::fs::create_dir_all(&directory)
            .map_err(|e| MailerError::Directory(format!("{}: {e}", directory.display())))?;
        Ok(Delivery::Files {
            transport: AsyncFileTransport::new(&directory),
            directory,
        })
    }

    async fn send(&self, message: lettre::Message) -> Result<String, String> {
        match self {
            Delivery::Smtp(transport) => {
                let started = std::time::Instant::now();
                let sent = transport.send(message).await;
                let outcome = match &sent {
                    Ok(_) => Outcome::Ok,
                    Err(e) if e.is_timeout() => Outcome::Timeout,
                    Err(e) if e.is_permanent() => Outcome::Rejected,
                    Err(e) if e.is_transient() => Outcome::ServerError,
                    Err(_) => Outcome::Connection,
                };
                metric::outbound_call("smtp", started.elapsed(), outcome);
                sent.map(|_| "smtp".to_owned()).map_err(|e| e.to_string())
            }
            Delivery::Files { transport, directory } => transport
                .send(message)
                .await
                .map(|id| directory.join(format!("{id}.eml")).display().to_string())
                .map_err(|e| e.to_string()),
        }
    }
}

/// The `MailOutbox`: renders at once (a template error is a bug, logged), then delivers on a
/// background task, retrying after 1 s, 5 s and 25 s.
#[derive(Clone)]
pub struct BackgroundMailer {
    delivery: Arc<Delivery>,
    from: lettre::message::Mailbox,
    retry_delays: Vec<Duration>,
}

impl BackgroundMailer {
    pub fn new(delivery: Delivery, from: &str) -> Result<Self, MailerError> {
        let from = from
            .parse()
            .map_err(|e: lettre::address::AddressError| MailerError::From(e.to_string()))?;
        Ok(Self {
            delivery: Arc::new(delivery),
            from,
            retry_delays: vec![Duration::from_secs(1), Duration::from_secs(5), Duration::from_secs(25)],
        })
    }

    /// Shorter waits between attempts (for tests).
    pub fn with_retry_delays(mut self, delays: Vec<Duration>) -> Self {
        self.retry_delays = delays;
        self
    }
}

#[async_trait::async_trait]
impl MailSender for BackgroundMailer {
    async fn send(&self, message: MailMessage) -> Result<(), MailError> {
        let kind = message.kind.name();
        let email = compose(&self.from, &message).map_err(|e| MailError(e.to_string()))?;
        let destination = self.delivery.send(email).await.map_err(MailError)?;
        tracing::info!(kind, destination = %destination, "e-mail delivered");
        Ok(())
    }
}

impl MailOutbox for BackgroundMailer {
    fn enqueue(&self, message: MailMessage) {
        let kind = message.kind.name();
        let email = match compose(&self.from, &message) {
            Ok(email) => email,
            Err(error) => {
                tracing::error!(kind, %error, "e-mail could not be composed");
                return;
            }
        };
        let delivery = self.delivery.clone();
        let delays = self.retry_delays.clone();
        tokio::spawn(async move {
            let mut attempt = 0;
            loop {
                match delivery.send(email.clone()).await {
                    Ok(destination) => {
                        tracing::info!(kind, attempt, destination = %destination, "e-mail delivered");
                        return;
                    }
                    Err(error) if attempt < delays.len() => {
                        tracing::warn!(kind, attempt, %error, "e-mail delivery failed; retrying");
                        tokio::time::sleep(delays[attempt]).await;
                        attempt += 1;
                    }
                    Err(error) => {
                        tracing::error!(kind, attempt, %error, "e-mail delivery failed; giving up");
                        return;
                    }
                }
            }
        });
    }
}
