//! The bodies of delivered events: `{"type", "timestamp", "data"}`, serialised once when the event
//! is queued so that every retry carries the same bytes. Each kind's data names the proposal by
//! its identifier and carries `sequence`: the number of the proposal's events of that kind (1, 2,
//! …), so that a receiver can drop one older than one it already applied. No kind carries
//! personal data: a receiver reads the customer through route 7.

use crate::billing::term::ContractTerm;
use crate::billing::{Billing, Charge};
use crate::proposals::lifecycle::StatusEvent;
use crate::signature::PartyRole;
use crate::values::{
    BillingStatus, ChargeStatus, EventKind, Flow, PartyStatus, ProposalStatus, ReasonCategory, ShippingType,
};
use chrono::{DateTime, Utc};
use serde::Serialize;
use uuid::Uuid;

use crate::wire::timestamp;

/// Declares a delivered body: the event's kind, when it happened (UTC, milliseconds), and its data.
macro_rules! event_body {
    ($(#[$meta:meta])* $name:ident, $data:ty, $description:literal) => {
        $(#[$meta])*
        #[derive(Debug, Serialize)]
        #[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
        #[cfg_attr(feature = "openapi", schema(description = $description))]
        pub struct $name {
            #[serde(rename = "type")]
            #[cfg_attr(feature = "openapi", schema(value_type = EventKind))]
            pub kind: EventKind,
            #[cfg_attr(feature = "openapi", schema(format = DateTime, example = "2026-11-22T10:00:00.000Z"))]
            pub timestamp: String,
            pub data: $data,
        }
    };
}

event_body!(
    /// The body of an `ALTERAÇÃO_STATUS` delivery.
    StatusChangeEvent, StatusChangeData, "Corpo de uma entrega `ALTERAÇÃO_STATUS`."
);
event_body!(
    /// The body of a `PROPOSTA_CRIADA` delivery.
    ProposalCreatedEvent, ProposalCreatedData, "Corpo de uma entrega `PROPOSTA_CRIADA`."
);
event_body!(
    /// The body of a `PROPOSTA_ENVIADA` delivery.
    ProposalSentEvent, ProposalSentData, "Corpo de uma entrega `PROPOSTA_ENVIADA`."
);
event_body!(
    /// The body of an `ASSINATURA_REGISTRADA` delivery.
    SignatureRecordedEvent, SignatureRecordedData, "Corpo de uma entrega `ASSINATURA_REGISTRADA`."
);
event_body!(
    /// The body of a `PAGAMENTO_ALTERADO` delivery.
    PaymentChangedEvent, PaymentChangedData, "Corpo de uma entrega `PAGAMENTO_ALTERADO`."
);
event_body!(
    /// The body of a `PENDENCIA_ABERTA` delivery.
    PendingOpenedEvent, PendingOpenedData, "Corpo de uma entrega `PENDENCIA_ABERTA`."
);
event_body!(
    /// The body of a `PENDENCIA_RESPONDIDA` delivery.
    PendingAnsweredEvent, PendingAnsweredData, "Corpo de uma entrega `PENDENCIA_RESPONDIDA`."
);
event_body!(
    /// The body of a `COBRANCA_ALTERADA` delivery.
    ChargeChangedEvent, ChargeChangedData, "Corpo de uma entrega `COBRANCA_ALTERADA`."
);
event_body!(
    /// The body of an `AVISO_REGISTRADO` delivery.
    NoticeRecordedEvent, NoticeRecordedData, "Corpo de uma entrega `AVISO_REGISTRADO`."
);
event_body!(
    /// The body of a `VIGENCIA_RENOVADA` delivery.
    TermRenewedEvent, TermRenewedData, "Corpo de uma entrega `VIGENCIA_RENOVADA`."
);
event_body!(
    /// The body of a `TESTE` delivery.
    TestEvent, TestData, "Corpo de uma entrega `TESTE`."
);

/// The data of `ALTERAÇÃO_STATUS`. `sequence` grows by one per change of the proposal, so that a
/// receiver can drop an event older than one it already applied (delivery order is not guaranteed).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(
    feature = "openapi",
    schema(
        description = "Dados de `ALTERAÇÃO_STATUS`. `sequence` cresce de um a cada mudança da proposta: o receptor descarta um evento mais antigo que um já aplicado (a ordem de entrega não é garantida)."
    )
)]
pub struct StatusChangeData {
    pub identificador: String,
    #[cfg_attr(feature = "openapi", schema(value_type = crate::values::ProposalStatus))]
    pub status_anterior: ProposalStatus,
    #[cfg_attr(feature = "openapi", schema(value_type = crate::values::ProposalStatus))]
    pub status_atual: ProposalStatus,
    #[cfg_attr(feature = "openapi", schema(format = DateTime))]
    pub alterado_em: String,
    pub alterado_por: String,
    /// As palavras do motivo; nulo numa recusa ou num cancelamento da retaguarda, cujo motivo o
    /// vendedor lê só pela categoria (`categoriaMotivo`).
    pub motivo: Option<String>,
    /// A categoria do motivo de uma recusa ou de um cancelamento da retaguarda (`saude`,
    /// `documentacao`, `risco_financeiro`, `declaracao_inexata`, `a_pedido`, `outros`); nula nas
    /// outras mudanças.
    #[cfg_attr(feature = "openapi", schema(value_type = Option<crate::values::ReasonCategory>))]
    pub categoria_motivo: Option<ReasonCategory>,
    pub sequence: i32,
}

/// The data of `PROPOSTA_CRIADA` (routes 5 and 6): a proposal is created once, so its `sequence`
/// is always 1.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(
    feature = "openapi",
    schema(
        description = "Dados de `PROPOSTA_CRIADA` (rotas 5 e 6). Uma proposta é criada uma vez: `sequence` é sempre 1."
    )
)]
pub struct ProposalCreatedData {
    pub identificador: String,
    #[cfg_attr(feature = "openapi", schema(value_type = crate::values::ProposalStatus))]
    pub status: ProposalStatus,
    #[cfg_attr(feature = "openapi", schema(value_type = crate::values::Flow))]
    pub fluxo: Flow,
    /// Em centavos.
    #[cfg_attr(feature = "openapi", schema(example = 141200))]
    pub valor: i64,
    #[cfg_attr(feature = "openapi", schema(format = DateTime))]
    pub criado_em: String,
    pub criado_por: String,
    pub sequence: i32,
}

/// The data of `PROPOSTA_ENVIADA`: the first sending for signature (route 12) and each resend.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(
    feature = "openapi",
    schema(
        description = "Dados de `PROPOSTA_ENVIADA`: o primeiro envio para assinatura (rota 12) e cada reenvio. `sequence` conta os envios da proposta; `reenvio` é falso só no primeiro."
    )
)]
pub struct ProposalSentData {
    pub identificador: String,
    pub reenvio: bool,
    #[cfg_attr(feature = "openapi", schema(value_type = crate::values::ShippingType))]
    pub canal: ShippingType,
    #[cfg_attr(feature = "openapi", schema(format = DateTime))]
    pub enviado_em: String,
    pub enviado_por: String,
    pub sequence: i32,
}

/// The data of `ASSINATURA_REGISTRADA`: one party signed or refused.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(
    feature = "openapi",
    schema(
        description = "Dados de `ASSINATURA_REGISTRADA`: uma parte assinou ou recusou (um prazo vencido conta como recusa). `sequence` conta os registros de assinatura da proposta."
    )
)]
pub struct SignatureRecordedData {
    pub identificador: String,
    #[cfg_attr(feature = "openapi", schema(value_type = crate::signature::PartyRole))]
    pub parte: PartyRole,
    #[cfg_attr(feature = "openapi", schema(value_type = crate::values::PartyStatus))]
    pub status: PartyStatus,
    #[cfg_attr(feature = "openapi", schema(format = DateTime))]
    pub registrado_em: String,
    pub sequence: i32,
}

/// The data of `PAGAMENTO_ALTERADO`: the state of the proposal's subscription on the payment
/// platform, as the platform spells it, when it is created and whenever it changes.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(
    feature = "openapi",
    schema(
        description = "Dados de `PAGAMENTO_ALTERADO`: o estado da assinatura recorrente da proposta na plataforma de pagamento, como a plataforma o escreve (`incomplete`, `active`, `past_due`, `unpaid`, `canceled`, …), ao ser criada e a cada mudança. `statusAnterior` é nulo na criação. `sequence` conta as mudanças da proposta."
    )
)]
pub struct PaymentChangedData {
    pub identificador: String,
    pub status_anterior: Option<String>,
    #[cfg_attr(feature = "openapi", schema(example = "active"))]
    pub status: String,
    #[cfg_attr(feature = "openapi", schema(format = DateTime))]
    pub alterado_em: String,
    pub sequence: i32,
}

/// The data of `TESTE`.
#[derive(Debug, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "openapi", schema(description = "Dados de `TESTE`."))]
pub struct TestData {
    #[cfg_attr(feature = "openapi", schema(value_type = String, example = "0f8fad5b-d9cb-469f-a165-70867728950e"))]
    pub uuid: Uuid,
    pub mensagem: String,
}

fn serialise<T: Serialize>(event: &T) -> String {
    // A struct of strings and numbers always serialises.
    serde_json::to_string(event).unwrap_or_default()
}

/// A proposal's status change.
pub fn status_change(event: &StatusEvent, identifier: &str) -> String {
    serialise(&StatusChangeEvent {
        kind: EventKind::StatusChange,
        timestamp: timestamp(event.changed_at),
        data: StatusChangeData {
            identificador: identifier.to_owned(),
            status_anterior: event.from,
            status_atual: event.to,
            alterado_em: timestamp(event.changed_at),
            alterado_por: event.changed_by.clone(),
            // A categorised reason's words are never a subscriber's: every audience of a delivery
            // may be a seller (decision 283).
            motivo: event.reason.clone().filter(|_| event.reason_category.is_none()),
            categoria_motivo: event.reason_category,
            sequence: event.sequence,
        },
    })
}

/// A proposal's creation (`PROPOSTA_CRIADA`).
pub fn proposal_created(identifier: &str, flow: Flow, value: i64, created_by: &str, at: DateTime<Utc>) -> String {
    serialise(&ProposalCreatedEvent {
        kind: EventKind::ProposalCreated,
        timestamp: timestamp(at),
        data: ProposalCreatedData {
            identificador: identifier.to_owned(),
            status: ProposalStatus::New,
            fluxo: flow,
            valor: value,
            criado_em: timestamp(at),
            criado_por: created_by.to_owned(),
            sequence: 1,
        },
    })
}

/// A sending for signature (`PROPOSTA_ENVIADA`): the first when `sequence` is 1, a resend after.
pub fn proposal_sent(
    identifier: &str,
    channel: ShippingType,
    sent_by: &str,
    at: DateTime<Utc>,
    sequence: i32,
) -> String {
    serialise(&ProposalSentEvent {
        kind: EventKind::ProposalSent,
        timestamp: timestamp(at),
        data: ProposalSentData {
            identificador: identifier.to_owned(),
            reenvio: sequence > 1,
            canal: channel,
            enviado_em: timestamp(at),
            enviado_por: sent_by.to_owned(),
            sequence,
        },
    })
}

/// A party's signature or refusal (`ASSINATURA_REGISTRADA`).
pub fn signature_recorded(
    identifier: &str,
    party: PartyRole,
    status: PartyStatus,
    at: DateTime<Utc>,
    sequence: i32,
) -> String {
    serialise(&SignatureRecordedEvent {
        kind: EventKind::SignatureRecorded,
        timestamp: timestamp(at),
        data: SignatureRecordedData {
            identificador: identifier.to_owned(),
            parte: party,
            status,
            registrado_em: timestamp(at),
            sequence,
        },
    })
}

/// A new state of the proposal's subscription on the payment platform (`PAGAMENTO_ALTERADO`).
pub fn payment_changed(
    identifier: &str,
    previous: Option<&str>,
    status: &str,
    at: DateTime<Utc>,
    sequence: i32,
) -> String {
    serialise(&PaymentChangedEvent {
        kind: EventKind::PaymentChanged,
        timestamp: timestamp(at),
        data: PaymentChangedData {
            identificador: identifier.to_owned(),
            status_anterior: previous.map(str::to_owned),
            status: status.to_owned(),
            alterado_em: timestamp(at),
            sequence,
        },
    })
}

/// The data of `PENDENCIA_ABERTA`: the back office asked for documents; the acceptance clock
/// stands still from `suspensoEm` until the answer. What was asked (`itens`, `nota`) reaches the
/// seller only when the seller answers (decision 289).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(
    feature = "openapi",
    schema(
        description = "Dados de `PENDENCIA_ABERTA`: a retaguarda pediu documentos (`pendencia` é o id do pedido); o prazo de aceitação fica suspenso desde `suspensoEm` até a resposta. `destinatario` diz quem responde: `vendedor` em `POST /proposal/{identificador}/pending/{id}/answer`, com `itens` e `nota`; `proponente`, pelo link enviado ao seu e-mail, e então `itens` vem vazio e `nota` nula (o vendedor sabe só que documentos foram pedidos e, com `PENDENCIA_RESPONDIDA`, enviados; decisão 289). `categoriaMotivo` é a categoria do pedido. `sequence` conta os pedidos da proposta."
    )
)]
pub struct PendingOpenedData {
    pub identificador: String,
    pub pendencia: i64,
    pub itens: Vec<String>,
    pub nota: Option<String>,
    #[cfg_attr(feature = "openapi", schema(example = "documentacao"))]
    pub categoria_motivo: String,
    #[cfg_attr(feature = "openapi", schema(example = "vendedor"))]
    pub destinatario: String,
    #[cfg_attr(feature = "openapi", schema(format = DateTime))]
    pub suspenso_em: String,
    pub sequence: i32,
}

/// The data of `PENDENCIA_RESPONDIDA`: the seller answered; the clock runs again to `prazo`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(
    feature = "openapi",
    schema(
        description = "Dados de `PENDENCIA_RESPONDIDA`: o vendedor respondeu ao pedido `pendencia` com `arquivos` arquivo(s); o prazo de aceitação volta a correr até `prazo` (adiado pelo tempo suspenso). `sequence` conta as respostas da proposta."
    )
)]
pub struct PendingAnsweredData {
    pub identificador: String,
    pub pendencia: i64,
    pub arquivos: i64,
    #[cfg_attr(feature = "openapi", schema(format = DateTime))]
    pub respondido_em: String,
    #[cfg_attr(feature = "openapi", schema(format = DateTime))]
    pub prazo: String,
    pub sequence: i32,
}

/// A request for documents opened (`PENDENCIA_ABERTA`): what was asked only when the seller
/// answers it.
pub fn pending_opened(
    identifier: &str,
    pending: i64,
    request: &crate::acceptance::pending::DocumentsRequest,
    recipient: crate::acceptance::pending::PendingRecipient,
    at: DateTime<Utc>,
    sequence: i32,
) -> String {
    let sellers = recipient == crate::acceptance::pending::PendingRecipient::Seller;
    serialise(&PendingOpenedEvent {
        kind: EventKind::PendingOpened,
        timestamp: timestamp(at),
        data: PendingOpenedData {
            identificador: identifier.to_owned(),
            pendencia: pending,
            itens: if sellers { request.items.clone() } else { Vec::new() },
            nota: request.note.clone().filter(|_| sellers),
            categoria_motivo: request.category.as_str().to_owned(),
            destinatario: recipient.as_str().to_owned(),
            suspenso_em: timestamp(at),
            sequence,
        },
    })
}

/// A request for documents answered (`PENDENCIA_RESPONDIDA`).
pub fn pending_answered(
    identifier: &str,
    pending: i64,
    files: i64,
    at: DateTime<Utc>,
    deadline: DateTime<Utc>,
    sequence: i32,
) -> String {
    serialise(&PendingAnsweredEvent {
        kind: EventKind::PendingAnswered,
        timestamp: timestamp(at),
        data: PendingAnsweredData {
            identificador: identifier.to_owned(),
            pendencia: pending,
            arquivos: files,
            respondido_em: timestamp(at),
            prazo: timestamp(deadline),
            sequence,
        },
    })
}

/// One charge as `COBRANCA_ALTERADA` tells it (no personal data: the account or the payroll
/// number stay in route 7).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(
    feature = "openapi",
    schema(
        description = "Uma cobrança do contrato: o período (1 para o primeiro), o vencimento (dia de Brasília), o valor em centavos, a forma, o status, as tentativas feitas e a próxima, quando paga e por que falhou ou foi cancelada."
    )
)]
pub struct ChargeData {
    pub periodo: i32,
    #[cfg_attr(feature = "openapi", schema(format = Date, example = "2026-12-08"))]
    pub vencimento: String,
    pub valor: i64,
    #[cfg_attr(feature = "openapi", schema(value_type = crate::values::PaymentType))]
    pub metodo: String,
    #[cfg_attr(feature = "openapi", schema(value_type = ChargeStatus))]
    pub status: ChargeStatus,
    pub tentativas: i32,
    #[cfg_attr(feature = "openapi", schema(format = Date))]
    pub proxima_tentativa: Option<String>,
    #[cfg_attr(feature = "openapi", schema(format = DateTime))]
    pub pago_em: Option<String>,
    pub motivo: Option<String>,
}

impl From<&Charge> for ChargeData {
    fn from(c: &Charge) -> Self {
        Self {
            periodo: c.period,
            vencimento: c.due_date.to_string(),
            valor: c.amount,
            metodo: c.method.clone(),
            status: c.status,
            tentativas: c.attempts,
            proxima_tentativa: c.next_attempt.map(|d| d.to_string()),
            pago_em: c.paid_at.map(timestamp),
            motivo: c.reason.clone(),
        }
    }
}

/// The data of `COBRANCA_ALTERADA`: a charge created or changed (`cobranca`), or the contract's
/// billing status moved (`cobranca` null), with the billing status that stands after it.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(
    feature = "openapi",
    schema(
        description = "Dados de `COBRANCA_ALTERADA`: uma cobrança criada ou alterada (`cobranca`), ou a situação da cobrança do contrato mudou (`cobranca` nulo: em atraso, suspenso, em dia de novo); `situacao` é a que vale depois. `sequence` conta os eventos de cobrança da proposta."
    )
)]
pub struct ChargeChangedData {
    pub identificador: String,
    pub cobranca: Option<ChargeData>,
    #[cfg_attr(feature = "openapi", schema(value_type = BillingStatus))]
    pub situacao: BillingStatus,
    #[cfg_attr(feature = "openapi", schema(format = DateTime))]
    pub situacao_desde: String,
    #[cfg_attr(feature = "openapi", schema(format = DateTime))]
    pub alterado_em: String,
    pub sequence: i32,
}

/// A charge created or changed, or the billing status moved (`COBRANCA_ALTERADA`).
pub fn charge_changed(
    identifier: &str,
    charge: Option<&Charge>,
    billing: &Billing,
    at: DateTime<Utc>,
    sequence: i32,
) -> String {
    serialise(&ChargeChangedEvent {
        kind: EventKind::ChargeChanged,
        timestamp: timestamp(at),
        data: ChargeChangedData {
            identificador: identifier.to_owned(),
            cobranca: charge.map(ChargeData::from),
            situacao: billing.status,
            situacao_desde: timestamp(billing.since),
            alterado_em: timestamp(at),
            sequence,
        },
    })
}

/// One channel of a notice and where its delivery stands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(
    feature = "openapi",
    schema(
        description = "Um canal do aviso (`email`, `sms`, `whatsapp`) e sua entrega: `enviado` (sem confirmação ainda), `entregue` ou `falhou`."
    )
)]
pub struct NoticeChannelData {
    #[cfg_attr(feature = "openapi", schema(example = "sms"))]
    pub canal: String,
    #[cfg_attr(feature = "openapi", schema(example = "entregue"))]
    pub status: String,
}

/// The data of `AVISO_REGISTRADO` (issue 67, decision 273): a notice to the customer sent, or its
/// receipt or frustration learned after (a text message's report). No address or phone: those
/// stay in route 7.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(
    feature = "openapi",
    schema(
        description = "Dados de `AVISO_REGISTRADO`: um aviso ao cliente enviado, ou seu recebimento (ou a entrega frustrada) conhecido depois, como o relatório de um SMS. `tipo`: atraso, aviso_encerramento ou encerramento (Lei 15.040/2024, arts. 20 e 21), renovacao ou fim_vigencia (o fim da vigência); `periodo` é o da parcela não paga. `recebidoEm` (a entrega mais cedo) ou `frustradoEm` (nenhum canal entregou) contam os prazos da lei. `canais` traz cada canal e sua entrega, sem endereço nem telefone. `sequence` conta os avisos registrados da proposta."
    )
)]
pub struct NoticeRecordedData {
    pub identificador: String,
    #[cfg_attr(feature = "openapi", schema(example = "atraso"))]
    pub tipo: String,
    pub periodo: Option<i32>,
    #[cfg_attr(feature = "openapi", schema(format = DateTime))]
    pub enviado_em: String,
    #[cfg_attr(feature = "openapi", schema(format = DateTime))]
    pub recebido_em: Option<String>,
    #[cfg_attr(feature = "openapi", schema(format = DateTime))]
    pub frustrado_em: Option<String>,
    pub canais: Vec<NoticeChannelData>,
    pub sequence: i32,
}

/// A notice as it stands: its kind and unpaid period, when it was sent, received or frustrated,
/// and each channel's delivery.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoticeStandingFacts {
    pub kind: String,
    pub period: Option<i32>,
    pub sent_at: DateTime<Utc>,
    pub received_at: Option<DateTime<Utc>>,
    pub frustrated_at: Option<DateTime<Utc>>,
    pub channels: Vec<NoticeChannelData>,
}

/// A notice sent, or its receipt or frustration learned (`AVISO_REGISTRADO`).
pub fn notice_recorded(identifier: &str, notice: NoticeStandingFacts, at: DateTime<Utc>, sequence: i32) -> String {
    serialise(&NoticeRecordedEvent {
        kind: EventKind::NoticeRecorded,
        timestamp: timestamp(at),
        data: NoticeRecordedData {
            identificador: identifier.to_owned(),
            tipo: notice.kind,
            periodo: notice.period,
            enviado_em: timestamp(notice.sent_at),
            recebido_em: notice.received_at.map(timestamp),
            frustrado_em: notice.frustrated_at.map(timestamp),
            canais: notice.channels,
            sequence,
        },
    })
}

/// The data of `VIGENCIA_RENOVADA` (issue 67, decision 273): the contract renewed for a new term.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(
    feature = "openapi",
    schema(
        description = "Dados de `VIGENCIA_RENOVADA`: o contrato renovado. `vigencia` é o número da nova vigência (2 para a primeira renovação), `inicio` e `fim` seus primeiro e último dias (dias de Brasília), `renovacao` se ela também renova (`automatica` ou `nenhuma`); o novo certificado segue ao cliente por e-mail. `sequence` conta as renovações da proposta."
    )
)]
pub struct TermRenewedData {
    pub identificador: String,
    pub vigencia: i32,
    #[cfg_attr(feature = "openapi", schema(format = Date, example = "2027-12-06"))]
    pub inicio: String,
    #[cfg_attr(feature = "openapi", schema(format = Date, example = "2028-12-05"))]
    pub fim: String,
    #[cfg_attr(feature = "openapi", schema(example = "automatica"))]
    pub renovacao: String,
    #[cfg_attr(feature = "openapi", schema(format = DateTime))]
    pub renovada_em: String,
    pub sequence: i32,
}

/// The contract renewed for the term `term` (`VIGENCIA_RENOVADA`).
pub fn term_renewed(identifier: &str, term: &ContractTerm, at: DateTime<Utc>, sequence: i32) -> String {
    serialise(&TermRenewedEvent {
        kind: EventKind::TermRenewed,
        timestamp: timestamp(at),
        data: TermRenewedData {
            identificador: identifier.to_owned(),
            vigencia: i32::try_from(term.sequence).unwrap_or(i32::MAX),
            inicio: term.start.to_string(),
            fim: term.end.to_string(),
            renovacao: term.renewal.as_str().to_owned(),
            renovada_em: timestamp(term.renewed_at.unwrap_or(at)),
            sequence,
        },
    })
}

/// The test event `POST /hooks/:uuid/test` sends.
pub fn test(subscription: Uuid, at: DateTime<Utc>) -> String {
    serialise(&TestEvent {
        kind: EventKind::Test,
        timestamp: timestamp(at),
        data: TestData {
            uuid: subscription,
            mensagem: "Evento de teste: a assinatura recebe e verifica entregas.".to_owned(),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;
    use serde_json::{Value, json};

    #[test]
    fn status_change_carries_the_proposal_the_move_and_its_sequence() {
        let at = Utc.with_ymd_and_hms(2026, 11, 22, 10, 0, 0).unwrap();
        let event = StatusEvent {
            id: 9,
            proposal_id: 4,
            kind: EventKind::StatusChange,
            from: ProposalStatus::New,
            to: ProposalStatus::Cancelled,
            changed_by: "ana@exemplo.com.br".into(),
            changed_at: at,
            sequence: 3,
            reason: Some("desistência".into()),
            reason_category: None,
        };
        let body: Value = serde_json::from_str(&status_change(&event, "PROP-1")).unwrap();
        assert_eq!(
            body,
            json!({
                "type": "ALTERAÇÃO_STATUS",
                "timestamp": "2026-11-22T10:00:00.000Z",
                "data": {
                    "identificador": "PROP-1",
                    "statusAnterior": "NOVO",
                    "statusAtual": "CANCELADO",
                    "alteradoEm": "2026-11-22T10:00:00.000Z",
                    "alteradoPor": "ana@exemplo.com.br",
                    "motivo": "desistência",
                    "categoriaMotivo": null,
                    "sequence": 3,
                }
            })
        );

        // The back office's refusal: its words stay home, the category goes.
        let refusal = StatusEvent {
            to: ProposalStatus::Rejected,
            from: ProposalStatus::InAnalysis,
            reason: Some("Declarou uso contínuo de Losartana".into()),
            reason_category: Some(ReasonCategory::Health),
            ..event
        };
        let body: Value = serde_json::from_str(&status_change(&refusal, "PROP-1")).unwrap();
        assert_eq!(body["data"]["motivo"], Value::Null);
        assert_eq!(body["data"]["categoriaMotivo"], "saude");
        assert!(!body.to_string().contains("Losartana"));
    }

    fn at() -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 11, 26, 9, 30, 0).unwrap()
    }

    fn parsed(body: String) -> Value {
        serde_json::from_str(&body).unwrap()
    }

    #[test]
    fn the_catalogs_kinds_carry_their_type_the_proposal_and_their_sequence_without_personal_data() {
        assert_eq!(
            parsed(proposal_created(
                "PROP-1",
                Flow::Partner,
                141200,
                "rep@demo.com.br",
                at()
            )),
            json!({"type": "PROPOSTA_CRIADA", "timestamp": "2026-11-26T09:30:00.000Z", "data": {
                "identificador": "PROP-1", "status": "NOVO", "fluxo": "PARCEIRO", "valor": 141200,
                "criadoEm": "2026-11-26T09:30:00.000Z", "criadoPor": "rep@demo.com.br", "sequence": 1}})
        );
        assert_eq!(
            parsed(proposal_sent("PROP-1", ShippingType::Sms, "rep@demo.com.br", at(), 1))["data"],
            json!({"identificador": "PROP-1", "reenvio": false, "canal": "sms",
                   "enviadoEm": "2026-11-26T09:30:00.000Z", "enviadoPor": "rep@demo.com.br", "sequence": 1})
        );
        assert_eq!(
            parsed(proposal_sent(
                "PROP-1",
                ShippingType::Whatsapp,
                "rep@demo.com.br",
                at(),
                3
            ))["data"]["reenvio"],
            true
        );
        assert_eq!(
            parsed(signature_recorded(
                "PROP-1",
                PartyRole::Federation,
                PartyStatus::Refused,
                at(),
                2
            )),
            json!({"type": "ASSINATURA_REGISTRADA", "timestamp": "2026-11-26T09:30:00.000Z", "data": {
                "identificador": "PROP-1", "parte": "federation", "status": "RECUSADO",
                "registradoEm": "2026-11-26T09:30:00.000Z", "sequence": 2}})
        );
        assert_eq!(
            parsed(payment_changed("PROP-1", None, "active", at(), 1)),
            json!({"type": "PAGAMENTO_ALTERADO", "timestamp": "2026-11-26T09:30:00.000Z", "data": {
                "identificador": "PROP-1", "statusAnterior": null, "status": "active",
                "alteradoEm": "2026-11-26T09:30:00.000Z", "sequence": 1}})
        );
    }

    #[test]
    fn a_notice_names_its_kind_period_standing_and_channels_and_a_renewal_its_new_term() {
        let notice = NoticeStandingFacts {
            kind: "atraso".into(),
            period: Some(2),
            sent_at: at(),
            received_at: Some(at() + chrono::Duration::days(3)),
            frustrated_at: None,
            channels: vec![
                NoticeChannelData {
                    canal: "email".into(),
                    status: "falhou".into(),
                },
                NoticeChannelData {
                    canal: "sms".into(),
                    status: "entregue".into(),
                },
            ],
        };
        assert_eq!(
            parsed(notice_recorded("PROP-1", notice, at(), 2)),
            json!({"type": "AVISO_REGISTRADO", "timestamp": "2026-11-26T09:30:00.000Z", "data": {
                "identificador": "PROP-1", "tipo": "atraso", "periodo": 2,
                "enviadoEm": "2026-11-26T09:30:00.000Z", "recebidoEm": "2026-11-29T09:30:00.000Z",
                "frustradoEm": null,
                "canais": [{"canal": "email", "status": "falhou"}, {"canal": "sms", "status": "entregue"}],
                "sequence": 2}})
        );
        let term = ContractTerm {
            sequence: 2,
            start: chrono::NaiveDate::from_ymd_opt(2027, 11, 26).unwrap(),
            end: chrono::NaiveDate::from_ymd_opt(2028, 11, 25).unwrap(),
            renewal: crate::billing::term::Renewal::Automatic,
            renewed_at: Some(at()),
        };
        assert_eq!(
            parsed(term_renewed("PROP-1", &term, at(), 1))["data"],
            json!({"identificador": "PROP-1", "vigencia": 2, "inicio": "2027-11-26", "fim": "2028-11-25",
                   "renovacao": "automatica", "renovadaEm": "2026-11-26T09:30:00.000Z", "sequence": 1})
        );
    }
}
