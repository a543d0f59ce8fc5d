//! The rate limits' counters in memory stay bounded: a flood of callers never seen before keeps at
//! most `RATE_LIMIT_MAX_KEYS` windows (the oldest and the smallest go first, a heavy caller of the
//! current window stays counted), and the memory is given back once the flood is over.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapters_postgres::testing::TestDatabase;
use adapters_postgres::{PgRateCounter, PoolSettings, build_pool};
use domain::rate_limit::{RateCounter, WINDOW_SECS};

#[tokio::test(flavor = "multi_thread")]
async fn a_flood_of_new_callers_keeps_the_map_bounded_and_a_heavy_caller_counted() {
    let db = TestDatabase::new().await;
    let counter = PgRateCounter::new(build_pool(&PoolSettings::new(&db.url)).unwrap()).with_max_keys(1_000);
    let now = chrono::Utc::now().timestamp();
    let window = now - now.rem_euclid(WINDOW_SECS);
    // Last window's callers, then a heavy caller of this one.
    for n in 0..400 {
        counter
            .hit(&format!("a:198.51.100.{n}"), window - WINDOW_SECS)
            .await
            .unwrap();
    }
    for _ in 0..50 {
        counter.hit("u:7", window).await.unwrap();
    }
    // A flood of addresses seen once each.
    for n in 0..5_000 {
        counter.hit(&format!("a:2001:db8:{n:x}::/64"), window).await.unwrap();
        assert!(counter.kept().0 <= 1_000, "at most the bound after {n}");
    }
    assert_eq!(
        counter.hit("u:7", window).await.unwrap(),
        51,
        "the heavy caller is still counted"
    );
    // Once the flood's window is over, the map and its memory shrink with it.
    let (_, flooded_capacity) = counter.kept();
    counter.flush(window + 3 * WINDOW_SECS).await.unwrap();
    let (kept, capacity) = counter.kept();
    assert_eq!(kept, 0);
    assert!(capacity < flooded_capacity, "{capacity} < {flooded_capacity}");
}
