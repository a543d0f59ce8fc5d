//! Drives status changes through the same store port the service uses and receives their webhooks
//! on loopback, timing each from the acknowledgement of its commit to its arrival (an arrival
//! before the acknowledgement counts as zero).
//!
//! Environment: `DATABASE_URL` (seeded with proposals in `NOVO`), `HOOKS_ENCRYPTION_KEY_BYTE` (the
//! byte repeated 32 times that the service's `HOOKS_ENCRYPTION_KEY` encodes), `BENCH_RATE`
//! (changes per second of the fixed-rate phase), `BENCH_SECONDS`, `BENCH_SATURATION` (changes of
//! the saturation phase), `BENCH_BACKLOG` (deliveries queued due at one instant, drained by the
//! engine alone). Prints one markdown table; for the backlog, latency counts from the due instant.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use actix_web::{App, HttpResponse, HttpServer, web};
use adapters_postgres::{PgHooks, PgSignatures, PoolSettings, build_pool};
use chrono::Utc;
use diesel_async::RunQueryDsl;
use domain::hooks::ports::HookStore;
use domain::hooks::{HookOwner, NewSubscription, SigningSecret};
use domain::proposals::lifecycle::StatusChange;
use domain::signature::SignatureStore;
use domain::values::{EventKind, HookStatus, ProposalStatus};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Arrival instant of each proposal's event, and how many arrived in all (repeats included).
#[derive(Default)]
struct Arrivals {
    at: HashMap<String, Instant>,
    total: usize,
}

async fn receive(arrivals: web::Data<Mutex<Arrivals>>, body: web::Bytes) -> HttpResponse {
    let now = Instant::now();
    let identifier = serde_json::from_slice::<serde_json::Value>(&body)
        .ok()
        .and_then(|v| v["data"]["identificador"].as_str().map(str::to_owned));
    if let Some(identifier) = identifier {
        let mut arrivals = arrivals.lock().unwrap();
        arrivals.total += 1;
        arrivals.at.entry(identifier).or_insert(now);
    }
    HttpResponse::NoContent().finish()
}

#[derive(diesel::QueryableByName)]
struct Proposal {
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    id: i64,
    #[diesel(sql_type = diesel::sql_types::Text)]
    identificador: String,
}

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let rank = ((p / 100.0) * (sorted.len() as f64)).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

struct Driver {
    store: Arc<PgSignatures>,
    arrivals: Arc<web::Data<Mutex<Arrivals>>>,
}

impl Driver {
    /// Cancels one proposal; answers when the commit was acknowledged.
    async fn change(store: &PgSignatures, id: i64) -> Instant {
        store
            .change_status(&StatusChange {
                proposal_id: id,
                from: ProposalStatus::New,
                to: ProposalStatus::Cancelled,
                changed_by: "bench".into(),
                reason: None,
                reason_category: None,
                at: Utc::now(),
                operation: None,
            })
            .await
            .expect("status change");
        Instant::now()
    }

    /// Waits until every identifier has arrived (or 60 s pass); answers the latencies and the
    /// instant of the last arrival.
    async fn collect(&self, started: &HashMap<String, Instant>) -> (Vec<Duration>, Option<Instant>, usize) {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let done = {
                let arrivals = self.arrivals.lock().unwrap();
                started.keys().all(|k| arrivals.at.contains_key(k))
            };
            if done || Instant::now() > deadline {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let arrivals = self.arrivals.lock().unwrap();
        let mut latencies = Vec::new();
        let mut last = None;
        let mut missing = 0;
        for (identifier, start) in started {
            match arrivals.at.get(identifier) {
                Some(at) => {
                    latencies.push(at.saturating_duration_since(*start));
                    last = Some(last.map_or(*at, |l: Instant| l.max(*at)));
                }
                None => missing += 1,
            }
        }
        latencies.sort();
        (latencies, last, missing)
    }
}

#[actix_web::main]
async fn main() {
    let url = std::env::var("DATABASE_URL").expect("DATABASE_URL");
    let key_byte = u8::try_from(env_number("HOOKS_ENCRYPTION_KEY_BYTE", 7)).unwrap();
    let rate = env_number("BENCH_RATE", 400);
    let seconds = env_number("BENCH_SECONDS", 10);
    let saturation = usize::try_from(env_number("BENCH_SATURATION", 10_000)).unwrap();
    let backlog = env_number("BENCH_BACKLOG", 10_000);

    let arrivals = web::Data::new(Mutex::new(Arrivals::default()));
    let shared = arrivals.clone();
    let server = HttpServer::new(move || {
        App::new()
            .app_data(shared.clone())
            .app_data(web::PayloadConfig::new(1 << 20))
            .route("/eventos", web::post().to(receive))
    })
    .workers(1)
    .bind("127.0.0.1:0")
    .unwrap();
    let port = server.addrs()[0].port();
    let server = server.run();
    let handle = server.handle();
    tokio::spawn(server);

    let pool = build_pool(&PoolSettings {
        max_size: 16,
        ..PoolSettings::new(&url)
    })
    .unwrap();
    let subscription = PgHooks::new(
        pool.clone(),
        &adapters_postgres::SealingKeys {
            current: [key_byte; 32],
            previous: vec![],
        },
    )
    .create(
        &NewSubscription {
            contract_version: "2026-11-29".into(),
            uuid: uuid::Uuid::new_v4(),
            owner: HookOwner::BackOffice,
            created_by: "bench".into(),
            endpoint: format!("http://127.0.0.1:{port}/eventos"),
            events: vec![EventKind::StatusChange],
            status: HookStatus::Active,
            secret: SigningSecret::from_key([1; 32]),
            at: Utc::now(),
        },
        1,
    )
    .await
    .unwrap()
    .expect("a fresh database keeps no subscription");
    let needed = usize::try_from(rate * seconds).unwrap() + saturation;
    let mut conn = pool.get().await.unwrap();
    let proposals: Vec<Proposal> = diesel::sql_query(format!(
        "SELECT id, identificador FROM proposals WHERE status = 'NOVO' ORDER BY random() LIMIT {needed}"
    ))
    .load(&mut conn)
    .await
    .unwrap();
    drop(conn);
    assert!(proposals.len() >= needed, "only {} proposals in NOVO", proposals.len());
    let (steady, burst) = proposals.split_at(needed - saturation);
    let driver = Driver {
        store: Arc::new(PgSignatures::new(pool.clone())),
        arrivals: Arc::new(arrivals),
    };

    // Phase 1: a fixed rate, each change on its own task so a slow one never delays the next.
    let mut ticker = tokio::time::interval(Duration::from_secs_f64(1.0 / rate as f64));
    ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Burst);
    let mut tasks = Vec::new();
    for p in steady {
        ticker.tick().await;
        let store = driver.store.clone();
        let (id, identifier) = (p.id, p.identificador.clone());
        tasks.push(tokio::spawn(
            async move { (identifier, Driver::change(&store, id).await) },
        ));
    }
    let mut started = HashMap::new();
    for task in tasks {
        let (identifier, at) = task.await.unwrap();
        started.insert(identifier, at);
    }
    let (steady_latencies, _, steady_missing) = driver.collect(&started).await;

    // Phase 2: saturation, 16 committers as fast as they go.
    let begin = Instant::now();
    let chunks: Vec<Vec<(i64, String)>> = burst
        .chunks(burst.len().div_ceil(16))
        .map(|c| c.iter().map(|p| (p.id, p.identificador.clone())).collect())
        .collect();
    let mut tasks = Vec::new();
    for chunk in chunks {
        let store = driver.store.clone();
        tasks.push(tokio::spawn(async move {
            let mut started = Vec::new();
            for (id, identifier) in chunk {
                started.push((identifier, Driver::change(&store, id).await));
            }
            started
        }));
    }
    let mut burst_started = HashMap::new();
    for task in tasks {
        burst_started.extend(task.await.unwrap());
    }
    let committed_in = begin.elapsed();
    let (burst_latencies, last, burst_missing) = driver.collect(&burst_started).await;
    let delivered_in = last.map_or(Duration::ZERO, |l| l.saturating_duration_since(begin));
    let per_second = burst_latencies.len() as f64 / delivered_in.as_secs_f64().max(f64::EPSILON);
    // Phase 3: the engine alone. A backlog of deliveries, all due at one instant (queued straight
    // into the outbox, as a burst of committed changes would leave it), drained at full speed.
    let due_in = Duration::from_secs(2);
    let mut conn = pool.get().await.unwrap();
    diesel::sql_query(format!(
        "INSERT INTO hook_deliveries (subscription_id, message_id, event_type, body, next_attempt_at)
         SELECT {}, 'msg_backlog_' || i, 'ALTERAÇÃO_STATUS',
                json_build_object('type', 'ALTERAÇÃO_STATUS', 'data', json_build_object('identificador', 'backlog-' || i))::text,
                now() + interval '{} milliseconds'
         FROM generate_series(1, {backlog}) AS i",
        subscription.id,
        due_in.as_millis()
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    let due_at = Instant::now() + due_in;
    drop(conn);
    let backlog_started: HashMap<String, Instant> = (1..=backlog).map(|i| (format!("backlog-{i}"), due_at)).collect();
    let (backlog_latencies, last, backlog_missing) = driver.collect(&backlog_started).await;
    let drained_in = last.map_or(Duration::ZERO, |l| l.saturating_duration_since(due_at));
    let drain_per_second = backlog_latencies.len() as f64 / drained_in.as_secs_f64().max(f64::EPSILON);

    let total = driver.arrivals.lock().unwrap().total;
    let distinct = driver.arrivals.lock().unwrap().at.len();

    println!("| phase | events | p50 commit→receipt | p99 commit→receipt | max | deliveries/s | lost |");
    println!("|---|---|---|---|---|---|---|");
    println!(
        "| {rate}/s for {seconds} s | {} | {} | {} | {} | — | {steady_missing} |",
        started.len(),
        ms(percentile(&steady_latencies, 50.0)),
        ms(percentile(&steady_latencies, 99.0)),
        ms(steady_latencies.last().copied().unwrap_or_default()),
    );
    println!(
        "| saturation ({} commits in {:.1} s) | {} | {} | {} | {} | {per_second:.0} | {burst_missing} |",
        burst_started.len(),
        committed_in.as_secs_f64(),
        burst_started.len(),
        ms(percentile(&burst_latencies, 50.0)),
        ms(percentile(&burst_latencies, 99.0)),
        ms(burst_latencies.last().copied().unwrap_or_default()),
    );
    println!(
        "| backlog of {backlog} due at once (engine alone) | {backlog} | {} | {} | {} | {drain_per_second:.0} | {backlog_missing} |",
        ms(percentile(&backlog_latencies, 50.0)),
        ms(percentile(&backlog_latencies, 99.0)),
        ms(backlog_latencies.last().copied().unwrap_or_default()),
    );
    println!();
    println!(
        "Requests received: {total} for {distinct} events (repeats: {}). Subscription {}.",
        total - distinct,
        subscription.uuid
    );
    handle.stop(true).await;
}
