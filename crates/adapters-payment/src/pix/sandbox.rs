//! The sandbox PSP (development only): the subset of the API Pix this service uses, answered in
//! process, with its objects in PostgreSQL (the [`SandboxLedger`]) so that every instance sees the
//! same recurrences and charges. It is as strict as the standard: a request that does not pass the
//! specification ([`PixSchema`]) is refused with the standard's `Problema` naming each violation,
//! and an answer of its own that would not pass is an error, never sent.
//!
//! What a payer and their bank do happens on demand ([`SandboxPsp::approve`], `reject`, `pay`,
//! `fail`), each answering the notification a PSP posts to the payee's webhook.

use super::schema::{Method, Notification, PixSchema};
use super::transport::{AccessToken, PixAnswer, PixRequest, PixTransport};
use async_trait::async_trait;
use chrono::{DateTime, Days, NaiveDate, SecondsFormat, Utc};
use domain::billing::pix::{MAX_PIX_RETRIES, PixError, RETRY_WINDOW_DAYS, amount_text, parse_amount};
use domain::clock::Clock;
use domain::sandbox::SandboxLedger;
use rand::Rng;
use rand::distributions::Alphanumeric;
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;

/// The sandbox PSP's ISPB (the payee's participant in the ids it makes).
pub const SANDBOX_ISPB: &str = "99999004";
/// The payee as the sandbox PSP knows it.
pub const SANDBOX_PAYEE_CNPJ: &str = "11222333000181";
pub const SANDBOX_PAYEE_NAME: &str = "Seguradora (sandbox)";
/// How long a sandbox token lasts.
const TOKEN_LASTS: Duration = Duration::from_secs(3600);
const TOKEN_PREFIX: &str = "sandbox-pix";

/// The rejection a failed attempt carries in the sandbox.
pub const FAILED_ATTEMPT_CODE: &str = "AM02";

pub struct SandboxPsp {
    ledger: Arc<dyn SandboxLedger>,
    schema: Arc<PixSchema>,
    clock: Arc<dyn Clock>,
}

/// An answer: its status and body.
type Answer = (u16, Option<Value>);

fn stored(e: domain::store::StoreError) -> PixError {
    PixError::Unavailable(e.to_string())
}

fn sequence(chars: usize) -> String {
    rand::thread_rng()
        .sample_iter(&Alphanumeric)
        .take(chars)
        .map(char::from)
        .collect()
}

fn instant(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// The standard's `Problema`.
fn problem(status: u16, kind: &str, title: &str, detail: &str, violations: &[String]) -> Answer {
    let mut body = json!({
        "type": format!("https://pix.bcb.gov.br/api/v2/error/{kind}"),
        "title": title,
        "status": status,
        "detail": detail,
    });
    if !violations.is_empty() {
        body["violacoes"] = violations
            .iter()
            .map(|v| {
                let (property, reason) = v.split_once(": ").unwrap_or(("", v.as_str()));
                json!({"razao": reason, "propriedade": property})
            })
            .collect();
    }
    (status, Some(body))
}

fn invalid(kind: &str, detail: &str) -> Answer {
    problem(400, kind, "Operação inválida", detail, &[])
}

fn not_found(detail: &str) -> Answer {
    problem(404, "NaoEncontrado", "Não Encontrado", detail, &[])
}

/// An EMV field: id, two-digit length, value.
fn field(id: &str, value: &str) -> String {
    format!("{id}{:02}{value}", value.len())
}

/// CRC16/CCITT-FALSE, as the BR Code closes its payload.
fn crc16(text: &str) -> String {
    let mut crc: u16 = 0xFFFF;
    for byte in text.bytes() {
        crc ^= u16::from(byte) << 8;
        for _ in 0..8 {
            crc = if crc & 0x8000 != 0 {
                (crc << 1) ^ 0x1021
            } else {
                crc << 1
            };
        }
    }
    format!("{crc:04X}")
}

/// The recurrence's QR code as copy-and-paste text (a BR Code with the recurrence's location).
fn copia_e_cola(location: &str) -> String {
    let payload = format!(
        "{}{}{}{}{}{}6304",
        field("00", "01"),
        field(
            "80",
            &format!("{}{}", field("00", "br.gov.bcb.pix"), field("25", location))
        ),
        field("58", "BR"),
        field("59", "SEGURADORA SANDBOX"),
        field("60", "SAO PAULO"),
        field("62", &field("05", "***")),
    );
    let crc = crc16(&payload);
    format!("{payload}{crc}")
}

impl SandboxPsp {
    pub fn new(ledger: Arc<dyn SandboxLedger>, schema: Arc<PixSchema>, clock: Arc<dyn Clock>) -> Self {
        Self { ledger, schema, clock }
    }

    fn now(&self) -> DateTime<Utc> {
        self.clock.now()
    }

    fn today(&self) -> String {
        self.now().format("%Y%m%d").to_string()
    }

    fn end_to_end_id(&self) -> String {
        format!("E{SANDBOX_ISPB}{}{}", self.now().format("%Y%m%d%H%M"), sequence(11))
    }

    async fn object(&self, id: &str) -> Result<Option<Value>, PixError> {
        self.ledger.get(id).await.map_err(stored)
    }

    async fn put(&self, kind: &str, id: &str, object: Value) -> Result<Value, PixError> {
        self.ledger.put_once(kind, id, id, object).await.map_err(stored)
    }

    async fn replace(&self, id: &str, object: &Value) -> Result<(), PixError> {
        self.ledger.replace(id, object.clone()).await.map_err(stored)
    }

    /// A move of a charge, only if nobody moved it since it was read (as a PSP's own record).
    async fn moved_from(&self, id: &str, read: &Value, object: &Value) -> Result<bool, PixError> {
        self.ledger.replace_if(id, read, object.clone()).await.map_err(stored)
    }

    fn push_update(&self, object: &mut Value, status: &str) {
        object["status"] = Value::from(status);
        if let Some(list) = object.get_mut("atualizacao").and_then(Value::as_array_mut) {
            list.push(json!({"status": status, "data": instant(self.now())}));
        }
    }

    async fn dispatch(&self, request: &PixRequest) -> Result<Answer, PixError> {
        let parts: Vec<&str> = request.path.trim_matches('/').split('/').collect();
        let body = request.body.clone().unwrap_or(Value::Null);
        match (request.method, parts.as_slice()) {
            (Method::Post, ["locrec"]) => self.create_location().await,
            (Method::Post, ["rec"]) => self.create_recurrence(body).await,
            (Method::Get, ["rec"]) => self.list_recurrences(&request.query).await,
            (Method::Get, ["rec", id]) => Ok(match self.object(id).await? {
                Some(rec) => (200, Some(self.with_qr(rec))),
                None => not_found("recorrência não encontrada"),
            }),
            (Method::Patch, ["rec", id]) => self.cancel_recurrence(id, body).await,
            (Method::Patch, ["cobr", txid]) => self.cancel_charge(txid, body).await,
            (Method::Post, ["solicrec"]) => self.create_confirmation(body).await,
            (Method::Put, ["cobr", txid]) => self.create_charge(txid, body).await,
            (Method::Get, ["cobr", txid]) => Ok(match self.object(&format!("cobr:{txid}")).await? {
                Some(charge) => (200, Some(charge)),
                None => not_found("cobrança não encontrada"),
            }),
            (Method::Post, ["cobr", txid, "retentativa", day]) => self.retry(txid, day).await,
            (Method::Put, ["pix", e2eid, "devolucao", id]) => self.refund(e2eid, id, body).await,
            (Method::Get, ["pix", e2eid, "devolucao", id]) => {
                Ok(match self.object(&format!("devolucao:{e2eid}:{id}")).await? {
                    Some(stored) => (200, stored.get("devolucao").cloned()),
                    None => not_found("devolução não encontrada"),
                })
            }
            _ => Ok(not_found("operação fora do subconjunto do sandbox")),
        }
    }

    /// `PATCH /rec/{idRec}` `{status: CANCELADA}`: by the payee, while it has not ended.
    async fn cancel_recurrence(&self, id_rec: &str, body: Value) -> Result<Answer, PixError> {
        let Some(mut rec) = self.object(id_rec).await? else {
            return Ok(not_found("recorrência não encontrada"));
        };
        if body.get("status").and_then(Value::as_str) != Some("CANCELADA") {
            return Ok(invalid(
                "RecOperacaoInvalida",
                "o sandbox só revisa o status para CANCELADA",
            ));
        }
        if !matches!(rec.get("status").and_then(Value::as_str), Some("CRIADA" | "APROVADA")) {
            return Ok(invalid("RecOperacaoInvalida", "a recorrência já foi encerrada"));
        }
        self.push_update(&mut rec, "CANCELADA");
        rec["encerramento"] = json!({"cancelamento": {
            "solicitante": "USUARIO_RECEBEDOR",
            "codigo": "ACCL",
            "descricao": "Cancelada pelo recebedor (sandbox)",
        }});
        self.replace(id_rec, &rec).await?;
        Ok((200, Some(rec)))
    }

    /// `PATCH /cobr/{txid}` `{status: CANCELADA}`: a charge not settled, with its scheduled attempt.
    async fn cancel_charge(&self, txid: &str, body: Value) -> Result<Answer, PixError> {
        let key = format!("cobr:{txid}");
        let Some(read) = self.object(&key).await? else {
            return Ok(not_found("cobrança não encontrada"));
        };
        let mut charge = read.clone();
        if body.get("status").and_then(Value::as_str) != Some("CANCELADA") {
            return Ok(invalid(
                "CobROperacaoInvalida",
                "o sandbox só revisa o status para CANCELADA",
            ));
        }
        if !matches!(charge.get("status").and_then(Value::as_str), Some("CRIADA" | "ATIVA")) {
            return Ok(invalid("CobROperacaoInvalida", "a cobrança já foi encerrada"));
        }
        let now = instant(self.now());
        for attempt in charge
            .get_mut("tentativas")
            .and_then(Value::as_array_mut)
            .into_iter()
            .flatten()
            .filter(|a| a.get("status").and_then(Value::as_str) == Some("AGENDADA"))
        {
            attempt["status"] = Value::from("CANCELADA");
            if let Some(list) = attempt.get_mut("atualizacao").and_then(Value::as_array_mut) {
                list.push(json!({"status": "CANCELADA", "data": now}));
            }
        }
        self.push_update(&mut charge, "CANCELADA");
        if !self.moved_from(&key, &read, &charge).await? {
            // Settled (or moved) by the payer's bank meanwhile: a settled charge is not cancelled.
            return Ok(invalid("CobROperacaoInvalida", "a cobrança já foi encerrada"));
        }
        Ok((200, Some(charge)))
    }

    async fn create_location(&self) -> Result<Answer, PixError> {
        let id: i64 = rand::thread_rng().gen_range(1..i64::from(i32::MAX));
        let location = json!({
            "id": id,
            "location": format!("pix.sandbox.local/qr/v2/rec/{}", uuid::Uuid::new_v4().simple()),
            "tipo": "rec",
            "criacao": instant(self.now()),
        });
        let location = self.put("pix_locrec", &format!("locrec:{id}"), location).await?;
        Ok((201, Some(location)))
    }

    /// The recurrence with its QR code while it awaits its payer (jornada 2).
    fn with_qr(&self, mut rec: Value) -> Value {
        let location = rec.pointer("/loc/location").and_then(Value::as_str).map(str::to_owned);
        if let (Some(location), Some("CRIADA")) = (location, rec.get("status").and_then(Value::as_str)) {
            rec["dadosQR"] = json!({"jornada": "JORNADA_2", "pixCopiaECola": copia_e_cola(&location)});
        }
        rec
    }

    async fn create_recurrence(&self, body: Value) -> Result<Answer, PixError> {
        let retries = body.get("politicaRetentativa").and_then(Value::as_str) == Some("PERMITE_3R_7D");
        let id_rec = format!(
            "R{}{SANDBOX_ISPB}{}{}",
            if retries { "R" } else { "N" },
            self.today(),
            sequence(11)
        );
        let mut rec = json!({
            "idRec": id_rec,
            "vinculo": body["vinculo"],
            "calendario": body["calendario"],
            "politicaRetentativa": body["politicaRetentativa"],
            "recebedor": {"cnpj": SANDBOX_PAYEE_CNPJ, "nome": SANDBOX_PAYEE_NAME},
            "status": "CRIADA",
            "atualizacao": [{"status": "CRIADA", "data": instant(self.now())}],
            "ativacao": {"tipoJornada": "AGUARDANDO_DEFINICAO"},
            "solicitacao": [],
        });
        if let Some(valor) = body.get("valor") {
            rec["valor"] = valor.clone();
        }
        if let Some(loc) = body.get("loc").and_then(Value::as_i64) {
            let Some(mut location) = self.object(&format!("locrec:{loc}")).await? else {
                return Ok(invalid("RecOperacaoInvalida", "location inexistente"));
            };
            location["idRec"] = Value::from(id_rec.as_str());
            rec["loc"] = location;
        }
        let rec = self.put("pix_rec", &id_rec, rec).await?;
        let mut created = rec.clone();
        if let Some(object) = created.as_object_mut() {
            object.remove("solicitacao");
            object.remove("politicaRetentativa");
        }
        Ok((201, Some(created)))
    }

    async fn list_recurrences(&self, query: &[(String, String)]) -> Result<Answer, PixError> {
        let value = |name: &str| query.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone());
        let parse = |text: Option<String>| text.and_then(|t| DateTime::parse_from_rfc3339(&t).ok());
        let (Some(from), Some(to)) = (parse(value("inicio")), parse(value("fim"))) else {
            return Ok(invalid("RecOperacaoInvalida", "inicio e fim são obrigatórios"));
        };
        let containing = match value("cpf") {
            Some(cpf) => json!({"vinculo": {"devedor": {"cpf": cpf}}}),
            None => json!({}),
        };
        let recs: Vec<Value> = self
            .ledger
            .find("pix_rec", containing)
            .await
            .map_err(stored)?
            .into_iter()
            .filter(|rec| {
                rec.pointer("/atualizacao/0/data")
                    .and_then(Value::as_str)
                    .and_then(|t| DateTime::parse_from_rfc3339(t).ok())
                    .is_some_and(|created| created >= from && created <= to)
            })
            .map(|mut rec| {
                if let Some(object) = rec.as_object_mut() {
                    object.remove("dadosQR");
                }
                rec
            })
            .collect();
        let mut parametros = json!({
            "inicio": value("inicio"),
            "fim": value("fim"),
            "paginacao": {
                "paginaAtual": 0,
                "itensPorPagina": 100,
                "quantidadeDePaginas": 1,
                "quantidadeTotalDeItens": recs.len(),
            },
        });
        if let Some(cpf) = value("cpf") {
            parametros["cpf"] = Value::from(cpf);
        }
        Ok((200, Some(json!({"parametros": parametros, "recs": recs}))))
    }

    async fn create_confirmation(&self, body: Value) -> Result<Answer, PixError> {
        let id_rec = body.get("idRec").and_then(Value::as_str).unwrap_or_default().to_owned();
        let Some(mut rec) = self.object(&id_rec).await? else {
            return Ok(not_found("recorrência não encontrada"));
        };
        if rec.get("status").and_then(Value::as_str) != Some("CRIADA") {
            return Ok(invalid(
                "SolicRecOperacaoInvalida",
                "a recorrência não aguarda confirmação",
            ));
        }
        let id = format!("SC{SANDBOX_ISPB}{}{}", self.today(), sequence(11));
        let now = instant(self.now());
        let request = json!({
            "idSolicRec": id,
            "idRec": id_rec,
            "calendario": body["calendario"],
            "destinatario": body["destinatario"],
            "status": "ENVIADA",
            "atualizacao": [{"status": "CRIADA", "data": now}, {"status": "ENVIADA", "data": now}],
        });
        if let Some(list) = rec.get_mut("solicitacao").and_then(Value::as_array_mut) {
            list.push(request.clone());
        }
        self.replace(&id_rec, &rec).await?;
        Ok((201, Some(request)))
    }

    async fn create_charge(&self, txid: &str, body: Value) -> Result<Answer, PixError> {
        let key = format!("cobr:{txid}");
        if self.object(&key).await?.is_some() {
            return Ok(invalid("CobROperacaoInvalida", "o txid já identifica uma cobrança"));
        }
        let id_rec = body.get("idRec").and_then(Value::as_str).unwrap_or_default();
        let Some(rec) = self.object(id_rec).await? else {
            return Ok(invalid("CobROperacaoInvalida", "recorrência inexistente"));
        };
        if rec.get("status").and_then(Value::as_str) != Some("APROVADA") {
            return Ok(invalid("CobROperacaoInvalida", "a recorrência não está aprovada"));
        }
        let due = body
            .pointer("/calendario/dataDeVencimento")
            .cloned()
            .unwrap_or(Value::Null);
        let now = instant(self.now());
        let mut recebedor = body.get("recebedor").cloned().unwrap_or(json!({}));
        recebedor["cnpj"] = Value::from(SANDBOX_PAYEE_CNPJ);
        recebedor["nome"] = Value::from(SANDBOX_PAYEE_NAME);
        let mut charge = json!({
            "idRec": id_rec,
            "txid": txid,
            "calendario": {"criacao": self.now().date_naive().to_string(), "dataDeVencimento": due},
            "valor": body["valor"],
            "ajusteDiaUtil": body.get("ajusteDiaUtil").cloned().unwrap_or(Value::Bool(true)),
            "recebedor": recebedor,
            "politicaRetentativa": rec["politicaRetentativa"],
            "status": "ATIVA",
            "atualizacao": [{"status": "CRIADA", "data": now}, {"status": "ATIVA", "data": now}],
            "tentativas": [{
                "dataLiquidacao": due,
                "tipo": "AGND",
                "status": "AGENDADA",
                "endToEndId": self.end_to_end_id(),
                "atualizacao": [{"status": "AGENDADA", "data": now}],
            }],
        });
        if let Some(info) = body.get("infoAdicional") {
            charge["infoAdicional"] = info.clone();
        }
        let charge = self.put("pix_cobr", &key, charge).await?;
        Ok((201, Some(charge)))
    }

    async fn retry(&self, txid: &str, day: &str) -> Result<Answer, PixError> {
        let key = format!("cobr:{txid}");
        let Some(mut charge) = self.object(&key).await? else {
            return Ok(not_found("cobrança não encontrada"));
        };
        if charge.get("politicaRetentativa").and_then(Value::as_str) != Some("PERMITE_3R_7D") {
            return Ok(invalid(
                "CobRTentativaInvalida",
                "a recorrência não permite novas tentativas",
            ));
        }
        let due: Option<NaiveDate> = charge
            .pointer("/calendario/dataDeVencimento")
            .and_then(Value::as_str)
            .and_then(|d| d.parse().ok());
        let (Some(due), Ok(on)) = (due, day.parse::<NaiveDate>()) else {
            return Ok(invalid("CobRTentativaInvalida", "data inválida"));
        };
        let attempts = charge
            .get("tentativas")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let retries = attempts
            .iter()
            .filter(|a| a.get("tipo").and_then(Value::as_str) == Some("NTAG"))
            .count();
        let last_rejected = attempts.last().and_then(|a| a.get("status")).and_then(Value::as_str) == Some("REJEITADA");
        if charge.get("status").and_then(Value::as_str) != Some("ATIVA") || !last_rejected {
            return Ok(invalid(
                "CobRTentativaInvalida",
                "a cobrança não tem tentativa recusada a refazer",
            ));
        }
        if retries >= MAX_PIX_RETRIES || on <= due || on > due + Days::new(RETRY_WINDOW_DAYS) {
            return Ok(invalid(
                "CobRTentativaInvalida",
                "nova tentativa fora das regras: até 3, em até 7 dias corridos do vencimento",
            ));
        }
        let now = instant(self.now());
        if let Some(list) = charge.get_mut("tentativas").and_then(Value::as_array_mut) {
            list.push(json!({
                "dataLiquidacao": on.to_string(),
                "tipo": "NTAG",
                "status": "AGENDADA",
                "endToEndId": self.end_to_end_id(),
                "atualizacao": [{"status": "SOLICITADA", "data": now}, {"status": "AGENDADA", "data": now}],
            }));
        }
        self.replace(&key, &charge).await?;
        Ok((201, Some(charge)))
    }

    async fn refund(&self, e2eid: &str, id: &str, body: Value) -> Result<Answer, PixError> {
        let key = format!("devolucao:{e2eid}:{id}");
        if self.object(&key).await?.is_some() {
            return Ok(invalid(
                "DevolucaoOperacaoInvalida",
                "o id já identifica uma devolução deste Pix",
            ));
        }
        let charges = self
            .ledger
            .find("pix_cobr", json!({"pix": [{"endToEndId": e2eid}]}))
            .await
            .map_err(stored)?;
        let Some(paid) = charges
            .iter()
            .flat_map(|c| c.get("pix").and_then(Value::as_array).cloned().unwrap_or_default())
            .find(|p| p.get("endToEndId").and_then(Value::as_str) == Some(e2eid))
        else {
            return Ok(not_found("Pix não encontrado"));
        };
        let paid_cents = paid
            .get("valor")
            .and_then(Value::as_str)
            .and_then(parse_amount)
            .unwrap_or(0);
        let given_back: i64 = self
            .ledger
            .find("pix_devolucao", json!({"e2eid": e2eid}))
            .await
            .map_err(stored)?
            .iter()
            .filter_map(|d| {
                d.pointer("/devolucao/valor")
                    .and_then(Value::as_str)
                    .and_then(parse_amount)
            })
            .sum();
        let asked = body
            .get("valor")
            .and_then(Value::as_str)
            .and_then(parse_amount)
            .unwrap_or(0);
        if asked + given_back > paid_cents {
            return Ok(invalid(
                "DevolucaoOperacaoInvalida",
                &format!(
                    "a devolução excede o valor do Pix ({})",
                    amount_text(paid_cents - given_back)
                ),
            ));
        }
        let now = instant(self.now());
        let mut devolucao = json!({
            "id": id,
            "rtrId": format!("D{SANDBOX_ISPB}{}{}", self.now().format("%Y%m%d%H%M"), sequence(11)),
            "valor": amount_text(asked),
            "natureza": "ORIGINAL",
            "horario": {"solicitacao": now, "liquidacao": now},
            "status": "DEVOLVIDO",
        });
        if let Some(description) = body.get("descricao") {
            devolucao["descricao"] = description.clone();
        }
        let stored = self
            .put("pix_devolucao", &key, json!({"e2eid": e2eid, "devolucao": devolucao}))
            .await?;
        Ok((201, stored.get("devolucao").cloned()))
    }

    /// A notification checked against the standard before it is handed over.
    fn notification(&self, kind: Notification, body: Value) -> Result<Value, PixError> {
        self.schema
            .check_notification(kind, &body)
            .map_err(|v| PixError::Malformed(format!("notificação do sandbox fora do padrão: {v}")))?;
        Ok(body)
    }

    fn rec_notification(&self, rec: &Value) -> Result<Value, PixError> {
        let mut item = json!({
            "idRec": rec["idRec"],
            "status": rec["status"],
            "atualizacao": rec["atualizacao"],
        });
        for key in ["encerramento", "ativacao"] {
            if let Some(value) = rec.get(key) {
                item[key] = value.clone();
            }
        }
        self.notification(Notification::Rec, json!({"recs": [item]}))
    }

    fn charge_notification(&self, charge: &Value) -> Result<Value, PixError> {
        let mut item = json!({
            "idRec": charge["idRec"],
            "txid": charge["txid"],
            "status": charge["status"],
            "atualizacao": charge["atualizacao"],
        });
        for key in ["tentativas", "pix", "encerramento"] {
            if let Some(value) = charge.get(key) {
                item[key] = value.clone();
            }
        }
        self.notification(Notification::CobR, json!({"cobsr": [item]}))
    }

    async fn recurrence_awaiting(&self, id_rec: &str) -> Result<Value, PixError> {
        let rec = self
            .object(id_rec)
            .await?
            .ok_or_else(|| PixError::NotFound(format!("recorrência {id_rec}")))?;
        if rec.get("status").and_then(Value::as_str) != Some("CRIADA") {
            return Err(PixError::Refused(format!(
                "a recorrência {id_rec} não aguarda o pagador"
            )));
        }
        Ok(rec)
    }

    /// The payer approves the recurrence in their bank (by the confirmation request when there is
    /// one, jornada 1; else by its QR code, jornada 2). Answers the notification.
    pub async fn approve(&self, id_rec: &str) -> Result<Value, PixError> {
        let mut rec = self.recurrence_awaiting(id_rec).await?;
        let requested = rec
            .get("solicitacao")
            .and_then(Value::as_array)
            .is_some_and(|l| !l.is_empty());
        self.push_update(&mut rec, "APROVADA");
        rec["ativacao"] = json!({"tipoJornada": if requested { "JORNADA_1" } else { "JORNADA_2" }});
        let cpf = rec.pointer("/vinculo/devedor/cpf").cloned().unwrap_or(Value::Null);
        let ispb = rec
            .pointer("/solicitacao/0/destinatario/ispbParticipante")
            .cloned()
            .unwrap_or(Value::from("00000000"));
        rec["pagador"] = json!({"cpf": cpf, "ispbParticipante": ispb});
        for request in rec
            .get_mut("solicitacao")
            .and_then(Value::as_array_mut)
            .into_iter()
            .flatten()
        {
            request["status"] = Value::from("ACEITA");
            if let Some(list) = request.get_mut("atualizacao").and_then(Value::as_array_mut) {
                list.push(json!({"status": "ACEITA", "data": instant(self.clock.now())}));
            }
        }
        self.replace(id_rec, &rec).await?;
        self.rec_notification(&rec)
    }

    /// The payer refuses the recurrence. Answers the notification.
    pub async fn reject(&self, id_rec: &str) -> Result<Value, PixError> {
        let mut rec = self.recurrence_awaiting(id_rec).await?;
        self.push_update(&mut rec, "REJEITADA");
        rec["encerramento"] =
            json!({"rejeicao": {"codigo": "AP13", "descricao": "Rejeitada pelo usuário pagador (sandbox)"}});
        self.replace(id_rec, &rec).await?;
        self.rec_notification(&rec)
    }

    async fn scheduled_attempt(&self, txid: &str) -> Result<(String, Value), PixError> {
        let key = format!("cobr:{txid}");
        let charge = self
            .object(&key)
            .await?
            .ok_or_else(|| PixError::NotFound(format!("cobrança {txid}")))?;
        let scheduled = charge
            .pointer("/tentativas")
            .and_then(Value::as_array)
            .and_then(|l| l.last())
            .and_then(|a| a.get("status"))
            .and_then(Value::as_str)
            == Some("AGENDADA");
        if charge.get("status").and_then(Value::as_str) != Some("ATIVA") || !scheduled {
            return Err(PixError::Refused(format!(
                "a cobrança {txid} não tem tentativa agendada"
            )));
        }
        Ok((key, charge))
    }

    fn settle_last_attempt(&self, charge: &mut Value, status: &str) -> Option<Value> {
        let now = instant(self.now());
        let attempt = charge.get_mut("tentativas").and_then(Value::as_array_mut)?.last_mut()?;
        attempt["status"] = Value::from(status);
        if let Some(list) = attempt.get_mut("atualizacao").and_then(Value::as_array_mut) {
            list.push(json!({"status": status, "data": now}));
        }
        Some(attempt.clone())
    }

    /// The payer's bank settles the scheduled attempt. Answers the notification.
    pub async fn pay(&self, txid: &str) -> Result<Value, PixError> {
        let (key, read) = self.scheduled_attempt(txid).await?;
        let mut charge = read.clone();
        let attempt = self
            .settle_last_attempt(&mut charge, "PAGA")
            .ok_or_else(|| PixError::Malformed("tentativa ausente".into()))?;
        charge["pix"] = json!([{
            "endToEndId": attempt["endToEndId"],
            "txid": txid,
            "valor": charge.pointer("/valor/original").cloned().unwrap_or(Value::Null),
            "horario": instant(self.now()),
        }]);
        self.push_update(&mut charge, "CONCLUIDA");
        if !self.moved_from(&key, &read, &charge).await? {
            return Err(PixError::Refused(format!(
                "a cobrança {txid} mudou antes da liquidação (cancelada pelo recebedor)"
            )));
        }
        self.charge_notification(&charge)
    }

    /// The payer's bank does not settle the scheduled attempt (no balance). Answers the
    /// notification; the charge stays active for a retry.
    pub async fn fail(&self, txid: &str) -> Result<Value, PixError> {
        let (key, read) = self.scheduled_attempt(txid).await?;
        let mut charge = read.clone();
        self.settle_last_attempt(&mut charge, "REJEITADA");
        if let Some(attempt) = charge
            .get_mut("tentativas")
            .and_then(Value::as_array_mut)
            .and_then(|l| l.last_mut())
        {
            attempt["rejeicao"] = json!({
                "codigo": FAILED_ATTEMPT_CODE,
                "descricao": "Pagamento não realizado pelo PSP do pagador (sandbox)",
            });
        }
        if !self.moved_from(&key, &read, &charge).await? {
            return Err(PixError::Refused(format!(
                "a cobrança {txid} mudou antes da tentativa (cancelada pelo recebedor)"
            )));
        }
        self.charge_notification(&charge)
    }
}

#[async_trait]
impl PixTransport for SandboxPsp {
    async fn token(&self) -> Result<AccessToken, PixError> {
        let until = self.now().timestamp() + TOKEN_LASTS.as_secs() as i64;
        Ok(AccessToken {
            value: format!("{TOKEN_PREFIX}.{until}.{}", sequence(24)),
            lasts: TOKEN_LASTS,
        })
    }

    async fn send(&self, token: &str, request: &PixRequest) -> Result<PixAnswer, PixError> {
        let valid = token
            .strip_prefix(TOKEN_PREFIX)
            .and_then(|rest| rest.split('.').nth(1))
            .and_then(|until| until.parse::<i64>().ok())
            .is_some_and(|until| until > self.now().timestamp());
        let (status, body) = if !valid {
            problem(
                403,
                "AcessoNegado",
                "Acesso Negado",
                "token ausente, inválido ou expirado",
                &[],
            )
        } else if let Err(violations) =
            self.schema
                .check_request(request.method, &request.path, &request.query, request.body.as_ref())
        {
            problem(
                400,
                "RequisicaoInvalida",
                "Requisição inválida",
                "a requisição não respeita o esquema da API Pix",
                &violations.0,
            )
        } else {
            self.dispatch(request).await?
        };
        if let Err(violations) = self
            .schema
            .check_response(request.method, &request.path, status, body.as_ref())
        {
            tracing::error!(path = %request.path, %status, %violations, "o sandbox Pix respondeu fora do padrão");
            return Err(PixError::Malformed(format!(
                "resposta do sandbox a {} {} fora do padrão: {violations}",
                request.method.as_str(),
                request.path
            )));
        }
        Ok(PixAnswer { status, body })
    }
}
