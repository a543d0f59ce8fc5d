//! The document's `certificate` part: the contract's current certificate (decision 281), its
//! number from the acceptance's transaction and, once issued, when and the PDF's SHA-256.

use crate::schema::proposal_certificates;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use domain::certificates::DeliveredDocument;
use domain::contract::certificate::CertificateView;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// The current certificate in a proposal's document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Queryable)]
pub(crate) struct CertificatePart {
    pub numero: String,
    pub emitido_em: Option<DateTime<Utc>>,
    pub sha256: Option<String>,
}

impl From<CertificatePart> for CertificateView {
    fn from(c: CertificatePart) -> Self {
        CertificateView {
            number: c.numero,
            issued_at: c.emitido_em,
            sha256: c.sha256,
        }
    }
}

/// The current (latest term's) certificate of each proposal of `ids` that has one.
pub(crate) async fn certificates_of(
    conn: &mut &AsyncPgConnection,
    ids: &[i64],
) -> QueryResult<HashMap<i64, CertificatePart>> {
    let rows: Vec<(i64, CertificatePart)> = proposal_certificates::table
        .filter(proposal_certificates::id_proposta.eq_any(ids))
        .filter(proposal_certificates::tipo.eq(DeliveredDocument::Certificate.as_str()))
        .filter(proposal_certificates::numero.is_not_null())
        .order((
            proposal_certificates::id_proposta,
            proposal_certificates::vigencia.desc(),
        ))
        .distinct_on(proposal_certificates::id_proposta)
        .select((
            proposal_certificates::id_proposta,
            (
                proposal_certificates::numero.assume_not_null(),
                proposal_certificates::emitido_em,
                proposal_certificates::sha256,
            ),
        ))
        .load(conn)
        .await?;
    Ok(rows.into_iter().collect())
}
