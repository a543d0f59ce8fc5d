//! The HTTP face of the sales back end: routes, extractors, envelopes, configuration, and the
//! wiring of adapters into use cases. Business rules live in `domain`, never here.

pub mod app;
pub mod cli;
pub mod config;
pub mod console;
#[cfg(test)]
mod decisions_index_tests;
pub mod deployment;
pub mod http;
pub mod jobs;
mod lifecycle;
pub mod person_pages;
pub mod routes;
pub mod scrape;
pub mod security;
pub mod services;
pub mod state;
pub mod stores;
pub mod telemetry;

/// TLS clients (SMTP, the signature provider) use rustls with *ring*; chosen once for the process so
/// that it never depends on which crypto features the build happened to enable.
pub fn install_crypto_provider() {
    // An error only means a provider is installed already.
    let _ = rustls::crypto::ring::default_provider().install_default();
}
