//! Development's answers of the CPF's status (issue 70): `POST /sandbox/kyc/cpf/{cpf}`
//! `{"status": "CANCELADA"}` sets what the sandbox Consulta CPF answers for that CPF (a status of
//! the Receita, or `INDISPONIVEL` for no answer at all), for every instance at once. Every CPF not
//! set answers `REGULAR`. Development only, for a tester on the machine or the back office, as the
//! other sandbox controls.

use crate::http::auth::SandboxOperator;
use crate::http::envelope::Envelope;
use crate::http::error::{ApiError, ErrorCode};
use crate::state::AppState;
use actix_web::{HttpResponse, web};
use domain::kyc::cpf_status::SandboxCpfAnswer;
use domain::validation::{Violations, codes};
use domain::values::Cpf;
use serde::{Deserialize, Serialize};

#[derive(Deserialize)]
struct AnswerBody {
    status: Option<String>,
}

#[derive(Serialize)]
struct AnswerSet {
    cpf: String,
    status: &'static str,
}

/// Sets the sandbox's answer for a CPF; the status kept of it is forgotten, so the next sale asks.
async fn set_answer(
    _operator: SandboxOperator,
    state: web::Data<AppState>,
    path: web::Path<String>,
    body: web::Bytes,
) -> Result<HttpResponse, ApiError> {
    let sandbox = state
        .sandbox_kyc
        .as_ref()
        .ok_or_else(|| ApiError::new(ErrorCode::NotFound))?;
    let mut v = Violations::new();
    let cpf = v.check("cpf", Cpf::parse(&path.into_inner()));
    let status = serde_json::from_slice::<AnswerBody>(&body).ok().and_then(|b| b.status);
    let answer = status.as_deref().and_then(SandboxCpfAnswer::parse);
    if answer.is_none() {
        v.add(
            "status",
            codes::INVALID_VALUE,
            format!("status deve ser um de: {}", SandboxCpfAnswer::accepted()),
        );
    }
    v.into_result().map_err(ApiError::invalid)?;
    let (Some(cpf), Some(answer)) = (cpf, answer) else {
        return Err(ApiError::invalid(Violations::new()));
    };
    sandbox.set(&cpf, answer).await?;
    Ok(HttpResponse::Ok().json(Envelope::data(
        "Resposta da consulta de CPF do sandbox definida.",
        AnswerSet {
            cpf: cpf.as_str().to_owned(),
            status: answer.as_str(),
        },
    )))
}

/// Under `/sandbox`.
pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.service(web::resource("/kyc/cpf/{cpf}").route(web::post().to(set_answer)));
}
