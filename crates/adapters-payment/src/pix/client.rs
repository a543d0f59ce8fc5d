//! The domain's [`PixPsp`] over the API Pix: the calls, their bodies as the standard writes them,
//! the answers read back into the domain's terms. The token is kept until a minute before it
//! expires and fetched again once when the PSP refuses it. Every call that creates something first
//! asks whether it exists (by the txid, the refund's id, the contract, the recurrence's requests),
//! so a retry after a lost answer finds what the first call made.

use super::schema::Method;
use super::transport::{PixAnswer, PixRequest, PixTransport};
use async_trait::async_trait;
use chrono::{DateTime, NaiveDate, SecondsFormat, Utc};
use domain::billing::pix::{
    AttemptStatus, ConfirmationRequest, PayerAccount, PixAttempt, PixCharge, PixChargeRequest, PixChargeStatus,
    PixError, PixPayment, PixPsp, PixRefund, Recurrence, RecurrenceRequest, RecurrenceStatus, RefundStatus,
    amount_text, parse_amount,
};
use domain::clock::Clock;
use domain::values::Cpf;
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::Mutex;

/// How long before its expiry a token is replaced.
const TOKEN_MARGIN: Duration = Duration::from_secs(60);

/// The payee's account the charges are paid into (`recebedor` of `cobr`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReceiverAccount {
    pub agencia: String,
    pub conta: String,
    /// `CORRENTE`, `POUPANCA` or `PAGAMENTO`.
    pub tipo_conta: String,
}

pub struct PixClient {
    transport: Arc<dyn PixTransport>,
    clock: Arc<dyn Clock>,
    receiver: ReceiverAccount,
    token: Mutex<Option<(String, Instant)>>,
}

/// Texts cut to the standard's limits, on a character boundary.
fn clip(text: &str, chars: usize) -> String {
    text.chars().take(chars).collect()
}

fn text(value: &Value, pointer: &str) -> Option<String> {
    value.pointer(pointer).and_then(Value::as_str).map(str::to_owned)
}

fn required(value: &Value, pointer: &str) -> Result<String, PixError> {
    text(value, pointer).ok_or_else(|| PixError::Malformed(format!("{pointer} ausente")))
}

fn date(value: &Value, pointer: &str) -> Result<NaiveDate, PixError> {
    required(value, pointer)?
        .parse()
        .map_err(|_| PixError::Malformed(format!("{pointer}: data inválida")))
}

fn amount(value: &Value, pointer: &str) -> Result<i64, PixError> {
    parse_amount(&required(value, pointer)?).ok_or_else(|| PixError::Malformed(format!("{pointer}: valor inválido")))
}

/// The standard's `{codigo, descricao}` as one text.
fn reason(value: Option<&Value>) -> Option<String> {
    let value = value?;
    Some(format!(
        "{}: {}",
        value.get("codigo").and_then(Value::as_str).unwrap_or("?"),
        value.get("descricao").and_then(Value::as_str).unwrap_or("")
    ))
}

/// Why a recurrence or a charge ended: its rejection or its cancellation.
fn ended_because(value: &Value) -> Option<String> {
    let end = value.get("encerramento")?;
    reason(end.get("rejeicao")).or_else(|| reason(end.get("cancelamento")))
}

pub fn read_recurrence(value: &Value) -> Result<Recurrence, PixError> {
    let status = required(value, "/status")?;
    Ok(Recurrence {
        id_rec: required(value, "/idRec")?,
        contract: required(value, "/vinculo/contrato")?,
        status: RecurrenceStatus::parse(&status)
            .ok_or_else(|| PixError::Malformed(format!("status de recorrência {status}")))?,
        pix_copia_e_cola: text(value, "/dadosQR/pixCopiaECola"),
        confirmation_requests: value
            .get("solicitacao")
            .and_then(Value::as_array)
            .map(|list| list.iter().filter_map(|s| text(s, "/idSolicRec")).collect())
            .unwrap_or_default(),
        ended_because: ended_because(value),
    })
}

pub fn read_charge(value: &Value) -> Result<PixCharge, PixError> {
    let status = required(value, "/status")?;
    let mut attempts = Vec::new();
    for attempt in value.get("tentativas").and_then(Value::as_array).into_iter().flatten() {
        let status = required(attempt, "/status")?;
        attempts.push(PixAttempt {
            settles_on: date(attempt, "/dataLiquidacao")?,
            status: AttemptStatus::parse(&status)
                .ok_or_else(|| PixError::Malformed(format!("status de tentativa {status}")))?,
            end_to_end_id: required(attempt, "/endToEndId")?,
            rejection: reason(attempt.get("rejeicao")),
        });
    }
    let mut payments = Vec::new();
    for pix in value.get("pix").and_then(Value::as_array).into_iter().flatten() {
        let at = required(pix, "/horario")?;
        payments.push(PixPayment {
            end_to_end_id: required(pix, "/endToEndId")?,
            amount_cents: amount(pix, "/valor")?,
            at: DateTime::parse_from_rfc3339(&at)
                .map_err(|_| PixError::Malformed("pix.horario".into()))?
                .with_timezone(&Utc),
        });
    }
    Ok(PixCharge {
        txid: required(value, "/txid")?,
        id_rec: required(value, "/idRec")?,
        status: PixChargeStatus::parse(&status)
            .ok_or_else(|| PixError::Malformed(format!("status de cobrança {status}")))?,
        due: date(value, "/calendario/dataDeVencimento")?,
        amount_cents: amount(value, "/valor/original")?,
        attempts,
        payments,
        ended_because: ended_because(value),
    })
}

fn read_refund(value: &Value) -> Result<PixRefund, PixError> {
    let status = required(value, "/status")?;
    Ok(PixRefund {
        id: required(value, "/id")?,
        rtr_id: required(value, "/rtrId")?,
        amount_cents: amount(value, "/valor")?,
        status: RefundStatus::parse(&status)
            .ok_or_else(|| PixError::Malformed(format!("status de devolução {status}")))?,
        reason: text(value, "/motivo"),
    })
}

/// The ids a notification names (`recs[].idRec`, `cobsr[].txid`): nothing else of it is believed;
/// each object is read again from the PSP.
pub fn notified_ids(body: &Value, list: &str, id: &str) -> Vec<String> {
    body.get(list)
        .and_then(Value::as_array)
        .map(|items| items.iter().filter_map(|item| text(item, &format!("/{id}"))).collect())
        .unwrap_or_default()
}

/// The standard's `Problema` as one text: its title, detail and violations.
fn problem(answer: &PixAnswer) -> String {
    let Some(body) = &answer.body else {
        return format!("HTTP {}", answer.status);
    };
    let mut out = text(body, "/title").unwrap_or_else(|| format!("HTTP {}", answer.status));
    if let Some(detail) = text(body, "/detail") {
        out.push_str(": ");
        out.push_str(&detail);
    }
    for violation in body.get("violacoes").and_then(Value::as_array).into_iter().flatten() {
        out.push_str(&format!(
            " [{}: {}]",
            violation.get("propriedade").and_then(Value::as_str).unwrap_or("?"),
            violation.get("razao").and_then(Value::as_str).unwrap_or("")
        ));
    }
    out
}

fn request(method: Method, path: String, body: Option<Value>) -> PixRequest {
    PixRequest {
        method,
        path,
        query: Vec::new(),
        body,
    }
}

fn instant(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(SecondsFormat::Millis, true)
}

impl PixClient {
    pub fn new(transport: Arc<dyn PixTransport>, receiver: ReceiverAccount, clock: Arc<dyn Clock>) -> Self {
        Self {
            transport,
            clock,
            receiver,
            token: Mutex::new(None),
        }
    }

    async fn bearer(&self, fresh: bool) -> Result<String, PixError> {
        let mut cached = self.token.lock().await;
        if !fresh
            && let Some((token, until)) = cached.as_ref()
            && Instant::now() + TOKEN_MARGIN < *until
        {
            return Ok(token.clone());
        }
        let token = self.transport.token().await?;
        *cached = Some((token.value.clone(), Instant::now() + token.lasts));
        Ok(token.value)
    }

    /// Sends a call (again once with a new token if the PSP refused the one it had); the body of
    /// a 2xx, `None` for 404, the standard's problem for the rest.
    async fn call(&self, request: &PixRequest) -> Result<Option<Value>, PixError> {
        let mut answer = self.transport.send(&self.bearer(false).await?, request).await?;
        // A token the PSP no longer takes (401, or 403 as the standard answers it): once more
        // with a new one.
        if matches!(answer.status, 401 | 403) {
            answer = self.transport.send(&self.bearer(true).await?, request).await?;
        }
        match answer.status {
            200..=299 => Ok(Some(answer.body.unwrap_or(Value::Null))),
            404 => Ok(None),
            401 | 403 => Err(PixError::Unauthorized(problem(&answer))),
            429 | 500..=599 => Err(PixError::Unavailable(problem(&answer))),
            _ => Err(PixError::Refused(problem(&answer))),
        }
    }

    async fn found(&self, request: &PixRequest) -> Result<Value, PixError> {
        self.call(request)
            .await?
            .ok_or_else(|| PixError::NotFound(request.path.clone()))
    }

    /// The contract's recurrence the PSP holds, if any, created from `requested_at` on.
    async fn find_recurrence(&self, request: &RecurrenceRequest) -> Result<Option<Recurrence>, PixError> {
        let mut query = PixRequest {
            method: Method::Get,
            path: "/rec".into(),
            query: vec![
                (
                    "inicio".into(),
                    instant(request.requested_at - chrono::Duration::days(1)),
                ),
                ("fim".into(), instant(self.clock.now() + chrono::Duration::days(1))),
                ("cpf".into(), request.debtor_cpf.as_str().to_owned()),
            ],
            body: None,
        };
        let mut page = 0;
        loop {
            let answer = self.found(&query).await?;
            for rec in answer.get("recs").and_then(Value::as_array).into_iter().flatten() {
                let recurrence = read_recurrence(rec)?;
                if recurrence.contract == request.contract && recurrence.status != RecurrenceStatus::Cancelada {
                    // The list's items carry no QR: the recurrence itself does.
                    return Ok(Some(self.recurrence(&recurrence.id_rec).await?));
                }
            }
            let pages = answer
                .pointer("/parametros/paginacao/quantidadeDePaginas")
                .and_then(Value::as_u64)
                .unwrap_or(1);
            page += 1;
            if page >= pages {
                return Ok(None);
            }
            query.query.retain(|(name, _)| name != "paginacao.paginaAtual");
            query.query.push(("paginacao.paginaAtual".into(), page.to_string()));
        }
    }
}

#[async_trait]
impl PixPsp for PixClient {
    async fn create_recurrence(&self, asked: &RecurrenceRequest) -> Result<Recurrence, PixError> {
        if let Some(found) = self.find_recurrence(asked).await? {
            return Ok(found);
        }
        // A location for the recurrence's QR code (jornada 2).
        let location = self.found(&request(Method::Post, "/locrec".into(), None)).await?;
        let loc = location
            .get("id")
            .and_then(Value::as_i64)
            .ok_or_else(|| PixError::Malformed("locrec sem id".into()))?;
        let body = json!({
            "vinculo": {
                "objeto": clip(&asked.object, 35),
                "contrato": clip(&asked.contract, 35),
                "devedor": {"cpf": asked.debtor_cpf.as_str(), "nome": clip(&asked.debtor_name, 140)},
            },
            "calendario": {"dataInicial": asked.first_due.to_string(), "periodicidade": "MENSAL"},
            "valor": {"valorRec": amount_text(asked.amount_cents)},
            "politicaRetentativa": if asked.retries_allowed { "PERMITE_3R_7D" } else { "NAO_PERMITE" },
            "loc": loc,
        });
        let created = self.found(&request(Method::Post, "/rec".into(), Some(body))).await?;
        // Read back: the creation's answer has no QR code yet.
        self.recurrence(&required(&created, "/idRec")?).await
    }

    async fn recurrence(&self, id_rec: &str) -> Result<Recurrence, PixError> {
        read_recurrence(
            &self
                .found(&request(Method::Get, format!("/rec/{id_rec}"), None))
                .await?,
        )
    }

    async fn request_confirmation(
        &self,
        id_rec: &str,
        payer: &PayerAccount,
        debtor_cpf: &Cpf,
        expires_at: DateTime<Utc>,
    ) -> Result<ConfirmationRequest, PixError> {
        let rec = self
            .found(&request(Method::Get, format!("/rec/{id_rec}"), None))
            .await?;
        let under_way = rec
            .get("solicitacao")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .find(|s| {
                matches!(
                    s.get("status").and_then(Value::as_str),
                    Some("CRIADA" | "ENVIADA" | "RECEBIDA" | "ACEITA")
                )
            });
        if let Some(existing) = under_way {
            return Ok(ConfirmationRequest {
                id_solic_rec: required(existing, "/idSolicRec")?,
                status: required(existing, "/status")?,
            });
        }
        let mut destinatario = json!({
            "ispbParticipante": payer.ispb,
            "conta": payer.conta,
            "cpf": debtor_cpf.as_str(),
        });
        if let Some(agencia) = &payer.agencia {
            destinatario["agencia"] = Value::from(agencia.as_str());
        }
        let body = json!({
            "idRec": id_rec,
            "calendario": {"dataExpiracaoSolicitacao": instant(expires_at)},
            "destinatario": destinatario,
        });
        let created = self
            .found(&request(Method::Post, "/solicrec".into(), Some(body)))
            .await?;
        Ok(ConfirmationRequest {
            id_solic_rec: required(&created, "/idSolicRec")?,
            status: required(&created, "/status")?,
        })
    }

    async fn charge(&self, charge: &PixChargeRequest) -> Result<PixCharge, PixError> {
        let path = format!("/cobr/{}", charge.txid);
        if let Some(existing) = self.call(&request(Method::Get, path.clone(), None)).await? {
            return read_charge(&existing);
        }
        let body = json!({
            "idRec": charge.id_rec,
            "infoAdicional": clip(&charge.description, 140),
            "calendario": {"dataDeVencimento": charge.due.to_string()},
            "valor": {"original": amount_text(charge.amount_cents)},
            "ajusteDiaUtil": true,
            "recebedor": {
                "agencia": self.receiver.agencia,
                "conta": self.receiver.conta,
                "tipoConta": self.receiver.tipo_conta,
            },
        });
        read_charge(&self.found(&request(Method::Put, path, Some(body))).await?)
    }

    async fn charge_status(&self, txid: &str) -> Result<PixCharge, PixError> {
        read_charge(&self.found(&request(Method::Get, format!("/cobr/{txid}"), None)).await?)
    }

    async fn retry(&self, txid: &str, on: NaiveDate) -> Result<PixCharge, PixError> {
        let current = self.charge_status(txid).await?;
        if current.attempts.iter().any(|a| a.settles_on == on) {
            return Ok(current);
        }
        read_charge(
            &self
                .found(&request(Method::Post, format!("/cobr/{txid}/retentativa/{on}"), None))
                .await?,
        )
    }

    async fn cancel_recurrence(&self, id_rec: &str) -> Result<Recurrence, PixError> {
        let current = self.recurrence(id_rec).await?;
        if current.status.is_final() {
            return Ok(current);
        }
        let body = json!({"status": "CANCELADA"});
        read_recurrence(
            &self
                .found(&request(Method::Patch, format!("/rec/{id_rec}"), Some(body)))
                .await?,
        )
    }

    async fn cancel_charge(&self, txid: &str) -> Result<PixCharge, PixError> {
        let current = self.charge_status(txid).await?;
        if !matches!(current.status, PixChargeStatus::Criada | PixChargeStatus::Ativa) {
            return Ok(current);
        }
        let body = json!({"status": "CANCELADA"});
        match self
            .found(&request(Method::Patch, format!("/cobr/{txid}"), Some(body)))
            .await
        {
            Ok(answer) => read_charge(&answer),
            // The payer's bank settled it between the read and the cancellation, and the PSP
            // refuses to cancel an ended charge: the charge as it is now says how it ended
            // (`CONCLUIDA` is money received, never to be taken for a cancellation).
            Err(PixError::Refused(reason)) => {
                let now = self.charge_status(txid).await?;
                match now.status {
                    PixChargeStatus::Criada | PixChargeStatus::Ativa => Err(PixError::Refused(reason)),
                    _ => Ok(now),
                }
            }
            Err(other) => Err(other),
        }
    }

    async fn refund(
        &self,
        end_to_end_id: &str,
        id: &str,
        amount_cents: i64,
        description: &str,
    ) -> Result<PixRefund, PixError> {
        let path = format!("/pix/{end_to_end_id}/devolucao/{id}");
        if let Some(existing) = self.call(&request(Method::Get, path.clone(), None)).await? {
            return read_refund(&existing);
        }
        let body = json!({
            "valor": amount_text(amount_cents),
            "natureza": "ORIGINAL",
            "descricao": clip(description, 140),
        });
        read_refund(&self.found(&request(Method::Put, path, Some(body))).await?)
    }
}
