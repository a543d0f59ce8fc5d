//! A real SMTP server on loopback (mailin-embedded) that keeps every message it receives.

use mailin_embedded::{Handler, Server, SslConfig, response};
use std::io;
use std::net::TcpListener;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

#[derive(Clone, Default)]
struct Inbox {
    messages: Arc<Mutex<Vec<Received>>>,
    current: Vec<u8>,
    recipients: Vec<String>,
}

/// One message as it arrived: its recipients and its raw RFC 5322 text.
#[derive(Debug, Clone)]
pub struct Received {
    pub to: Vec<String>,
    pub raw: Vec<u8>,
}

impl Received {
    /// The plain-text body, decoded.
    pub fn text(&self) -> String {
        let message = mail_parser::MessageParser::default()
            .parse(&self.raw)
            .expect("a parsable message");
        message.body_text(0).map(|t| t.into_owned()).unwrap_or_default()
    }

    pub fn subject(&self) -> String {
        let message = mail_parser::MessageParser::default()
            .parse(&self.raw)
            .expect("a parsable message");
        message.subject().unwrap_or_default().to_owned()
    }
}

impl Handler for Inbox {
    fn data_start(&mut self, _domain: &str, _from: &str, _is8bit: bool, to: &[String]) -> mailin_embedded::Response {
        self.current.clear();
        self.recipients = to.to_vec();
        response::OK
    }

    fn data(&mut self, buf: &[u8]) -> io::Result<()> {
        self.current.extend_from_slice(buf);
        Ok(())
    }

    fn data_end(&mut self) -> mailin_embedded::Response {
        let received = Received {
            to: std::mem::take(&mut self.recipients),
            raw: std::mem::take(&mut self.current),
        };
        if let Ok(mut messages) = self.messages.lock() {
            messages.push(received);
        }
        response::OK
    }
}

pub struct SmtpSink {
    pub port: u16,
    messages: Arc<Mutex<Vec<Received>>>,
}

impl SmtpSink {
    /// Starts the server on a free loopback port; it lives as long as the test process.
    pub fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a free port");
        let port = listener.local_addr().expect("its address").port();
        let inbox = Inbox::default();
        let messages = inbox.messages.clone();
        let mut server = Server::new(inbox);
        // lettre keeps pooled connections open, each holding one of the server's threads.
        server
            .with_name("localhost")
            .with_num_threads(16)
            .with_tcp_listener(listener);
        server.with_ssl(SslConfig::None).expect("plain SMTP");
        std::thread::spawn(move || {
            // The error type is not Send: report it here, where it happens.
            if let Err(error) = server.serve() {
                eprintln!("servidor SMTP de teste parou: {error}");
            }
        });
        Self { port, messages }
    }

    pub fn url(&self) -> String {
        format!("smtp://127.0.0.1:{}", self.port)
    }

    /// Waits until `count` messages arrived (at most 10 s) and answers all received so far.
    pub async fn wait_for(&self, count: usize) -> Vec<Received> {
        let started = Instant::now();
        loop {
            let messages = self.messages.lock().map(|m| m.clone()).unwrap_or_default();
            if messages.len() >= count || started.elapsed() > Duration::from_secs(10) {
                return messages;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    pub fn received(&self) -> Vec<Received> {
        self.messages.lock().map(|m| m.clone()).unwrap_or_default()
    }
}
