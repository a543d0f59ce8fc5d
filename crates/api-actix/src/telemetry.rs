//! Logging and tracing with `tracing`: human-readable lines by default, JSON with `LOG_JSON=true`,
//! the level from `RUST_LOG` (default `info`). With `OTEL_EXPORTER_OTLP_ENDPOINT` set, spans are
//! also exported over OTLP (HTTP, protobuf, to `<endpoint>/v1/traces`), each request continuing
//! the caller's W3C trace; without it nothing of OpenTelemetry runs.

use opentelemetry::trace::TracerProvider as _;
use opentelemetry_otlp::{SpanExporter, WithExportConfig};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::trace::SdkTracerProvider;
use std::sync::OnceLock;
use tracing_subscriber::EnvFilter;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

/// The exporter's provider, when traces are exported (flushed by [`Telemetry::shutdown`]).
static EXPORTING: OnceLock<SdkTracerProvider> = OnceLock::new();

/// Whether spans are exported: the request span then takes its ids from the exporter.
pub fn exporting() -> bool {
    EXPORTING.get().is_some()
}

/// What was set up, to be shut down at exit (spans still in the batch are sent).
pub struct Telemetry;

impl Telemetry {
    pub fn shutdown(self) {
        if let Some(provider) = EXPORTING.get() {
            let provider = provider.clone();
            // The exporter's blocking HTTP client must not be used from an async thread.
            let _ = std::thread::spawn(move || provider.shutdown()).join();
        }
    }
}

/// The OTLP endpoint, when set and not blank (an empty variable counts as unset).
fn otlp_endpoint() -> Option<String> {
    std::env::var("OTEL_EXPORTER_OTLP_ENDPOINT")
        .ok()
        .map(|v| v.trim().trim_end_matches('/').to_owned())
        .filter(|v| !v.is_empty())
}

fn service_name() -> String {
    std::env::var("OTEL_SERVICE_NAME")
        .ok()
        .filter(|v| !v.trim().is_empty())
        .unwrap_or_else(|| "sales-api".to_owned())
}

/// The tracer provider exporting to `endpoint`, built on a thread of its own (its blocking HTTP
/// client cannot be created or dropped on an async one).
fn exporter(endpoint: String) -> Result<SdkTracerProvider, String> {
    let name = service_name();
    std::thread::spawn(move || {
        let exporter = SpanExporter::builder()
            .with_http()
            .with_endpoint(format!("{endpoint}/v1/traces"))
            .build()
            .map_err(|e| e.to_string())?;
        Ok(SdkTracerProvider::builder()
            .with_batch_exporter(exporter)
            .with_resource(Resource::builder().with_service_name(name).build())
            .build())
    })
    .join()
    .map_err(|_| "o exportador OTLP falhou ao iniciar".to_owned())?
}

pub fn init(json: bool) -> Telemetry {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    let traces = match otlp_endpoint().map(exporter) {
        Some(Ok(provider)) => {
            let tracer = provider.tracer("sales-api");
            let _ = EXPORTING.set(provider);
            Some(tracing_opentelemetry::layer().with_tracer(tracer))
        }
        Some(Err(error)) => {
            eprintln!("sales-api: OTEL_EXPORTER_OTLP_ENDPOINT: {error}; rastros não serão exportados");
            None
        }
        None => None,
    };
    let plain = (!json).then(|| tracing_subscriber::fmt::layer().with_target(false));
    let structured = json.then(|| {
        tracing_subscriber::fmt::layer()
            .with_target(false)
            .json()
            .flatten_event(true)
    });
    // A second initialisation (tests building several services) is harmless: keep the first.
    let _ = tracing_subscriber::registry()
        .with(filter)
        .with(plain)
        .with(structured)
        .with(traces)
        .try_init();
    Telemetry
}
