//! What stays in SQL is in one place (decision 169): every function the database keeps is one
//! file of `migrations-repeatable/`, applied by `migrate` after the versioned migrations, again
//! when a migration ran or the file changed; migrations after 38 copy no function body.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapters_postgres::migrations::{self, REPEATABLE};
use adapters_postgres::testing::{TestDatabase, line, lines};
use diesel_async::{AsyncConnection, AsyncPgConnection, SimpleAsyncConnection};
use std::collections::BTreeSet;
use std::path::Path;

/// The functions of the schema that are ours (not an extension's).
const OWN_FUNCTIONS: &str = "SELECT p.proname AS line FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
     JOIN pg_language l ON l.oid = p.prolang
     WHERE n.nspname = 'public' AND l.lanname IN ('sql', 'plpgsql')
       AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = p.oid AND d.deptype = 'e')
     ORDER BY 1";

fn repository_root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

#[test]
fn every_file_of_the_folder_is_applied_and_no_later_migration_copies_a_function() {
    let folder: BTreeSet<String> = std::fs::read_dir(repository_root().join("migrations-repeatable"))
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    let applied: BTreeSet<String> = REPEATABLE.iter().map(|r| format!("{}.sql", r.name)).collect();
    assert_eq!(folder, applied);
    for file in REPEATABLE {
        assert!(
            file.sql.contains(&format!("CREATE OR REPLACE FUNCTION {}(", file.name)),
            "{} defines its function, replacing it",
            file.name
        );
        assert!(
            !file.sql.lines().any(|l| l.starts_with("CREATE TRIGGER")),
            "{}: a trigger is made again (OR REPLACE, or dropped first)",
            file.name
        );
    }
    for entry in std::fs::read_dir(repository_root().join("migrations")).unwrap() {
        let dir = entry.unwrap().path();
        let version: u64 = dir.file_name().unwrap().to_string_lossy()[11..17].parse().unwrap();
        if version <= 38 {
            continue;
        }
        let up = std::fs::read_to_string(dir.join("up.sql")).unwrap().to_uppercase();
        assert!(
            !up.contains("CREATE FUNCTION") && !up.contains("CREATE OR REPLACE FUNCTION"),
            "{}: a function lives in migrations-repeatable/",
            dir.display()
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn every_function_the_database_keeps_is_one_repeatable_file() {
    let db = TestDatabase::new().await;
    let mut conn = AsyncPgConnection::establish(&db.url).await.unwrap();
    let live = lines(&mut conn, OWN_FUNCTIONS).await;
    let mut files: Vec<String> = REPEATABLE.iter().map(|r| r.name.to_owned()).collect();
    files.sort();
    assert_eq!(live, files);
    assert_eq!(
        line(&mut conn, "SELECT count(*)::text AS line FROM __repeatable_sql").await,
        REPEATABLE.len().to_string()
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn migrate_applies_a_changed_file_again_and_every_file_after_a_migration() {
    let db = TestDatabase::new().await;
    let mut conn = AsyncPgConnection::establish(&db.url).await.unwrap();
    let marker = "SELECT history_reason_marker() AS line";
    let original = line(&mut conn, marker).await;

    // Changed by hand and recorded as applied: nothing pending, nothing changed, left alone.
    conn.batch_execute(
        "CREATE OR REPLACE FUNCTION history_reason_marker() RETURNS TEXT LANGUAGE sql IMMUTABLE RETURN 'à mão'",
    )
    .await
    .unwrap();
    assert!(migrations::run_pending(&db.url).await.unwrap().is_empty());
    assert_eq!(line(&mut conn, marker).await, "à mão");

    // A file whose checksum differs from the recorded one is applied again.
    conn.batch_execute("UPDATE __repeatable_sql SET sha256 = 'antigo' WHERE name = 'history_reason_marker'")
        .await
        .unwrap();
    assert!(migrations::run_pending(&db.url).await.unwrap().is_empty());
    assert_eq!(line(&mut conn, marker).await, original);

    // After a migration ran, every file is applied again.
    conn.batch_execute(
        "CREATE OR REPLACE FUNCTION history_reason_marker() RETURNS TEXT LANGUAGE sql IMMUTABLE RETURN 'à mão'",
    )
    .await
    .unwrap();
    migrations::revert_last(&db.url).await.unwrap();
    assert_eq!(migrations::run_pending(&db.url).await.unwrap().len(), 1);
    assert_eq!(line(&mut conn, marker).await, original);
}
