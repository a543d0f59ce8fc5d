//! The HTTP layer alone: actix-web answering a small JSON envelope, with the service's worker
//! count, as the ceiling of the catalog reads (`bench/run.sh`). `BIND_ADDR` and `WORKERS` as the
//! service reads them.

use actix_web::{App, HttpResponse, HttpServer, web};

async fn hello() -> HttpResponse {
    HttpResponse::Ok().json(serde_json::json!({
        "status": "success",
        "message": "Olá.",
        "document": [],
        "rowsAffected": [],
    }))
}

#[actix_web::main]
async fn main() -> std::io::Result<()> {
    let addr = std::env::var("BIND_ADDR").unwrap_or_else(|_| "127.0.0.1:8090".into());
    let workers = std::env::var("WORKERS")
        .ok()
        .and_then(|w| w.parse().ok())
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, usize::from));
    HttpServer::new(|| App::new().route("/hello", web::get().to(hello)))
        .workers(workers)
        .bind(addr)?
        .run()
        .await
}
