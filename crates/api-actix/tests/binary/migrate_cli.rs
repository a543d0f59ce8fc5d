//! Several `sales-api migrate` started together on a database that does not exist yet (replicas
//! starting at once, or a deploy job run twice): one creates the database, one applies the
//! migrations under the advisory lock while the others wait, and every one succeeds.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapters_postgres::testing::{DEFAULT_ADMIN_URL, with_database};
use std::process::{Command, Stdio};

fn migrate(url: &str) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_sales-api"))
        .args(["migrate", "--create-database"])
        .env_clear()
        .env("SALES_ENV", "development")
        .env("DATABASE_URL", url)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

async fn admin_sql(admin: &str, sql: &str) {
    use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
    let mut conn = AsyncPgConnection::establish(admin).await.unwrap();
    diesel::sql_query(sql).execute(&mut conn).await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn three_concurrent_migrates_on_a_new_database_all_succeed() {
    let admin = std::env::var("TEST_DATABASE_URL").unwrap_or_else(|_| DEFAULT_ADMIN_URL.to_owned());
    let name = format!("sales_migrate_{}_{}", std::process::id(), uuid_suffix());
    let url = with_database(&admin, &name);

    let runs: Vec<_> = (0..3).map(|_| migrate(&url)).collect();
    let outputs: Vec<_> = runs.into_iter().map(|run| run.wait_with_output().unwrap()).collect();
    for output in &outputs {
        let said = format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        assert!(output.status.success(), "a concurrent migrate failed: {said}");
    }
    // The schema is whole: the demo seed writes into every part of it.
    let seeded = Command::new(env!("CARGO_BIN_EXE_sales-api"))
        .args(["seed", "demo"])
        .env_clear()
        .env("SALES_ENV", "development")
        .env("DATABASE_URL", &url)
        .env("BCRYPT_COST", "4")
        .output()
        .unwrap();
    assert!(seeded.status.success(), "{}", String::from_utf8_lossy(&seeded.stderr));
    admin_sql(&admin, &format!("DROP DATABASE IF EXISTS \"{name}\" WITH (FORCE)")).await;
}

/// A suffix that no other run of this test shares.
fn uuid_suffix() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    format!("{nanos}")
}
