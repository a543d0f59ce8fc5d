//! The CPU time the rate limit adds to one request, timed apart from the noise of a whole run
//! (docs/performance.md): one caller's check as the middleware makes it (the limiter and the
//! shared counter's in-memory path) and the two answer fields it formats, a million times, on a
//! database migrated to the counters' table (`DATABASE_URL`, default the local server's
//! `sales_bench`). Prints microseconds per request.

use adapters_postgres::{PgRateCounter, PoolSettings, build_pool};
use domain::clock::SystemClock;
use domain::rate_limit::{RateLimiter, RateSubject, WINDOW_SECS};
use std::hint::black_box;
use std::sync::Arc;
use std::time::Instant;

const CHECKS: u32 = 1_000_000;

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let url =
        std::env::var("DATABASE_URL").unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/sales_bench".to_owned());
    let Ok(pool) = build_pool(&PoolSettings::new(url)) else {
        eprintln!("DATABASE_URL inválida");
        std::process::exit(1);
    };
    let limiter = RateLimiter {
        limit: u64::MAX / 2,
        counter: Arc::new(PgRateCounter::new(pool)),
        clock: Arc::new(SystemClock),
    };
    // The first request of a window reads the shared row; every later one stays in memory.
    limiter.check(RateSubject::User(1)).await;
    let started = Instant::now();
    for _ in 0..CHECKS {
        let decision = limiter.check(black_box(RateSubject::User(1))).await;
        black_box(format!("\"default\";q={};w={WINDOW_SECS}", decision.limit));
        black_box(format!(
            "\"default\";r={};t={}",
            decision.remaining, decision.reset_secs
        ));
    }
    let per_request = started.elapsed().as_secs_f64() * 1e6 / f64::from(CHECKS);
    println!("{per_request:.3}");
}
