//! Logging with `tracing`: human-readable by default, JSON with `LOG_JSON=true`; the level from
//! `RUST_LOG` (default `info`).

use tracing_subscriber::EnvFilter;

pub fn init(json: bool) {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt().with_env_filter(filter).with_target(false);
    // A second initialisation (tests building several services) is harmless: keep the first.
    let _ = if json {
        builder.json().flatten_event(true).try_init()
    } else {
        builder.try_init()
    };
}
