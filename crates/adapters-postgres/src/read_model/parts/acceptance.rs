//! The document's `acceptance` part: the acceptance clock with its requests for documents.

use crate::schema::{
    proposal_acceptances as clocks, proposal_pending_files as files, proposal_pending_requests as requests,
};
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use domain::acceptance::pending::PendingRecipient;
use domain::acceptance::{AcceptanceView, PendingAnswer, PendingFile, PendingRequest};
use domain::ecommerce::collection::ProvisionalCover;
use domain::values::ReasonCategory;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// A proposal's clock as its document keeps it, with its requests for documents.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct AcceptancePart {
    pub recebida_em: DateTime<Utc>,
    pub prazo_em: DateTime<Utc>,
    pub tacito: bool,
    pub suspensa_desde: Option<DateTime<Utc>>,
    pub vencida_em: Option<DateTime<Utc>>,
    pub decidida_em: Option<DateTime<Utc>>,
    pub pending: Vec<PendingPart>,
    /// Documents written before migration 45 have none.
    #[serde(default)]
    pub analista: Option<String>,
    /// A shop's sale paid with provisional cover (migration 000063): when the cover began.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cobertura_provisoria_desde: Option<DateTime<Utc>>,
    /// The analysts' target (migration 000068).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revisao_em: Option<DateTime<Utc>>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct PendingPart {
    pub id: i64,
    pub itens: Vec<String>,
    pub nota: Option<String>,
    pub pedida_por: String,
    pub pedida_em: DateTime<Utc>,
    /// Documents written before migration 000075 have none: `documentacao`, the seller's.
    #[serde(default = "documentation")]
    pub categoria_motivo: String,
    #[serde(default = "seller")]
    pub destinatario: String,
    pub resposta: Option<String>,
    pub respondida_por: Option<String>,
    pub respondida_em: Option<DateTime<Utc>>,
    pub files: Vec<FilePart>,
}

fn documentation() -> String {
    ReasonCategory::Documentation.as_str().to_owned()
}

fn seller() -> String {
    PendingRecipient::Seller.as_str().to_owned()
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Queryable)]
pub(crate) struct FilePart {
    pub id: i64,
    pub nome: String,
    pub tipo: String,
    pub tamanho: i32,
    pub sha256: String,
}

impl From<AcceptancePart> for AcceptanceView {
    fn from(a: AcceptancePart) -> Self {
        AcceptanceView {
            received_at: a.recebida_em,
            deadline: a.prazo_em,
            tacit: a.tacito,
            suspended_since: a.suspensa_desde,
            review_by: a.revisao_em,
            overdue: a.vencida_em.is_some() && a.decidida_em.is_none(),
            pending: a.pending.into_iter().map(Into::into).collect(),
            analyst: a.analista,
            provisional_cover: a.cobertura_provisoria_desde.map(|from| ProvisionalCover {
                from,
                until: a.decidida_em,
            }),
        }
    }
}

impl From<PendingPart> for PendingRequest {
    fn from(p: PendingPart) -> Self {
        let answer = match (p.respondida_por, p.respondida_em) {
            (Some(by), Some(at)) => Some(PendingAnswer {
                note: p.resposta.unwrap_or_default(),
                answered_by: by,
                answered_at: at,
                files: p
                    .files
                    .into_iter()
                    .map(|f| PendingFile {
                        id: f.id,
                        name: f.nome,
                        content_type: f.tipo,
                        size: i64::from(f.tamanho),
                        sha256: f.sha256,
                    })
                    .collect(),
            }),
            _ => None,
        };
        PendingRequest {
            id: p.id,
            items: p.itens,
            note: p.nota,
            // The columns' CHECKs keep both in their lists; were one not, the request reads as
            // the proponent's, the layer a seller cannot read (failing closed).
            category: ReasonCategory::parse(&p.categoria_motivo).unwrap_or(ReasonCategory::Documentation),
            recipient: PendingRecipient::ALL
                .into_iter()
                .find(|r| r.as_str() == p.destinatario)
                .unwrap_or(PendingRecipient::Proponent),
            requested_by: p.pedida_por,
            requested_at: p.pedida_em,
            answer,
        }
    }
}

type ClockRow = (
    i64,
    DateTime<Utc>,
    DateTime<Utc>,
    bool,
    Option<DateTime<Utc>>,
    Option<DateTime<Utc>>,
    Option<DateTime<Utc>>,
    Option<String>,
    Option<DateTime<Utc>>,
    Option<DateTime<Utc>>,
);

type RequestRow = (
    i64,
    i64,
    Vec<Option<String>>,
    Option<String>,
    String,
    DateTime<Utc>,
    (String, String),
    Option<String>,
    Option<String>,
    Option<DateTime<Utc>>,
);

/// The clocks of the proposals `ids` with their requests and their files' listings (two
/// statements on one connection: the read model's build pipelines them with its others).
pub(crate) async fn acceptances_of(
    conn: &mut &AsyncPgConnection,
    ids: &[i64],
) -> QueryResult<HashMap<i64, AcceptancePart>> {
    let (mut for_clocks, mut for_requests, mut for_files) = (*conn, *conn, *conn);
    let clock_rows = clocks::table
        .filter(clocks::id_proposta.eq_any(ids))
        .select((
            clocks::id_proposta,
            clocks::recebida_em,
            clocks::prazo_em,
            clocks::tacito,
            clocks::suspensa_desde,
            clocks::vencida_em,
            clocks::decidida_em,
            clocks::analista,
            clocks::cobertura_provisoria_desde,
            clocks::revisao_em,
        ))
        .load::<ClockRow>(&mut for_clocks);
    let request_rows = requests::table
        .filter(requests::id_proposta.eq_any(ids))
        .order((requests::id_proposta, requests::id))
        .select((
            requests::id,
            requests::id_proposta,
            requests::itens,
            requests::nota,
            requests::pedida_por,
            requests::pedida_em,
            (requests::categoria_motivo, requests::destinatario),
            requests::resposta,
            requests::respondida_por,
            requests::respondida_em,
        ))
        .load::<RequestRow>(&mut for_requests);
    let file_rows = files::table
        .inner_join(requests::table)
        .filter(requests::id_proposta.eq_any(ids))
        .order((files::id_pendencia, files::id))
        .select((
            files::id_pendencia,
            (files::id, files::nome, files::tipo, files::tamanho, files::sha256),
        ))
        .load::<(i64, FilePart)>(&mut for_files);
    let (clock_rows, request_rows, file_rows) = futures_util::try_join!(clock_rows, request_rows, file_rows)?;

    let mut files_of: HashMap<i64, Vec<FilePart>> = HashMap::new();
    for (request, file) in file_rows {
        files_of.entry(request).or_default().push(file);
    }
    let mut pending_of: HashMap<i64, Vec<PendingPart>> = HashMap::new();
    for (id, proposal, items, note, by, at, (category, recipient), answer, answered_by, answered_at) in request_rows {
        pending_of.entry(proposal).or_default().push(PendingPart {
            id,
            itens: items.into_iter().flatten().collect(),
            nota: note,
            pedida_por: by,
            pedida_em: at,
            categoria_motivo: category,
            destinatario: recipient,
            resposta: answer,
            respondida_por: answered_by,
            respondida_em: answered_at,
            files: files_of.remove(&id).unwrap_or_default(),
        });
    }
    Ok(clock_rows
        .into_iter()
        .map(
            |(id, received, deadline, tacit, suspended, overdue, decided, analyst, provisional_from, review_by)| {
                (
                    id,
                    AcceptancePart {
                        recebida_em: received,
                        prazo_em: deadline,
                        tacito: tacit,
                        suspensa_desde: suspended,
                        vencida_em: overdue,
                        decidida_em: decided,
                        pending: pending_of.remove(&id).unwrap_or_default(),
                        analista: analyst,
                        cobertura_provisoria_desde: provisional_from,
                        revisao_em: review_by,
                    },
                )
            },
        )
        .collect())
}
