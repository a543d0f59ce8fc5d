//! The billing's pass ends contracts by itself (issue 67): for their unpaid premium (Lei
//! 15.040/2024 art. 21) and at the end of a term that does not renew. Each end is raced here
//! with what a person does at the same moment (the seller cancelling at the customer's request,
//! the payer's bank settling a Pix charge), many contracts at once with random gaps: whatever
//! the order, no answer is a 5xx, each contract ends once and by one reason, nothing stays
//! claimed, and the PSP (`pix reconcile --dry-run`), the ledger (`ledger check --dry-run`) and
//! the read model agree with what the service recorded.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::arrears::run;
use super::legal_hold::{Setup, days_later};
use super::operation_claims::{answered, nothing_drifted, print_outcomes};
use super::pix_automatico::{charge, contract_with_a_charge_sent, sandbox, setup, txid};
use black_box_tests::{StatusCode, TestApp, cpf_from};
use chrono::{Days, NaiveDate};
use serde_json::{Value, json};
use std::time::Duration;

/// Contracts raced in each test.
const CONTRACTS: u32 = 8;

/// Every contract's customer's address (the proposals' body).
const EMAIL: &str = "maria@exemplo.com.br";

/// The longest gap before each person's move: about the pass's time over the contracts, so that
/// some moves land before it reaches their contract and some after.
const GAP_MS: u64 = 100 * CONTRACTS as u64;

const CUSTOMERS_REASON: &str = "Cliente contratou outro seguro";

fn due_of(charge: &Value) -> NaiveDate {
    NaiveDate::parse_from_str(charge["dueDate"].as_str().unwrap(), "%Y-%m-%d").unwrap()
}

/// Waits 0 to `upto_ms` milliseconds, chosen at random, then runs `step`.
async fn after_a_gap<F: std::future::Future>(upto_ms: u64, step: F) -> F::Output {
    tokio::time::sleep(Duration::from_millis(rand::random::<u64>() % (upto_ms + 1))).await;
    step.await
}

/// `CONTRACTS` Pix contracts accepted on the same day, each with its first charge paid and its
/// second refused for good, brought by the billing's passes to the day their end for the unpaid
/// premium is due (noticed, suspended 15 days after the receipt, the end's notice sent): their
/// identifiers. (The sandbox clock's days are counted from the acceptance's.)
async fn contracts_due_to_end_for_default(s: &Setup) -> Vec<String> {
    let mut identifiers = Vec::new();
    for n in 0..CONTRACTS {
        let (identifier, first) = contract_with_a_charge_sent(s, &cpf_from(300 + n)).await;
        sandbox(s, &format!("cobr/{first}/pay")).await;
        identifiers.push(identifier);
    }
    let data = s.app.proposal_data(&identifiers[0], &s.partner).await;
    let start = due_of(&charge(&data, 1)) - Days::new(10);
    days_later(s, 31).await;
    run(s).await;
    let mut due = start;
    for identifier in &identifiers {
        let data = s.app.proposal_data(identifier, &s.partner).await;
        due = due_of(&charge(&data, 2));
        sandbox(s, &format!("cobr/{}/fail", txid(&data, 2))).await;
    }
    // Late and noticed (received at once), suspended 15 days after, ended 30 days after that;
    // the fourth period's charge sent to the PSP in its window before (its attempt scheduled on
    // its due date, six days before the end).
    for offset in [20, 35, 50] {
        days_later(s, (due + Days::new(offset) - start).num_days()).await;
        run(s).await;
    }
    days_later(s, (due + Days::new(65) - start).num_days()).await;
    identifiers
}

/// How each contract ended: `INADIMPLENCIA` or the customer's reason, checked to be one end.
async fn ended_once(s: &Setup, identifier: &str) -> String {
    let data = s.app.proposal_data(identifier, &s.office).await;
    assert_eq!(data["proposal"]["status"], "CANCELADO", "{identifier}");
    let moves = super::billing::history_of(s, identifier, "status", "status").await;
    let ends = moves.iter().filter(|m| m.ends_with(r#""CANCELADO""#)).count();
    assert_eq!(ends, 1, "{identifier} ended once: {moves:?}");
    let reasons = super::billing::history_of(s, identifier, "status", "motivo").await;
    reasons.last().cloned().unwrap_or_default()
}

/// After every race: nothing pending, every Pix the PSP holds as the service does, every ledger
/// balanced with what the rails recorded.
async fn everything_agrees(s: &Setup, outcomes: &[String]) {
    nothing_drifted(&s.app).await;
    let config = TestApp::config(&s.app.db, &[]);
    let pix = api_actix::cli::reconcile_pix(&config, false).await.unwrap();
    assert_eq!(pix.drifted, 0, "{pix:?} after {outcomes:?}");
    let ledger = api_actix::cli::check_ledger(&config, false).await.unwrap();
    assert_eq!(
        api_actix::cli::ledger_outcome(&ledger, false).map_err(|e| e.to_string()),
        Ok(()),
        "{ledger:?} after {outcomes:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_end_for_an_unpaid_premium_and_the_customers_cancellation_together_end_each_contract_once() {
    let s = setup().await;
    let identifiers = contracts_due_to_end_for_default(&s).await;

    let (pass, answers) = tokio::join!(run(&s), cancelling_each(&s, &identifiers));

    let mut outcomes = Vec::new();
    for (identifier, (status, body)) in identifiers.iter().zip(answers) {
        let reason = ended_once(&s, identifier).await;
        let by_the_pass = pass.arrears.ended.contains(identifier);
        let ended_mail = format!("Seu seguro foi cancelado por falta de pagamento (proposta {identifier})");
        let mails = s.app.mails_to(EMAIL, &ended_mail).await;
        if by_the_pass {
            assert_eq!(reason, r#"null -> "INADIMPLENCIA""#, "{identifier}");
            assert!(status.is_client_error(), "{identifier}: {status} {body}");
            assert_eq!(mails.len(), 1, "{identifier}: the end told once");
            outcomes.push(format!("fim por inadimplência, cancelamento {status}"));
        } else {
            assert_eq!(status, StatusCode::OK, "{identifier}: {body}");
            assert_eq!(reason, format!(r#"null -> "{CUSTOMERS_REASON}""#), "{identifier}");
            assert!(mails.is_empty(), "{identifier}: no end for default told");
            outcomes.push("cancelado a pedido".to_owned());
        }
        let data = s.app.proposal_data(identifier, &s.office).await;
        assert_eq!(data["payment"]["pixAutomatico"]["status"], "CANCELADA");
        let charges = data["charges"].as_array().unwrap();
        assert!(
            charges
                .iter()
                .all(|c| c["status"] == "paga" || c["status"] == "cancelada"),
            "{identifier}: {charges:?}"
        );
    }
    print_outcomes(&outcomes);
    everything_agrees(&s, &outcomes).await;
}

/// The seller's cancellation at the customer's request of each contract, each after a random gap:
/// the answers, in the contracts' order.
async fn cancelling_each(s: &Setup, identifiers: &[String]) -> Vec<(StatusCode, Value)> {
    let cancels = identifiers.iter().map(|identifier| {
        after_a_gap(GAP_MS, async move {
            answered(
                s.app
                    .post_json_as(
                        &format!("/proposal/{identifier}/cancel"),
                        &s.partner,
                        &json!({"reason": CUSTOMERS_REASON}),
                    )
                    .await,
            )
            .await
        })
    });
    futures_util::future::join_all(cancels).await
}

#[tokio::test(flavor = "multi_thread")]
async fn the_end_at_the_term_and_the_customers_cancellation_together_end_each_contract_once() {
    let s = super::legal_hold::setup().await;
    s.app.sql("UPDATE products SET renovacao = 'nenhuma'").await;
    let mut identifiers = Vec::new();
    for n in 0..CONTRACTS {
        identifiers.push(super::debits::debit_contract(&s, &cpf_from(400 + n)).await);
    }
    let term = &s.app.proposal_data(&identifiers[0], &s.partner).await["acceptance"]["term"];
    let start = NaiveDate::parse_from_str(term["start"].as_str().unwrap(), "%Y-%m-%d").unwrap();
    let end = NaiveDate::parse_from_str(term["end"].as_str().unwrap(), "%Y-%m-%d").unwrap();
    let notice_day = (end - Days::new(30) - start).num_days();
    days_later(&s, notice_day).await;
    assert_eq!(run(&s).await.term.notices.len(), CONTRACTS as usize);
    days_later(&s, (end - start).num_days()).await;

    let (pass, answers) = tokio::join!(run(&s), cancelling_each(&s, &identifiers));

    let mut outcomes = Vec::new();
    for (identifier, (status, body)) in identifiers.iter().zip(answers) {
        let reason = ended_once(&s, identifier).await;
        if pass.term.ended.contains(identifier) {
            assert_eq!(reason, r#"null -> "FIM_DE_VIGENCIA""#, "{identifier}");
            assert!(status.is_client_error(), "{identifier}: {status} {body}");
            outcomes.push(format!("fim de vigência, cancelamento {status}"));
        } else {
            assert_eq!(status, StatusCode::OK, "{identifier}: {body}");
            assert_eq!(reason, format!(r#"null -> "{CUSTOMERS_REASON}""#), "{identifier}");
            outcomes.push("cancelado a pedido".to_owned());
        }
        let charges = s.app.proposal_data(identifier, &s.office).await["charges"].clone();
        assert!(
            charges.as_array().unwrap().iter().all(|c| NaiveDate::parse_from_str(
                c["dueDate"].as_str().unwrap(),
                "%Y-%m-%d"
            )
            .unwrap()
                < end),
            "{identifier}: nothing due from the end on: {charges}"
        );
    }
    print_outcomes(&outcomes);
    everything_agrees(&s, &outcomes).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_end_for_an_unpaid_premium_and_a_later_pix_settled_together_keep_no_cent_of_the_days_after_the_end() {
    let s = setup().await;
    let identifiers = contracts_due_to_end_for_default(&s).await;
    let mut fourth = Vec::new();
    for identifier in &identifiers {
        let data = s.app.proposal_data(identifier, &s.office).await;
        assert_eq!(
            charge(&data, 4)["status"],
            "aberta",
            "{identifier}: {}",
            data["charges"]
        );
        fourth.push(txid(&data, 4));
    }
    let app = &s.app;
    let pays = fourth.iter().map(|txid| {
        after_a_gap(GAP_MS, async move {
            app.post_json(&format!("/sandbox/pix/cobr/{txid}/pay"), &json!({}))
                .await
                .status()
        })
    });
    let (pass, paid) = tokio::join!(run(&s), futures_util::future::join_all(pays));
    // A payment after the end is given back by the next pass (every instance runs it).
    run(&s).await;

    let mut outcomes = Vec::new();
    for ((identifier, paid), pass_ended) in identifiers
        .iter()
        .zip(paid)
        .zip(identifiers.iter().map(|i| pass.arrears.ended.contains(i)))
    {
        assert!(
            paid == StatusCode::OK || paid.is_client_error(),
            "{identifier}: pay {paid}"
        );
        assert!(
            pass_ended,
            "{identifier}: a later period paid does not purge the default"
        );
        assert_eq!(ended_once(&s, identifier).await, r#"null -> "INADIMPLENCIA""#);
        let data = s.app.proposal_data(identifier, &s.office).await;
        let later = charge(&data, 4);
        let refunds = data["refunds"].as_array().cloned().unwrap_or_default();
        let nominal: i64 = refunds
            .iter()
            .map(|r| r["amount"].as_i64().unwrap() - r["correction"]["amount"].as_i64().unwrap())
            .sum();
        match later["status"].as_str().unwrap() {
            "paga" => {
                assert_eq!(paid, StatusCode::OK, "{identifier}");
                assert!(
                    refunds.iter().all(|r| r["id"].as_str().unwrap().starts_with('D')),
                    "{identifier}: by a devolucao of the Pix: {refunds:?}"
                );
                // Six of its days ran before the end: at most those are kept.
                let amount = later["amount"].as_i64().unwrap();
                assert!(
                    nominal > 0 && nominal <= amount && amount - nominal <= amount * 6 / 28 + 1,
                    "{identifier}: {nominal} of {amount} given back: {refunds:?}"
                );
                outcomes.push(format!("pago, {nominal} de {amount} devolvidos"));
            }
            "cancelada" => {
                assert!(
                    paid.is_client_error(),
                    "{identifier}: the PSP settled a cancelled charge"
                );
                assert!(refunds.is_empty(), "{identifier}: nothing received: {refunds:?}");
                outcomes.push("cancelada antes do pagamento".to_owned());
            }
            other => panic!("{identifier}: the fourth charge ended {other}: {later}"),
        }
    }
    print_outcomes(&outcomes);
    everything_agrees(&s, &outcomes).await;
}
