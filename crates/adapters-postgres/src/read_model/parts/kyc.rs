//! The document's `kyc` part: the customer's due diligence (issue 70), a created part (route 5
//! and 6 write its row with the proposal, `read_model::declaration`), rewritten with the back
//! office's decision.

use chrono::{DateTime, Utc};
use domain::kyc::screening::{KycReason, KycReasonCode, KycStatus, KycView};
use domain::values::StoredValueError;
use serde::{Deserialize, Serialize};

/// `proposal_kyc`'s row less its key, as the document keeps it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct KycPart {
    pub pep: bool,
    pub situacao: String,
    pub motivos: Vec<KycReasonPart>,
    pub criada_em: DateTime<Utc>,
    pub decidida_por: Option<String>,
    pub decidida_em: Option<DateTime<Utc>>,
    pub nota: Option<String>,
}

/// One reason, as `proposal_kyc.motivos` keeps it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct KycReasonPart {
    pub codigo: String,
    pub detalhe: String,
}

/// What route 5 writes of a diligence: `{pep, situacao, motivos}` (JSON), the row's other
/// columns the statement's own.
pub(crate) fn new_kyc_json(view: &KycView) -> Option<String> {
    let motivos: Vec<KycReasonPart> = view
        .reasons
        .iter()
        .map(|r| KycReasonPart {
            codigo: r.code.as_str().to_owned(),
            detalhe: r.detail.clone(),
        })
        .collect();
    serde_json::to_string(&serde_json::json!({
        "pep": view.pep,
        "situacao": view.status.as_str(),
        "motivos": motivos,
    }))
    .ok()
}

impl TryFrom<KycPart> for KycView {
    type Error = StoredValueError;

    fn try_from(k: KycPart) -> Result<Self, StoredValueError> {
        Ok(KycView {
            pep: k.pep,
            status: KycStatus::parse(&k.situacao)
                .ok_or_else(|| StoredValueError::new("proposal_kyc", "situacao", &k.situacao))?,
            reasons: k
                .motivos
                .into_iter()
                .map(|m| {
                    Ok(KycReason {
                        code: KycReasonCode::parse(&m.codigo)
                            .ok_or_else(|| StoredValueError::new("proposal_kyc", "motivos", &m.codigo))?,
                        detail: m.detalhe,
                    })
                })
                .collect::<Result<_, StoredValueError>>()?,
        })
    }
}
