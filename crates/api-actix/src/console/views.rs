//! What the console's templates show, made from the use cases' answers: values formatted as
//! people read them (the documents' formats: CPF, phones, reais, Brasília time).

use domain::acceptance::AcceptanceView;
use domain::acceptance::queue::{PendingState, QueuePage};
use domain::catalog::CatalogOverview;
use domain::contract::formats;
use domain::history::{HistoryEntry, actions};
use domain::hooks::model::{Delivery, DeliveryState, Subscription};
use domain::privacy::subject_requests::{QueueFilter, RequestChannel, RequestKind, SubjectRequest};
use domain::proposals::lifecycle::back_office_moves;
use domain::proposals::model::{ProposalDetail, SubscriptionView};
use domain::proposals::reasons;
use domain::proposals::search::{ProposalPage, ProposalSearch};
use domain::refunds::{RefundChannel, RefundRecord};
use domain::values::{HookStatus, ProposalStatus, ReasonCategory};
use minijinja::{Value, context};
use serde::Serialize;

/// The colour a status is shown in.
fn status_class(status: ProposalStatus) -> &'static str {
    match status {
        ProposalStatus::Approved => "ok",
        ProposalStatus::Rejected | ProposalStatus::Cancelled | ProposalStatus::Expired => "bad",
        ProposalStatus::AwaitingSignature | ProposalStatus::InAnalysis => "warn",
        ProposalStatus::New => "info",
    }
}

fn text(value: &serde_json::Value) -> String {
    match value {
        serde_json::Value::Null => "—".to_owned(),
        serde_json::Value::String(s) => s.clone(),
        // A list (a request's documents) as people write one.
        serde_json::Value::Array(items) => items.iter().map(text).collect::<Vec<_>>().join("; "),
        other => other.to_string(),
    }
}

#[derive(Serialize)]
struct Row {
    identifier: String,
    created: String,
    customer: String,
    cpf: String,
    status: &'static str,
    status_class: &'static str,
    value: String,
    seller: String,
    shipping: &'static str,
}

/// The filters as sent, to show them again in the form.
fn given(query: &[(String, String)], name: &str) -> String {
    query
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.clone())
        .unwrap_or_default()
}

pub fn proposal_page(query: &[(String, String)], search: &ProposalSearch, page: ProposalPage) -> Value {
    let rows: Vec<Row> = page
        .records
        .into_iter()
        .map(|r| Row {
            created: formats::instant(r.record.stamp.created_at),
            customer: r.customer_name.clone().unwrap_or_default(),
            cpf: r.customer_cpf.as_deref().map(formats::cpf).unwrap_or_default(),
            status_class: status_class(r.record.status),
            status: r.record.status.as_str(),
            value: formats::reais(r.record.value),
            seller: r
                .record
                .partner_document
                .as_deref()
                .map(formats::cpf_or_cnpj)
                .unwrap_or_else(|| "Loja online".to_owned()),
            shipping: r.record.shipping.as_str(),
            identifier: r.record.identifier,
        })
        .collect();
    let statuses: Vec<&str> = ProposalStatus::ALL.iter().map(|s| s.as_str()).collect();
    context! {
        proposals => rows,
        statuses => statuses,
        next_cursor => page.next.map(|c| c.encode()),
        filters => context! {
            q => given(query, "q"),
            status => given(query, "conditions[status]"),
            shipping => given(query, "conditions[tipo_envio]"),
            created_from => given(query, "createdFrom"),
            created_to => given(query, "createdTo"),
            limit => search.limit,
        },
    }
}

#[derive(Serialize)]
struct Change {
    field: String,
    from: String,
    to: String,
}

#[derive(Serialize)]
struct Entry {
    at: String,
    by: String,
    action: String,
    label: &'static str,
    changes: Vec<Change>,
}

#[derive(Serialize)]
struct Decision {
    value: &'static str,
    label: &'static str,
}

pub fn proposal(detail: ProposalDetail, history: Vec<HistoryEntry>, me: &str) -> Value {
    let p = &detail.proposal;
    let c = &detail.customer;
    let address = detail.address.as_ref().map_or_else(String::new, |a| {
        format!(
            "{}, {}{} · {} · {}/{} · CEP {}",
            a.street,
            a.number,
            a.complement.as_deref().map(|c| format!(", {c}")).unwrap_or_default(),
            a.neighborhood,
            a.city,
            a.state,
            formats::cep(&a.cep)
        )
    });
    let signatures = detail.signature.as_ref().map_or_else(
        || "não enviada".to_owned(),
        |s| {
            [
                ("cliente", &s.client_status),
                ("associação", &s.association_status),
                ("federação", &s.federation_status),
                ("empresa", &s.enterprise_status),
            ]
            .iter()
            .map(|(who, status)| format!("{who}: {}", status.map_or("—", |s| s.as_str())))
            .collect::<Vec<_>>()
            .join(" · ")
        },
    );
    let moves: Vec<Decision> = back_office_moves(p.status)
        .into_iter()
        .map(|to| Decision {
            value: to.as_str(),
            label: match to {
                ProposalStatus::Approved => "Aprovar",
                ProposalStatus::Rejected => "Reprovar",
                ProposalStatus::Cancelled => "Cancelar",
                _ => to.as_str(),
            },
        })
        .collect();
    let entries: Vec<Entry> = history
        .into_iter()
        .map(|e| Entry {
            at: formats::instant(e.at),
            label: actions::label(&e.action),
            changes: e
                .changes
                .iter()
                .map(|(field, change)| Change {
                    field: field.clone(),
                    from: text(&change.from),
                    to: text(&change.to),
                })
                .collect(),
            by: e.by,
            action: e.action,
        })
        .collect();
    context! {
        p => context! {
            identifier => p.identifier.clone(),
            status => p.status.as_str(),
            status_class => status_class(p.status),
            product => format!("{} ({})", detail.product_name, detail.product_code),
            value => formats::reais(p.value),
            payment => detail.payment.as_ref().map_or("cartão (loja online)", |pay| pay.payment_type.as_str()),
            customer => c.person.full_name.clone(),
            cpf => formats::cpf(&c.person.cpf),
            cell_phone => c.person.cell_phone.as_deref().map(formats::phone).unwrap_or_else(|| "—".to_owned()),
            email => c.person.email.clone().unwrap_or_else(|| "—".to_owned()),
            address => address,
            seller => detail.partner.as_ref().map(|pa| format!("{} ({})", pa.social_reason, formats::cpf_or_cnpj(&pa.document))).unwrap_or_else(|| "Loja online".to_owned()),
            shipping => p.shipping.as_str(),
            created => formats::instant(p.stamp.created_at),
            updated => formats::instant(p.stamp.updated_at),
            updated_by => p.stamp.changed_by.clone(),
            signatures => signatures,
            subscription => detail.subscription.as_ref().map(subscription_line),
            sent => p.document_key.is_some(),
            // A concluded sale may be undone within the right of regret (the use case judges the days).
            withdrawable => matches!(p.status, ProposalStatus::InAnalysis | ProposalStatus::Approved),
            open => !moves.is_empty(),
            // An end that returns what was received: without a refund, the page says why.
            settled => matches!(p.status, ProposalStatus::Rejected | ProposalStatus::Cancelled),
        },
        decisions => moves,
        // A refusal's category, the part of its reason a seller reads (decision 283).
        reason_categories => ReasonCategory::ALL
            .iter()
            .map(|c| context! { value => c.as_str(), label => reasons::label(*c) })
            .collect::<Vec<_>>(),
        history => entries,
        acceptance => detail.acceptance.as_ref().map(|a| acceptance(a, p.status)),
        me => me,
        refunds => detail.refunds.iter().map(refund_row).collect::<Vec<_>>(),
        billing => detail.billing.as_ref().map(billing_line),
        pix => detail.pix_recurrence.as_ref().map(pix_line),
        averbacao => detail.averbacao.as_ref().map(averbacao_line),
        charges => detail.charges.iter().map(|c| charge_row(c, detail.billing.as_ref())).collect::<Vec<_>>(),
        ledger => (!detail.ledger.is_empty()).then(|| ledger_line(&detail.ledger)),
    }
}

/// The contract's ledger as the back office reads it (issue 65): the four balances, in reais.
fn ledger_line(l: &domain::ledger::LedgerBalance) -> Value {
    context! {
        due => formats::reais(l.due),
        received => formats::reais(l.received),
        refunded => formats::reais(l.refunded),
        owed_back => formats::reais(l.owed_back),
        owes => l.owed_back > 0,
    }
}

/// Débito em conta's files as the back office lists them (issue 46).
pub fn debit_files(files: Vec<domain::billing::debits::DebitFile>) -> Value {
    let rows: Vec<Value> = files
        .into_iter()
        .map(|f| {
            context! {
                kind_class => if f.kind == "remessa" { "info" } else { "ok" },
                kind => f.kind,
                name => f.name,
                bank => f.bank,
                agreement => f.agreement,
                nsa => f.nsa,
                records => f.records,
                total => formats::reais(f.total),
                at => formats::instant(f.at),
                sha256 => f.sha256,
                note => f.note,
            }
        })
        .collect();
    context! { files => rows }
}

/// The contract's billing status as the back office reads it (issue 46).
fn billing_line(b: &domain::billing::Billing) -> Value {
    use domain::billing::BillingStatus;
    let (text, class) = match b.status {
        BillingStatus::UpToDate => ("em dia", "ok"),
        BillingStatus::Late => ("em atraso", "warn"),
        BillingStatus::Suspended => ("suspenso por falta de pagamento", "bad"),
    };
    context! { status => text, status_class => class, since => formats::instant(b.since) }
}

/// The Pix Automático recurrence as the PSP last answered (issue 46).
fn pix_line(r: &domain::billing::pix::RecurrenceView) -> Value {
    use domain::billing::pix::RecurrenceStatus;
    let (text, class) = match r.status {
        RecurrenceStatus::Criada => ("aguardando a autorização do pagador", "warn"),
        RecurrenceStatus::Aprovada => ("autorizada pelo pagador", "ok"),
        RecurrenceStatus::Rejeitada => ("recusada pelo pagador", "bad"),
        RecurrenceStatus::Expirada => ("expirada sem autorização", "bad"),
        RecurrenceStatus::Cancelada => ("cancelada", "bad"),
    };
    context! { id_rec => r.id_rec, status => text, status_class => class, code => r.status.as_str() }
}

/// The payroll discount's averbação as the back office reads it (issue 67).
fn averbacao_line(a: &domain::billing::averbacao::AverbacaoView) -> Value {
    use domain::billing::averbacao::AverbacaoStatus;
    let (text, class) = match a.status {
        AverbacaoStatus::Pending => ("aguardando o empregador", "warn"),
        AverbacaoStatus::Active => ("ativa", "ok"),
        AverbacaoStatus::Refused => ("recusada", "bad"),
        AverbacaoStatus::Cancelled => ("cancelada", "bad"),
    };
    context! {
        id => a.id,
        status => text,
        status_class => class,
        code => a.status.as_str(),
        since => formats::instant(a.updated_at),
        reason => a.reason,
        awaiting => a.status == AverbacaoStatus::Pending,
    }
}

/// One charge of the contract, as a row of its table: an open one due before the contract fell
/// behind is what keeps it late or suspended, and says so.
fn charge_row(c: &domain::billing::Charge, billing: Option<&domain::billing::Billing>) -> Value {
    use domain::billing::{BillingStatus, ChargeStatus, brasilia_day};
    let behind = billing.is_some_and(|b| {
        b.status != BillingStatus::UpToDate && c.status == ChargeStatus::Open && c.due_date < brasilia_day(b.since)
    });
    let class = match c.status {
        ChargeStatus::Paid => "ok",
        ChargeStatus::Open if behind => "bad",
        ChargeStatus::Open => "info",
        ChargeStatus::Failed => "bad",
        ChargeStatus::Cancelled => "warn",
    };
    context! {
        period => c.period,
        due => formats::date(c.due_date),
        amount => formats::reais(c.amount),
        method => c.method.clone(),
        status => if behind { "aberta, em atraso" } else { c.status.as_str() },
        status_class => class,
        attempts => c.attempts,
        next_attempt => c.next_attempt.map(formats::date),
        paid => c.paid_at.map(formats::instant),
        reason => c.reason.clone(),
    }
}

/// The acceptance clock as the analyst reads it, with the requests for documents and answers.
fn acceptance(a: &AcceptanceView, status: ProposalStatus) -> Value {
    let open_request = a.pending.iter().any(|p| p.answer.is_none());
    let requests: Vec<Value> = a
        .pending
        .iter()
        .map(|p| {
            context! {
                id => p.id,
                items => p.items.clone(),
                note => p.note.clone(),
                category => reasons::label(p.category),
                // Who answers it (decision 289): the seller, or the proponent by their link.
                proponent => p.recipient == domain::acceptance::pending::PendingRecipient::Proponent,
                requested => format!("{} por {}", formats::instant(p.requested_at), p.requested_by),
                answer => p.answer.as_ref().map(|answer| context! {
                    note => answer.note.clone(),
                    answered => format!("{} por {}", formats::instant(answer.answered_at), answer.answered_by),
                    files => answer.files.iter().map(|f| context! {
                        id => f.id,
                        name => f.name.clone(),
                        size => size(f.size),
                        content_type => f.content_type.clone(),
                    }).collect::<Vec<_>>(),
                }),
            }
        })
        .collect();
    context! {
        received => formats::instant(a.received_at),
        deadline => formats::instant(a.deadline),
        tacit => a.tacit,
        overdue => a.overdue,
        suspended_since => a.suspended_since.map(formats::instant),
        requests => requests,
        // One request at a time, and only while the proposal is in analysis.
        may_request => status == ProposalStatus::InAnalysis && !open_request,
        analyst => a.analyst.clone(),
        in_analysis => status == ProposalStatus::InAnalysis,
    }
}

/// A file's size as people read it.
fn size(bytes: i64) -> String {
    if bytes >= 1024 * 1024 {
        format!("{:.1} MB", bytes as f64 / (1024.0 * 1024.0)).replace('.', ",")
    } else {
        format!("{} KB", (bytes + 1023) / 1024)
    }
}

fn refund_row(r: &RefundRecord) -> Value {
    let status = match r.status.as_str() {
        "succeeded" => "reembolsado",
        "pending" => "em processamento",
        "failed" => "falhou",
        "canceled" => "cancelado",
        "a_pagar" => "a pagar pelo financeiro",
        "pago" => "pago pelo financeiro",
        _ => "situação desconhecida",
    };
    context! {
        id => r.id.clone(),
        reason => r.reason.as_str(),
        amount => formats::reais(r.amount),
        nominal => formats::reais(r.nominal),
        correction => r.correction.as_ref().map(|c| format!(
            "IPCA {} a {}: fator {},{:08} (+{})",
            formats::date(c.from),
            formats::date(c.to),
            c.factor / 100_000_000,
            c.factor % 100_000_000,
            formats::reais(r.correction_amount()),
        )),
        channel => match r.channel {
            RefundChannel::Platform => "cartão (plataforma)",
            RefundChannel::ToPay => "financeiro",
            RefundChannel::Pix => "Pix (devolução)",
        },
        status => match (r.status.as_str(), r.due_on) {
            ("a_pagar", Some(due)) => format!("{status} ({}) · vence em {}", r.status, formats::date(due)),
            _ => format!("{status} ({})", r.status),
        },
        status_class => match r.status.as_str() {
            "succeeded" | "pago" => "ok",
            "failed" | "canceled" => "bad",
            _ => "warn",
        },
        reference => r.reference.clone(),
        created => formats::instant(r.created_at),
    }
}

/// A queue's time, short: Brasília's date and minute (the column says whose time it is).
fn brasilia_minute(at: chrono::DateTime<chrono::Utc>) -> String {
    at.with_timezone(&formats::brasilia())
        .format("%d/%m/%Y %H:%M")
        .to_string()
}

#[derive(Serialize)]
struct QueueRow {
    identifier: String,
    customer: String,
    product: String,
    value: String,
    received: String,
    deadline: String,
    state: &'static str,
    state_class: &'static str,
    analyst: Option<String>,
    pending: &'static str,
    tacit: bool,
}

/// The analyst's queue: the overdue first (red), then by deadline.
pub fn queue(query: &[(String, String)], page: QueuePage, me: &str) -> Value {
    let rows: Vec<QueueRow> = page
        .entries
        .into_iter()
        .map(|e| {
            let (state, state_class) = if e.overdue {
                ("vencida", "bad")
            } else if e.suspended_since.is_some() {
                ("suspensa", "info")
            } else {
                ("no prazo", "ok")
            };
            QueueRow {
                customer: e.customer_name,
                product: e.product_name,
                value: formats::reais(e.value_cents),
                received: brasilia_minute(e.received_at),
                deadline: brasilia_minute(e.deadline),
                state,
                state_class,
                analyst: e.analyst,
                pending: match e.pending {
                    PendingState::None => "—",
                    PendingState::Open => "aguardando o vendedor",
                    PendingState::Answered => "respondida",
                },
                tacit: e.tacit,
                identifier: e.identifier,
            }
        })
        .collect();
    context! {
        entries => rows,
        analysts => page.analysts,
        me => me,
        next_cursor => page.next.map(|c| c.encode()),
        assigned => given(query, "assigned"),
    }
}

/// The subscription as the back office reads it: the platform's words, translated, beside them.
fn subscription_line(s: &SubscriptionView) -> String {
    let status = match s.status.as_str() {
        "active" => "ativa",
        "past_due" => "em atraso",
        "unpaid" => "não paga",
        "canceled" => "cancelada",
        "incomplete" => "incompleta",
        "incomplete_expired" => "incompleta e expirada",
        // A subscription held until the acceptance (decision 271): nothing charged yet.
        "trialing" => "retida até a aceitação, nada cobrado",
        "paused" => "pausada",
        _ => "situação desconhecida",
    };
    let mut line = format!("{} · {status} ({})", s.id, s.status);
    if let Some(invoice) = &s.latest_invoice_status {
        let label = match invoice.as_str() {
            "paid" => "paga",
            "open" => "em aberto",
            "void" => "anulada",
            "uncollectible" => "incobrável",
            "draft" => "rascunho",
            _ => "situação desconhecida",
        };
        line.push_str(&format!(" · última fatura {label} ({invoice})"));
    }
    if let Some(end) = s.current_period_end {
        line.push_str(&format!(" · período pago até {}", formats::instant(end)));
    }
    line
}

#[derive(Serialize)]
struct Hook {
    uuid: String,
    endpoint: String,
    events: String,
    status: String,
    status_class: &'static str,
    inactive_reason: Option<String>,
    created: String,
}

pub fn hooks(subscriptions: Vec<Subscription>) -> Value {
    let rows: Vec<Hook> = subscriptions
        .into_iter()
        .map(|s| Hook {
            uuid: s.uuid.to_string(),
            events: s.events.iter().map(|e| e.as_str()).collect::<Vec<_>>().join(", "),
            status: s.status.as_str().to_owned(),
            status_class: if s.status == HookStatus::Active { "ok" } else { "bad" },
            inactive_reason: s.inactive_reason,
            created: formats::instant(s.created_at),
            endpoint: s.endpoint,
        })
        .collect();
    context! { subscriptions => rows }
}

#[derive(Serialize)]
struct DeliveryRow {
    id: i64,
    event_type: String,
    state: &'static str,
    state_class: &'static str,
    attempts: usize,
    last: String,
    next: String,
    created: String,
    retriable: bool,
}

pub fn deliveries(subscription: &Subscription, deliveries: Vec<Delivery>, notice: Option<String>) -> Value {
    let rows: Vec<DeliveryRow> = deliveries
        .into_iter()
        .map(|d| DeliveryRow {
            id: d.id,
            event_type: d.event_type.clone(),
            state: d.state.as_str(),
            state_class: match d.state {
                DeliveryState::Delivered => "ok",
                DeliveryState::Pending => "warn",
                DeliveryState::Exhausted | DeliveryState::Cancelled => "bad",
            },
            attempts: d.attempts.len(),
            last: d.attempts.last().map_or_else(
                || "—".to_owned(),
                |a| match (a.response_status, &a.error) {
                    (Some(status), _) => format!("HTTP {status} em {} ms", a.duration_ms),
                    (None, Some(error)) => error.clone(),
                    (None, None) => "—".to_owned(),
                },
            ),
            next: d
                .next_attempt_at
                .map(formats::instant)
                .unwrap_or_else(|| "—".to_owned()),
            created: formats::instant(d.created_at),
            retriable: d.state != DeliveryState::Delivered,
        })
        .collect();
    context! {
        uuid => subscription.uuid.to_string(),
        endpoint => subscription.endpoint.clone(),
        deliveries => rows,
        notice => notice,
    }
}

#[derive(Serialize)]
struct ProductRow {
    code: i32,
    name: String,
    integration: i32,
    value: String,
    active: &'static str,
    terms: Option<String>,
}

#[derive(Serialize)]
struct GroupRow {
    code: i32,
    description: String,
    product: i32,
    integration: i32,
}

pub fn catalog(overview: CatalogOverview) -> Value {
    let products: Vec<ProductRow> = overview
        .products
        .into_iter()
        .map(|p| ProductRow {
            code: p.code,
            name: p.name,
            integration: p.integration_code,
            value: formats::reais(p.value_cents),
            active: if p.active { "sim" } else { "não" },
            terms: p.terms,
        })
        .collect();
    let groups: Vec<GroupRow> = overview
        .billing_groups
        .into_iter()
        .map(|g| GroupRow {
            code: g.billing_code,
            description: g.description,
            product: g.product_code,
            integration: g.integration_code,
        })
        .collect();
    context! { products => products, billing_groups => groups }
}

#[derive(Serialize)]
struct SubjectRequestRow {
    protocol: String,
    cpf: String,
    kind: &'static str,
    kind_code: &'static str,
    channel: &'static str,
    note: Option<String>,
    received: String,
    received_by: String,
    deadline: String,
    state: &'static str,
    state_class: &'static str,
    answered_with_the_data: bool,
    answer: Option<SubjectAnswerView>,
}

#[derive(Serialize)]
struct SubjectAnswerView {
    text: String,
    at: String,
    by: String,
    in_time: bool,
    file: Option<SentFileView>,
}

#[derive(Serialize)]
struct SentFileView {
    name: String,
    sha256: String,
    size: String,
    sent_to: String,
}

fn subject_request_row(r: SubjectRequest, now: chrono::DateTime<chrono::Utc>) -> SubjectRequestRow {
    let (state, state_class) = match &r.answer {
        Some(a) if a.at <= r.deadline => ("respondido no prazo", "ok"),
        Some(_) => ("respondido fora do prazo", "warn"),
        None if r.overdue(now) => ("vencido", "bad"),
        None => ("no prazo", "ok"),
    };
    SubjectRequestRow {
        protocol: r.protocol.to_string(),
        cpf: domain::values::Cpf::parse(&r.cpf).map_or_else(|_| "titular anonimizado".to_owned(), |c| c.formatted()),
        kind: r.kind.label(),
        kind_code: r.kind.code(),
        channel: r.channel.label(),
        note: r.note,
        received: brasilia_minute(r.received_at),
        received_by: r.received_by,
        deadline: brasilia_minute(r.deadline),
        state,
        state_class,
        answered_with_the_data: r.kind.answered_with_the_data(),
        answer: r.answer.map(|a| SubjectAnswerView {
            in_time: a.at <= r.deadline,
            text: a.text,
            at: brasilia_minute(a.at),
            by: a.by,
            file: a.file.map(|f| SentFileView {
                size: size(f.bytes),
                name: f.name,
                sha256: f.sha256,
                sent_to: f.sent_to,
            }),
        }),
    }
}

/// The data-subject requests: the open ones by deadline (the overdue first, in red), or the
/// answered, the latest first.
pub fn subject_requests(
    filter: QueueFilter,
    requests: Vec<SubjectRequest>,
    now: chrono::DateTime<chrono::Utc>,
    notice: Option<String>,
) -> Value {
    let rows: Vec<SubjectRequestRow> = requests.into_iter().map(|r| subject_request_row(r, now)).collect();
    context! {
        entries => rows,
        answered => filter == QueueFilter::Answered,
        kinds => RequestKind::ALL.iter().map(|k| (k.code(), k.label())).collect::<Vec<_>>(),
        channels => RequestChannel::ALL.iter().map(|c| (c.code(), c.label())).collect::<Vec<_>>(),
        notice => notice,
    }
}

/// One request: its facts, and the answer form or the answer recorded.
pub fn subject_request(request: SubjectRequest, now: chrono::DateTime<chrono::Utc>) -> Value {
    context! { r => subject_request_row(request, now) }
}
