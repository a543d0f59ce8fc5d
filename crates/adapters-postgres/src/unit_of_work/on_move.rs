//! What a status move does to the proposal's other tables, in the move's transaction
//! (`status_change::apply_change` calls each): the acceptance clock started on entering
//! `EM ANÁLISE` (with a shop sale's provisional cover) and closed on leaving it, the documents due (terms, certificate), the contract's
//! first term on entering `APROVADO`, and the billing
//! of a contract started on entering `APROVADO` (its debit authorisation asked) and closed on
//! leaving it, its open charges cancelled with their events.

use crate::event_outbox::{facts_of, next_sequence, queue};
use crate::read_model::parts::billing::{BillingPart, ChargePart};
use crate::rows::stored;
use crate::schema::{
    charges, contract_billings as billings, contract_terms, products, proposal_acceptances as clocks,
    proposal_certificates as certificates, proposals,
};
use crate::statement::statement;
use chrono::{DateTime, NaiveDate, Utc};
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Timestamptz};
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use domain::acceptance::{AcceptanceClock, AcceptancePolicy};
use domain::billing::term::{DEFAULT_TERM_MONTHS, Renewal, TermPolicy, first_term};
use domain::billing::{Billing, Charge, ChargeStatus, DunningPolicy, brasilia_day, first_due_date};
use domain::certificates::DeliveredDocument;
use domain::ecommerce::collection::PremiumCollection;
use domain::hooks::payload;
use domain::proposals::lifecycle::StatusChange;
use domain::values::{EventKind, Flow, PaymentType, ProposalStatus};

/// A status move's effect on the clock, in the move's transaction: entering `EM ANÁLISE` starts
/// it with the product's policy as it is now ([`AcceptanceClock::start`]); leaving it closes it.
pub(crate) async fn acceptance_clock(conn: &mut AsyncPgConnection, change: &StatusChange) -> QueryResult<()> {
    if change.to == ProposalStatus::InAnalysis {
        let (days, tacit, suspensions, review_days, flow, collection): (i32, bool, i32, Option<i32>, String, String) =
            proposals::table
                .inner_join(products::table)
                .filter(proposals::id.eq(change.proposal_id))
                .select((
                    products::aceite_dias,
                    products::aceite_tacito,
                    products::aceite_suspensoes,
                    products::aceite_revisao_dias,
                    proposals::fluxo,
                    products::cobranca_premio,
                ))
                .first(conn)
                .await?;
        // A shop's sale enters analysis by its subscription (route 16): paid at the sale, its
        // provisional cover begins now (decision 271); held until the acceptance, none does.
        let provisional_from = (change.from == ProposalStatus::New
            && flow == Flow::Ecommerce.as_str()
            && PremiumCollection::parse(&collection) == Some(PremiumCollection::ProvisionalCover))
        .then_some(change.at);
        let policy = AcceptancePolicy {
            days: u32::try_from(days).unwrap_or(AcceptancePolicy::default().days),
            tacit,
            suspensions: u32::try_from(suspensions).unwrap_or(0),
            review_days: review_days.and_then(|d| u32::try_from(d).ok()),
            // Who collects documents is read when they are asked, not by the clock.
            ..AcceptancePolicy::default()
        };
        let clock = AcceptanceClock::start(change.at, &policy);
        diesel::insert_into(clocks::table)
            .values((
                clocks::id_proposta.eq(change.proposal_id),
                clocks::recebida_em.eq(clock.received_at),
                clocks::prazo_em.eq(clock.deadline),
                clocks::tacito.eq(clock.tacit),
                clocks::suspensoes_permitidas.eq(suspensions),
                clocks::revisao_em.eq(clock.review_by),
                clocks::cobertura_provisoria_desde.eq(provisional_from),
            ))
            .on_conflict_do_nothing()
            .execute(conn)
            .await?;
    } else if change.from == ProposalStatus::InAnalysis {
        diesel::update(clocks::table.find(change.proposal_id))
            .filter(clocks::decidida_em.is_null())
            .set(clocks::decidida_em.eq(change.at))
            .execute(conn)
            .await?;
    }
    Ok(())
}

/// A move into `APROVADO` makes the proposal's certificate due (once: a proposal is accepted
/// once); an online sale's payment (`NOVO` to `EM ANÁLISE`, which only the payment makes), its
/// terms. In the move's transaction.
pub(crate) async fn documents_due(conn: &mut AsyncPgConnection, change: &StatusChange) -> QueryResult<()> {
    let due = match (change.from, change.to) {
        (_, ProposalStatus::Approved) => Some(DeliveredDocument::Certificate),
        (ProposalStatus::New, ProposalStatus::InAnalysis) => Some(DeliveredDocument::Terms),
        _ => None,
    };
    let Some(kind) = due else {
        return Ok(());
    };
    let stored: i64 = certificates::table
        .filter(certificates::id_proposta.eq(change.proposal_id))
        .filter(certificates::tipo.eq(kind.as_str()))
        .filter(certificates::vigencia.eq(1))
        .count()
        .get_result(conn)
        .await?;
    if stored > 0 {
        return Ok(());
    }
    // The certificate's number is given now, in the acceptance's transaction (decision 281).
    let number = match kind {
        DeliveredDocument::Certificate => {
            Some(crate::certificate_numbers::next_certificate_number(conn, change.proposal_id).await?)
        }
        DeliveredDocument::Terms => None,
    };
    diesel::insert_into(certificates::table)
        .values((
            certificates::id_proposta.eq(change.proposal_id),
            certificates::tipo.eq(kind.as_str()),
            certificates::aceita_em.eq(change.at),
            certificates::numero.eq(number),
        ))
        .execute(conn)
        .await?;
    Ok(())
}

/// In a status move's transaction: entering `APROVADO` writes the contract's first term, with its
/// product's months and renewal as they are now, from the day the insurer received the proposal
/// (decision 270).
pub(crate) async fn term(conn: &mut AsyncPgConnection, change: &StatusChange) -> QueryResult<()> {
    if change.to != ProposalStatus::Approved {
        return Ok(());
    }
    let (months, renewal): (i32, String) = proposals::table
        .inner_join(products::table)
        .filter(proposals::id.eq(change.proposal_id))
        .select((products::vigencia_meses, products::renovacao))
        .first(conn)
        .await?;
    let received: Option<DateTime<Utc>> = clocks::table
        .find(change.proposal_id)
        .select(clocks::recebida_em)
        .first(conn)
        .await
        .optional()?;
    let policy = TermPolicy {
        months: u32::try_from(months).unwrap_or(DEFAULT_TERM_MONTHS),
        renewal: Renewal::parse(&renewal).unwrap_or(Renewal::Automatic),
    };
    let first = first_term(received, change.at, policy);
    diesel::insert_into(contract_terms::table)
        .values((
            contract_terms::id_proposta.eq(change.proposal_id),
            contract_terms::sequencia.eq(1),
            contract_terms::inicio.eq(first.start),
            contract_terms::fim.eq(first.end),
            contract_terms::meses.eq(months),
            contract_terms::renovacao.eq(&renewal),
            contract_terms::criada_em.eq(change.at),
        ))
        .on_conflict_do_nothing()
        .execute(conn)
        .await?;
    Ok(())
}

/// Why a charge was cancelled when its contract left `APROVADO`.
const CONTRACT_ENDED: &str = "contrato encerrado";

/// In a status move's transaction: entering `APROVADO` starts the billing of a partner's contract
/// paid by debit or payroll discount, with its product's policy as it is now; leaving it closes
/// the billing and cancels its open charges, each with its event.
pub(crate) async fn billing(conn: &mut AsyncPgConnection, change: &StatusChange) -> QueryResult<()> {
    if change.to == ProposalStatus::Approved {
        start(conn, change).await
    } else if change.from == ProposalStatus::Approved {
        close(conn, change).await
    } else {
        Ok(())
    }
}

type PolicyRow = (
    String,
    Option<String>,
    i64,
    i32,
    Vec<Option<i32>>,
    i32,
    i32,
    String,
    i32,
    bool,
);

async fn start(conn: &mut AsyncPgConnection, change: &StatusChange) -> QueryResult<()> {
    let row: Option<PolicyRow> = proposals::table
        .inner_join(products::table)
        .filter(proposals::id.eq(change.proposal_id))
        .select((
            proposals::fluxo,
            proposals::tipo_pagamento,
            proposals::valor,
            products::cobranca_primeiro_vencimento_dias,
            products::cobranca_retentativas_dias,
            products::cobranca_carencia_dias,
            products::cobranca_suspensao_dias,
            products::cobranca_primeira_parcela,
            products::cobranca_encerramento_dias,
            products::seguro_coletivo_vida,
        ))
        .first(conn)
        .await
        .optional()?;
    let Some((
        flow,
        method,
        amount,
        first_due_days,
        retry_days,
        grace_days,
        suspension_days,
        first_instalment,
        end_days,
        collective_life,
    )) = row
    else {
        return Ok(());
    };
    let billed_here =
        flow == Flow::Partner.as_str() && method.as_deref().is_some_and(|m| PaymentType::parse(m).is_ok());
    let Some(method) = method.filter(|_| billed_here) else {
        return Ok(());
    };
    let policy = DunningPolicy {
        first_due_days: u32::try_from(first_due_days).unwrap_or(10),
        ..DunningPolicy::default()
    };
    let first_due = first_due_date(brasilia_day(change.at), &policy);
    diesel::insert_into(billings::table)
        .values((
            billings::id_proposta.eq(change.proposal_id),
            billings::metodo.eq(&method),
            billings::valor.eq(amount),
            billings::aceita_em.eq(change.at),
            billings::primeiro_vencimento.eq(first_due),
            billings::proximo_vencimento.eq(first_due),
            billings::retentativas_dias.eq(retry_days),
            billings::carencia_dias.eq(grace_days),
            billings::suspensao_dias.eq(suspension_days),
            billings::primeira_parcela.eq(first_instalment),
            billings::encerramento_dias.eq(end_days),
            billings::coletivo_vida.eq(collective_life),
            billings::situacao_desde.eq(change.at),
            billings::situacao_por.eq(&change.changed_by),
        ))
        .on_conflict_do_nothing()
        .execute(conn)
        .await?;
    if method == PaymentType::AccountDebit.as_str() {
        debit_authorization(conn, change.proposal_id, change.at).await?;
    }
    Ok(())
}

async fn close(conn: &mut AsyncPgConnection, change: &StatusChange) -> QueryResult<()> {
    let closed = diesel::update(billings::table.find(change.proposal_id))
        .filter(billings::encerrada_em.is_null())
        .set(billings::encerrada_em.eq(change.at))
        .returning(BillingPart::as_returning())
        .get_result(conn)
        .await
        .optional()?;
    let Some(billing) = closed else {
        return Ok(());
    };
    let cancelled: Vec<ChargePart> = diesel::update(charges::table)
        .filter(charges::id_proposta.eq(change.proposal_id))
        // Every unpaid charge, open or failed for good, ends with its contract (decision 249).
        .filter(charges::status.eq_any([ChargeStatus::Open.as_str(), ChargeStatus::Failed.as_str()]))
        .set((
            charges::status.eq(ChargeStatus::Cancelled.as_str()),
            charges::motivo.eq(CONTRACT_ENDED),
            charges::proxima_tentativa.eq(None::<NaiveDate>),
            charges::alterada_em.eq(change.at),
            charges::alterada_por.eq(&change.changed_by),
        ))
        .returning(ChargePart::as_returning())
        .get_results(conn)
        .await?;
    let billing = stored(Billing::try_from(billing))?;
    for charge in cancelled {
        let charge = stored(Charge::try_from(charge))?;
        queue_charge_event(conn, change.proposal_id, Some(&charge), &billing, change.at).await?;
    }
    Ok(())
}

/// `COBRANCA_ALTERADA` for one proposal, in the caller's transaction.
pub(crate) async fn queue_charge_event(
    conn: &mut AsyncPgConnection,
    proposal_id: i64,
    charge: Option<&Charge>,
    billing: &Billing,
    at: DateTime<Utc>,
) -> QueryResult<()> {
    let facts = facts_of(conn, proposal_id).await?;
    let (sequence, _) = next_sequence(conn, proposal_id, EventKind::ChargeChanged).await?;
    let body = payload::charge_changed(&facts.identifier, charge, billing, at, sequence);
    queue(conn, EventKind::ChargeChanged, None, &body, facts.audience).await
}

/// In the billing's start (the move into `APROVADO`): the customer's authorisation of the debits,
/// given by signing the proposal: when every party had signed, and the sealed document's SHA-256.
async fn debit_authorization(conn: &mut AsyncPgConnection, proposal_id: i64, at: DateTime<Utc>) -> QueryResult<()> {
    statement! {
        INSERT_DEBIT_AUTHORIZATIONS = "INSERT INTO debit_authorizations (id_proposta, banco, autorizada_em, evidencia_sha256, situacao_em) \
             SELECT pp.id_proposta, pp.banco, \
                 coalesce((SELECT max(e.changed_at) FROM proposal_events e \
                           WHERE e.proposal_id = pp.id_proposta AND e.to_status = 'EM ANÁLISE'), $2), \
                 (SELECT s.sha256 FROM sealed_documents s WHERE s.proposal_id = pp.id_proposta), $2 \
             FROM proposal_payments pp WHERE pp.id_proposta = $1 AND pp.banco ~ '^[0-9]{3}$' \
             ON CONFLICT DO NOTHING";
    }
    INSERT_DEBIT_AUTHORIZATIONS
        .query()
        .bind::<BigInt, _>(proposal_id)
        .bind::<Timestamptz, _>(at)
        .execute(conn)
        .await?;
    Ok(())
}
