//! Migrations 36 and 37 and the claims of operations with an outside effect against real PostgreSQL: one
//! pending operation per proposal, judged under the proposal's row lock; a move refused while
//! another's operation is pending and ending its own in its transaction; the worker's leases.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapters_postgres::testing::{ONE_SHOP_SALE, TestDatabase, line, revert_through};
use adapters_postgres::{PgOperations, PgPool, PgSignatures, PoolSettings, build_pool, migrations};
use chrono::{Duration, Utc};
use diesel_async::{AsyncConnection, AsyncPgConnection, SimpleAsyncConnection};
use domain::proposals::lifecycle::StatusChange;
use domain::proposals::operations::{ClaimError, NewOperation, OperationClaims, OperationId, OperationKind};
use domain::signature::{ChangeStatusError, SignatureStore};
use domain::values::ProposalStatus;

const VERSION: &str = "20261127000036";
const FROZEN: &str = "20261127000037";
const READ_MODEL_IN_RUST: &str = "20261127000038";

/// A database with one `NOVO` proposal of the shop (the migration tests' fixture): (database,
/// pool, its id, its identifier).
async fn one_proposal() -> (TestDatabase, PgPool, i64, String) {
    let db = TestDatabase::new().await;
    let mut conn = AsyncPgConnection::establish(&db.url).await.unwrap();
    conn.batch_execute(ONE_SHOP_SALE).await.unwrap();
    let id = line(&mut conn, "SELECT id::text AS line FROM proposals")
        .await
        .parse()
        .unwrap();
    let pool = build_pool(&PoolSettings::new(&db.url)).unwrap();
    (db, pool, id, "p-1".to_owned())
}

fn operation(proposal_id: i64, kind: OperationKind, expected: ProposalStatus) -> NewOperation {
    NewOperation {
        id: OperationId::new(),
        proposal_id,
        kind,
        expected,
        requested_by: "bo@demo.com.br".into(),
        reason: Some("Cliente desistiu".into()),
        reason_category: None,
        target: None,
        at: Utc::now(),
    }
}

fn move_to(proposal_id: i64, from: ProposalStatus, to: ProposalStatus, operation: Option<OperationId>) -> StatusChange {
    StatusChange {
        proposal_id,
        from,
        to,
        changed_by: "bo@demo.com.br".into(),
        reason: None,
        reason_category: None,
        at: Utc::now(),
        operation,
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn one_operation_at_a_time_and_no_other_move_while_it_is_pending() {
    let (_db, pool, id, _) = one_proposal().await;
    let claims = PgOperations::new(pool.clone());
    let signatures = PgSignatures::new(pool.clone());
    let sending = operation(id, OperationKind::Sending, ProposalStatus::New);
    claims.claim(&sending).await.unwrap();

    // Another operation, or the same kind again, is refused naming the pending one.
    for kind in [OperationKind::Cancellation, OperationKind::Sending] {
        assert_eq!(
            claims.claim(&operation(id, kind, ProposalStatus::New)).await,
            Err(ClaimError::InProgress {
                kind: OperationKind::Sending
            })
        );
    }
    // A move that is not the operation's own is refused before anything is written.
    assert_eq!(
        signatures
            .change_status(&move_to(id, ProposalStatus::New, ProposalStatus::Cancelled, None))
            .await,
        Err(ChangeStatusError::Busy {
            kind: OperationKind::Sending
        })
    );
    // The operation's own move ends it in its transaction.
    signatures
        .change_status(&move_to(
            id,
            ProposalStatus::New,
            ProposalStatus::AwaitingSignature,
            Some(sending.id),
        ))
        .await
        .unwrap();
    let mut conn = pool.get().await.unwrap();
    assert_eq!(
        line(
            &mut conn,
            "SELECT state || ' ' || (finished_at IS NOT NULL)::text AS line FROM proposal_operations"
        )
        .await,
        "done true"
    );
    // Ended, it ends nothing again: a second move naming it is refused and rolled back.
    assert_eq!(
        signatures
            .change_status(&move_to(
                id,
                ProposalStatus::AwaitingSignature,
                ProposalStatus::Cancelled,
                Some(sending.id),
            ))
            .await,
        Err(ChangeStatusError::OperationEnded)
    );
    // A claim judged on a state the proposal has left is refused with where it is now.
    assert_eq!(
        claims
            .claim(&operation(id, OperationKind::Cancellation, ProposalStatus::New))
            .await,
        Err(ClaimError::Moved {
            current: ProposalStatus::AwaitingSignature
        })
    );
    // A failed operation frees the proposal.
    let cancelling = operation(id, OperationKind::Cancellation, ProposalStatus::AwaitingSignature);
    claims.claim(&cancelling).await.unwrap();
    assert!(
        claims
            .fail(cancelling.id, "provedor indisponível", Utc::now())
            .await
            .unwrap()
    );
    assert!(
        !claims.fail(cancelling.id, "de novo", Utc::now()).await.unwrap(),
        "an ended operation ends once"
    );
    claims
        .claim(&operation(
            id,
            OperationKind::Cancellation,
            ProposalStatus::AwaitingSignature,
        ))
        .await
        .unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn twenty_concurrent_claims_of_one_proposal_give_one() {
    let (_db, pool, id, _) = one_proposal().await;
    let claims = PgOperations::new(pool);
    let attempts = (0..20).map(|n| {
        let claims = claims.clone();
        let kind = if n % 2 == 0 {
            OperationKind::Subscription
        } else {
            OperationKind::Cancellation
        };
        tokio::spawn(async move { claims.claim(&operation(id, kind, ProposalStatus::New)).await })
    });
    let results = futures_util::future::join_all(attempts).await;
    let won = results.iter().filter(|r| matches!(r, Ok(Ok(())))).count();
    assert_eq!(won, 1, "{results:?}");
    assert!(
        results
            .iter()
            .all(|r| matches!(r, Ok(Ok(()) | Err(ClaimError::InProgress { .. })))),
        "{results:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_worker_takes_an_overdue_operation_once_per_lease() {
    let (_db, pool, id, identifier) = one_proposal().await;
    let claims = PgOperations::new(pool.clone());
    let mut late = operation(id, OperationKind::Withdrawal, ProposalStatus::New);
    late.at = Utc::now() - Duration::minutes(5);
    claims.claim(&late).await.unwrap();
    let now = Utc::now();
    let cut = now - Duration::minutes(1);
    assert_eq!(claims.overdue_count(cut).await.unwrap(), 1);
    assert_eq!(claims.overdue_count(now - Duration::minutes(10)).await.unwrap(), 0);

    let (first, second) = tokio::join!(
        claims.take_overdue(cut, now, Duration::minutes(2), 10),
        claims.take_overdue(cut, now, Duration::minutes(2), 10)
    );
    let (first, second) = (first.unwrap(), second.unwrap());
    assert_eq!(first.len() + second.len(), 1, "one worker takes it");
    let taken = first.into_iter().chain(second).next().unwrap();
    assert_eq!(
        (
            taken.id,
            taken.kind,
            taken.identifier.as_str(),
            taken.attempts,
            taken.reason.as_deref()
        ),
        (
            late.id,
            OperationKind::Withdrawal,
            identifier.as_str(),
            0,
            Some("Cliente desistiu")
        )
    );
    // Leased: not taken again until the lease runs out, then taken with its attempt counted.
    assert!(
        claims
            .take_overdue(cut, now, Duration::minutes(2), 10)
            .await
            .unwrap()
            .is_empty()
    );
    let later = now + Duration::minutes(3);
    let again = claims.take_overdue(cut, later, Duration::minutes(2), 10).await.unwrap();
    assert_eq!((again.len(), again[0].attempts), (1, 1));
}

#[tokio::test(flavor = "multi_thread")]
async fn the_migration_goes_down_only_with_nothing_pending_and_up_again() {
    let (db, pool, id, _) = one_proposal().await;
    let claims = PgOperations::new(pool.clone());
    let done = operation(id, OperationKind::Sending, ProposalStatus::New);
    claims.claim(&done).await.unwrap();
    claims.finish(done.id, "feito", Utc::now()).await.unwrap();
    claims
        .claim(&operation(id, OperationKind::Cancellation, ProposalStatus::New))
        .await
        .unwrap();
    drop(pool);

    // Migration 38 (the read model in Rust) and every later one go first, then 37: the refresh's
    // check and the document's lock go, the document stays.
    assert_eq!(
        revert_through(&db.url, READ_MODEL_IN_RUST)
            .await
            .last()
            .map(String::as_str),
        Some(READ_MODEL_IN_RUST)
    );
    assert_eq!(migrations::revert_last(&db.url).await.unwrap(), FROZEN);
    let mut conn = AsyncPgConnection::establish(&db.url).await.unwrap();
    assert_eq!(
        line(
            &mut conn,
            "SELECT (to_regprocedure('proposal_copy_refreshable(bigint,text)') IS NULL)::text || ' ' \
             || (SELECT count(*) FROM proposal_read_models) AS line"
        )
        .await,
        "true 1"
    );
    // A pending operation holds the down back, and nothing is lost.
    let refused = migrations::revert_last(&db.url).await.unwrap_err().to_string();
    assert!(refused.contains("operações pendentes"), "{refused}");
    let mut conn = AsyncPgConnection::establish(&db.url).await.unwrap();
    assert_eq!(
        line(&mut conn, "SELECT count(*)::text AS line FROM proposal_operations").await,
        "2"
    );
    conn.batch_execute("UPDATE proposal_operations SET state = 'failed', finished_at = now() WHERE state = 'pending'")
        .await
        .unwrap();
    assert_eq!(revert_through(&db.url, VERSION).await, [VERSION]);
    assert_eq!(
        line(
            &mut conn,
            "SELECT (to_regclass('proposal_operations') IS NULL)::text || ' ' || count(*) AS line FROM proposals"
        )
        .await,
        "true 1",
        "the proposal stays"
    );
    migrations::run_pending(&db.url).await.unwrap();
    assert_eq!(
        line(
            &mut conn,
            "SELECT (to_regprocedure('proposal_copy_refreshable(bigint,text)') IS NOT NULL)::text AS line"
        )
        .await,
        "true"
    );
    let pool = build_pool(&PoolSettings::new(&db.url)).unwrap();
    PgOperations::new(pool)
        .claim(&operation(id, OperationKind::Cancellation, ProposalStatus::New))
        .await
        .unwrap();
}
