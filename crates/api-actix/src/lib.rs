//! The HTTP face of the sales back end: routes, extractors, envelopes, configuration, and the
//! wiring of adapters into use cases. Business rules live in `domain`, never here.

pub mod app;
pub mod cli;
pub mod config;
pub mod http;
pub mod routes;
pub mod security;
pub mod state;
pub mod telemetry;
