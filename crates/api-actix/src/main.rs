//! `sales-api`: see `sales-api --help`.

use api_actix::cli::{Cli, run};
use clap::Parser;

#[actix_web::main]
async fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    api_actix::install_crypto_provider();
    let json = std::env::var("LOG_JSON").is_ok_and(|v| v == "true" || v == "1");
    let telemetry = api_actix::telemetry::init(json);
    let code = match run(cli).await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("sales-api: {error}");
            std::process::ExitCode::FAILURE
        }
    };
    telemetry.shutdown();
    code
}
