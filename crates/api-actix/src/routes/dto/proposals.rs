//! Proposals: route 7's detail (routes 5 and 6 answer the domain's `ProposalRecord` as it serialises).

use super::customers::CustomerView;
use super::iso;
use chrono::{DateTime, Utc};
use domain::proposals::model::{ProposalDetail, ProposalRecord};
use domain::values::{Flow, PartyStatus, PaymentType, ProposalStatus, ShippingType};
use serde::Serialize;
use utoipa::ToSchema;

#[derive(Debug, Serialize, ToSchema)]
pub struct ProposalView {
    pub id: i64,
    pub identifier: String,
    pub product: String,
    pub produce_code: i32,
    pub product_id: i64,
    pub motivation: String,
    pub value: i64,
    #[serde(rename = "partnerCpfCnpj")]
    pub partner_cpf_cnpj: Option<String>,
    #[serde(rename = "customerId")]
    pub customer_id: i64,
    pub status: ProposalStatus,
    pub id_jave: Option<String>,
    #[serde(rename = "modifiedBy")]
    pub modified_by: String,
    #[serde(rename = "typeSend")]
    pub type_send: ShippingType,
    #[serde(rename = "inviteId")]
    pub invite_id: Option<String>,
    #[serde(rename = "createdAt")]
    #[schema(format = DateTime)]
    pub created_at: String,
    #[serde(rename = "updatedAt")]
    #[schema(format = DateTime)]
    pub updated_at: String,
}

#[derive(Debug, Default, Serialize, ToSchema)]
pub struct RepresentativeDto {
    pub cpf: Option<String>,
    pub email: Option<String>,
    pub name: Option<String>,
    pub token_atentende_servico_de_vidio: Option<String>,
}

#[derive(Debug, Default, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PartnerDto {
    pub cpf_cnpj: Option<String>,
    pub fantasy_name: Option<String>,
    pub social_reason: Option<String>,
    pub modified_by: Option<String>,
    #[schema(format = DateTime)]
    pub created_at: Option<String>,
    #[schema(format = DateTime)]
    pub updated_at: Option<String>,
}

#[derive(Debug, Default, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CompanyDto {
    pub cpf_cnpj: Option<String>,
    pub fantasy_name: Option<String>,
    pub social_reason: Option<String>,
}

#[derive(Debug, Default, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct EntitiesDto {
    pub association_cnpj: Option<String>,
    pub association_name: Option<String>,
    pub federation_cnpj: Option<String>,
    pub federation_name: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct LocationDto {
    pub latitude: Option<String>,
    pub longitude: Option<String>,
}

#[derive(Debug, Default, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SignDto {
    pub id: Option<i64>,
    pub identifier: Option<String>,
    pub client_key: Option<String>,
    pub association_key: Option<String>,
    pub federation_key: Option<String>,
    pub enterprise_key: Option<String>,
    pub client_status: Option<PartyStatus>,
    pub association_status: Option<PartyStatus>,
    pub federation_status: Option<PartyStatus>,
    pub enterprise_status: Option<PartyStatus>,
    pub modified_by: Option<String>,
    #[schema(format = DateTime)]
    pub updated_at: Option<String>,
    #[schema(format = DateTime)]
    pub created_at: Option<String>,
    pub location: Option<LocationDto>,
}

#[derive(Debug, Default, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PaymentDto {
    pub card_id: Option<i64>,
    pub debit_id: Option<i64>,
    pub sheet_id: Option<i64>,
    #[serde(rename = "type")]
    pub payment_type: Option<PaymentType>,
    pub name: Option<String>,
    pub number: Option<String>,
    pub expiry_date: Option<String>,
    pub billing_day: Option<i32>,
    pub bank: Option<String>,
    pub agency: Option<String>,
    pub account: Option<String>,
    pub operation: Option<String>,
    pub sheet_number: Option<String>,
    pub sheet_type: Option<String>,
    pub specie: Option<i32>,
    pub issuer_body: Option<String>,
    pub modified_by: Option<String>,
    #[schema(format = DateTime)]
    pub created_at: Option<String>,
    #[schema(format = DateTime)]
    pub updated_at: Option<String>,
    /// `null` unless the proposal is paid by `PIX AUTOMÁTICO`.
    pub pix_automatico: Option<PixAutomaticoDto>,
}

/// A `DESCONTO EM FOLHA` contract's averbação at the consignment platform (issue 67).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(
    description = "A averbação do desconto em folha na plataforma de consignação: pedida depois do aceite (`id` e `status` nulos antes); o contrato só é cobrado com ela `ativa`, e a primeira cobrança vence os dias do produto depois dela. `status`: `pendente` (aguarda o empregador ou o INSS), `ativa`, `recusada` (com `reason`, p. ex. margem insuficiente) ou `cancelada` (o contrato encerrado). `margin`: a margem consignável restante informada pela plataforma, em centavos. `id` nulo com `status` `ativa`: desconto pedido ao empregador antes do registro de averbações."
)]
pub struct AverbacaoDto {
    #[schema(example = "AV-2026-000123")]
    pub id: Option<String>,
    #[schema(example = "ativa")]
    pub status: Option<String>,
    pub margin: Option<i64>,
    pub reason: Option<String>,
    #[schema(format = DateTime)]
    pub requested_at: Option<String>,
    #[schema(format = DateTime)]
    pub updated_at: Option<String>,
}

/// A `PIX AUTOMÁTICO` proposal's recurrence at the PSP (issue 46).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(
    description = "A recorrência do Pix Automático no PSP: criada na última assinatura (`idRec` e `status` nulos antes), com o status do padrão do Banco Central (`CRIADA` até o pagador autorizar, `APROVADA`, `REJEITADA`, `EXPIRADA`, `CANCELADA`) como o PSP o informou por último, o Pix Copia e Cola do QR code enquanto o pagador não autorizou (jornada 2) e o ISPB do banco do pagador quando a conta dele foi informada (jornada 1; `agency` e `account` são dessa conta)."
)]
pub struct PixAutomaticoDto {
    #[schema(example = "RR9999900420261201abcdefghijk")]
    pub id_rec: Option<String>,
    #[schema(value_type = Option<String>, example = "APROVADA")]
    pub status: Option<String>,
    pub pix_copia_e_cola: Option<String>,
    #[schema(example = "60701190")]
    pub ispb: Option<String>,
}

/// The e-commerce sale's recurring subscription, as the payment platform last told it.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(
    description = "A assinatura recorrente da venda de e-commerce como a plataforma de pagamento a informou por último (lida da plataforma a cada evento dela). `status` e `latestInvoiceStatus` como a plataforma os escreve."
)]
pub struct SubscriptionDto {
    #[schema(example = "sub_1Q2w3E4r5T6y7U8i")]
    pub id: String,
    #[schema(example = "active")]
    pub status: String,
    /// The end of the period paid for.
    #[schema(format = DateTime, example = "2026-12-26T09:30:00.000Z")]
    pub current_period_end: Option<String>,
    #[schema(example = "paid")]
    pub latest_invoice_status: Option<String>,
}

/// One charge of an accepted contract (issue 46).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(
    description = "Uma cobrança do contrato aceito: uma por período (1 para o primeiro), com o vencimento (dia de Brasília), o valor em centavos, a forma de pagamento, o status (`aberta`, `paga`, `falhou` depois da última tentativa, `cancelada` quando o contrato acabou), as tentativas feitas e a próxima, o id no serviço de fora, o motivo de uma falha ou cancelamento e quando foi paga."
)]
pub struct ChargeDto {
    #[schema(example = 1)]
    pub period: i32,
    #[schema(format = Date, example = "2026-12-08")]
    pub due_date: String,
    /// Centavos.
    #[schema(example = 141200)]
    pub amount: i64,
    #[schema(value_type = domain::values::PaymentType)]
    pub method: String,
    pub status: domain::values::ChargeStatus,
    #[schema(example = 0)]
    pub attempts: i32,
    /// Quando a seguradora a apresentou para pagamento pela primeira vez (a remessa do débito, o
    /// envio da cobrança Pix, o pedido do desconto em folha): antes disso não deixa o contrato em
    /// atraso.
    #[schema(format = DateTime)]
    pub presented_at: Option<String>,
    #[schema(format = Date)]
    pub next_attempt: Option<String>,
    pub external_id: Option<String>,
    pub reason: Option<String>,
    #[schema(format = DateTime)]
    pub paid_at: Option<String>,
    #[schema(format = DateTime, example = "2026-11-28T12:00:00.000Z")]
    pub created_at: String,
    #[schema(format = DateTime, example = "2026-11-28T12:00:00.000Z")]
    pub updated_at: String,
}

impl From<domain::billing::Charge> for ChargeDto {
    fn from(c: domain::billing::Charge) -> Self {
        Self {
            period: c.period,
            due_date: c.due_date.to_string(),
            amount: c.amount,
            method: c.method,
            status: c.status,
            attempts: c.attempts,
            presented_at: c.presented_at.map(iso),
            next_attempt: c.next_attempt.map(|d| d.to_string()),
            external_id: c.external_id,
            reason: c.reason,
            paid_at: c.paid_at.map(iso),
            created_at: iso(c.created_at),
            updated_at: iso(c.updated_at),
        }
    }
}

/// Where an accepted contract's billing stands (issue 46).
#[derive(Debug, Serialize, ToSchema)]
#[schema(
    description = "A situação da cobrança do contrato aceito: `em_dia`, `em_atraso` (uma cobrança não paga passou dos dias de carência do produto) ou `suspenso` (passou dos dias de suspensão; volta a `em_dia` quando paga), e desde quando."
)]
pub struct BillingDto {
    pub status: domain::values::BillingStatus,
    #[schema(format = DateTime, example = "2026-11-28T12:00:00.000Z")]
    pub since: String,
    /// `null` unless the contract is paid by `DESCONTO EM FOLHA`.
    pub averbacao: Option<AverbacaoDto>,
}

/// The contract's money as its ledger has it (issue 65).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(
    description = "O razão do contrato, em centavos, derivado de lançamentos imutáveis escritos com cada fato: `due` (cobrado e não cancelado: cobranças criadas, faturas do cartão pagas), `received` (o que cada trilho informou recebido), `refunded` (devolvido pela plataforma, pelo PSP ou pago pelo financeiro) e `owedBack` (devoluções a pagar ainda não pagas). Zeros quando nada foi cobrado."
)]
pub struct LedgerDto {
    #[schema(example = 9980)]
    pub due: i64,
    #[schema(example = 4990)]
    pub received: i64,
    #[schema(example = 0)]
    pub refunded: i64,
    #[schema(example = 1663)]
    pub owed_back: i64,
}

impl From<domain::ledger::LedgerBalance> for LedgerDto {
    fn from(b: domain::ledger::LedgerBalance) -> Self {
        LedgerDto {
            due: b.due,
            received: b.received,
            refunded: b.refunded,
            owed_back: b.owed_back,
        }
    }
}

/// The acceptance clock (issue 45): from the proposal's entry in `EM ANÁLISE`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(
    description = "O prazo de aceitação da proposta (Lei 15.040/2024, art. 49: no máximo 25 dias, e o silêncio da seguradora aceita), contado desde a entrada em `EM ANÁLISE` com a política do produto: `deadline`, quando o silêncio aceita (`tacit`; `false` só em prazos iniciados antes da lei, decisão 278); `reviewBy`, a meta dos analistas do produto, quando há; `suspendedSince` enquanto o pedido de documentos (um só) o suspende; `overdue` quando a meta dos analistas (ou o prazo sem aceite tácito) passou sem decisão; `term`, depois do aceite, a vigência do contrato que ele formou; `provisionalCover`, numa venda da loja cobrada na contratação, a cobertura provisória do pagamento à decisão."
)]
pub struct AcceptanceDto {
    #[schema(format = DateTime, example = "2026-11-28T09:30:00.000Z")]
    pub received_at: String,
    #[schema(format = DateTime, example = "2026-12-13T09:30:00.000Z")]
    pub deadline: String,
    pub tacit: bool,
    #[schema(format = DateTime)]
    pub suspended_since: Option<String>,
    /// A meta dos analistas: passada sem decisão, a proposta fica vencida para eles antes do
    /// aceite pelo silêncio; `null` quando o produto não tem.
    #[schema(format = DateTime)]
    pub review_by: Option<String>,
    pub overdue: bool,
    /// Os pedidos de documentos, do mais antigo ao mais recente.
    pub pending: Vec<PendingRequestDto>,
    /// A vigência do contrato aceito: `null` antes do aceite.
    pub term: Option<TermDto>,
    /// A cobertura provisória de uma venda da loja paga na contratação: `null` quando não há.
    pub provisional_cover: Option<ProvisionalCoverDto>,
}

/// A shop sale's provisional cover (decision 271).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(
    description = "A cobertura provisória de uma venda da loja cobrada na contratação (Lei nº 15.040/2024, art. 19, § 2º; decisão 271): de `from` (o pagamento na rota 16) até `until`, a decisão da seguradora (o aceite, quando começa a vigência, ou a recusa); `until` é `null` enquanto a proposta está em análise. Um produto que cobra só na aceitação não tem cobertura provisória: nada é cobrado antes do aceite."
)]
pub struct ProvisionalCoverDto {
    #[schema(format = DateTime, example = "2026-12-06T13:05:00.000Z")]
    pub from: String,
    #[schema(format = DateTime)]
    pub until: Option<String>,
}

/// The accepted contract's current term (issue 67, decision 270).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(
    description = "A vigência atual do contrato aceito (decisão 270): de `start` (o dia em que a seguradora recebeu a proposta) até `end`, pelos meses do produto; nenhuma cobrança vence em `end` ou depois sem renovação. `renewal`: `automatica` (aviso ao cliente 30 dias antes, nova vigência e novo certificado em `end`) ou `nenhuma` (aviso 30 dias antes e o contrato termina em `end`, `CANCELADO` com o motivo `FIM_DE_VIGENCIA`). `renewedAt`: quando esta vigência nasceu de uma renovação (`null` na primeira)."
)]
pub struct TermDto {
    #[schema(format = Date, example = "2026-11-28")]
    pub start: String,
    #[schema(format = Date, example = "2027-11-28")]
    pub end: String,
    #[schema(example = "automatica")]
    pub renewal: String,
    #[schema(format = DateTime)]
    pub renewed_at: Option<String>,
}

impl From<domain::billing::term::ContractTerm> for TermDto {
    fn from(t: domain::billing::term::ContractTerm) -> Self {
        Self {
            start: t.start.to_string(),
            end: t.end.to_string(),
            renewal: t.renewal.as_str().to_owned(),
            renewed_at: t.renewed_at.map(iso),
        }
    }
}

/// A request for documents and its answer.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(
    description = "Um pedido de documentos da retaguarda e, quando dada, a resposta. `recipient` diz quem responde: `vendedor` ou `proponente` (pelo link enviado ao seu e-mail; decisão 289). De um pedido ao proponente, o vendedor lê só a categoria e que foi pedido e respondido: `items` vazio, `note` nula, e na resposta `note` vazia e nenhum arquivo."
)]
pub struct PendingRequestDto {
    pub id: i64,
    #[schema(example = json!(["Comprovante de residência"]))]
    pub items: Vec<String>,
    pub note: Option<String>,
    #[schema(example = "documentacao")]
    pub reason_category: String,
    #[schema(example = "vendedor")]
    pub recipient: String,
    pub requested_by: String,
    #[schema(format = DateTime)]
    pub requested_at: String,
    pub answer: Option<PendingAnswerDto>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(
    description = "A resposta a um pedido de documentos, com a lista dos arquivos; `answeredBy` é `proponente` quando ele respondeu pelo link."
)]
pub struct PendingAnswerDto {
    pub note: String,
    pub answered_by: String,
    #[schema(format = DateTime)]
    pub answered_at: String,
    pub files: Vec<PendingFileDto>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(description = "Um arquivo de uma resposta: nome, tipo (lido do conteúdo), tamanho em bytes e SHA-256.")]
pub struct PendingFileDto {
    pub id: i64,
    pub name: String,
    #[schema(example = "application/pdf")]
    pub content_type: String,
    pub size: i64,
    pub sha256: String,
}

impl From<domain::acceptance::AcceptanceView> for AcceptanceDto {
    fn from(a: domain::acceptance::AcceptanceView) -> Self {
        Self {
            received_at: iso(a.received_at),
            deadline: iso(a.deadline),
            tacit: a.tacit,
            suspended_since: a.suspended_since.map(iso),
            review_by: a.review_by.map(iso),
            overdue: a.overdue,
            // The contract's term, set by route 7 from the detail (it is not the clock's).
            term: None,
            provisional_cover: a.provisional_cover.map(|c| ProvisionalCoverDto {
                from: iso(c.from),
                until: c.until.map(iso),
            }),
            pending: a
                .pending
                .into_iter()
                .map(|p| PendingRequestDto {
                    id: p.id,
                    items: p.items,
                    note: p.note,
                    reason_category: p.category.as_str().to_owned(),
                    recipient: p.recipient.as_str().to_owned(),
                    requested_by: p.requested_by,
                    requested_at: iso(p.requested_at),
                    answer: p.answer.map(|a| PendingAnswerDto {
                        note: a.note,
                        answered_by: a.answered_by,
                        answered_at: iso(a.answered_at),
                        files: a
                            .files
                            .into_iter()
                            .map(|f| PendingFileDto {
                                id: f.id,
                                name: f.name,
                                content_type: f.content_type,
                                size: f.size,
                                sha256: f.sha256,
                            })
                            .collect(),
                    }),
                })
                .collect(),
        }
    }
}

/// A refund of the proposal (issue 45): the regret's, the refusal's or the cancellation's.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(
    description = "Um reembolso da proposta: `amount` em centavos, correção incluída; `status` como a plataforma de pagamento o escreve (`succeeded`, `pending`, …) ou, quando pago pelo financeiro (desconto em folha, débito em conta, correção acima do valor cobrado no cartão), `a_pagar` e depois `pago`; `reason` `ARREPENDIMENTO`, `RECUSA` ou `CANCELAMENTO`; `correction` a correção pelo IPCA pro rata die desde o pagamento (`null` nos reembolsos de arrependimento); `dueDate` o dia até o qual um reembolso a pagar é pago (`null` nos da plataforma e do PSP); pago depois dele, a correção do atraso entra como outro reembolso, `{id}_atraso`, já `pago`."
)]
pub struct ProposalRefundDto {
    #[schema(example = "re_3Q2w3E4r5T6y7U8i")]
    pub id: String,
    #[schema(example = 3990)]
    pub amount: i64,
    #[schema(example = "succeeded")]
    pub status: String,
    #[schema(example = "RECUSA")]
    pub reason: String,
    pub correction: Option<CorrectionDto>,
    #[schema(format = Date, example = "2026-12-15")]
    pub due_date: Option<String>,
}

/// An IPCA correction as recorded with its refund.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(
    description = "A correção pelo IPCA pro rata die: o fator (truncado em 8 casas) do dia do pagamento (`from`) ao da devolução (`to`), o valor que ela acrescenta em centavos e cada mês com a sua variação (%), os dias do período nele e se a variação ainda não publicada foi projetada pela última publicada."
)]
pub struct CorrectionDto {
    #[schema(example = "IPCA")]
    pub index: String,
    #[schema(example = "1.00299551")]
    pub factor: String,
    #[schema(example = "2026-11-01")]
    pub from: String,
    #[schema(example = "2026-11-16")]
    pub to: String,
    /// O que a correção acrescenta, em centavos.
    #[schema(example = 12)]
    pub amount: i64,
    pub months: Vec<CorrectionMonthDto>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CorrectionMonthDto {
    #[schema(example = "2026-11")]
    pub month: String,
    /// A variação do mês, em %.
    #[schema(example = "0.60")]
    pub rate: String,
    #[schema(example = 15)]
    pub days: u32,
    pub projected: bool,
}

impl From<domain::refunds::RefundRecord> for ProposalRefundDto {
    fn from(r: domain::refunds::RefundRecord) -> Self {
        let correction_amount = r.correction_amount();
        Self {
            correction: r.correction.map(|c| CorrectionDto {
                factor: c.factor_text(),
                index: c.index,
                from: c.from.to_string(),
                to: c.to.to_string(),
                amount: correction_amount,
                months: c
                    .months
                    .into_iter()
                    .map(|m| CorrectionMonthDto {
                        month: m.month.format("%Y-%m").to_string(),
                        rate: percent(m.hundredths),
                        days: m.days,
                        projected: m.projected,
                    })
                    .collect(),
            }),
            id: r.id,
            amount: r.amount,
            status: r.status,
            reason: r.reason.as_str().to_owned(),
            due_date: r.due_on.map(|d| d.to_string()),
        }
    }
}

/// Hundredths of a percent as the percentage IBGE publishes: `0.60`, `-0.11`.
fn percent(hundredths: i32) -> String {
    let sign = if hundredths < 0 { "-" } else { "" };
    let magnitude = hundredths.unsigned_abs();
    format!("{sign}{}.{:02}", magnitude / 100, magnitude % 100)
}

/// Route 7's `data`: every member present; what is not known yet is `null`.
#[derive(Debug, Serialize, ToSchema)]
pub struct ProposalDetailDto {
    pub proposal: ProposalView,
    pub representative: RepresentativeDto,
    pub customer: CustomerView,
    pub partner: PartnerDto,
    pub company: CompanyDto,
    pub entities: EntitiesDto,
    pub sign: SignDto,
    pub payment: PaymentDto,
    /// `null` when the proposal has no subscription on the payment platform.
    pub subscription: Option<SubscriptionDto>,
    /// `null` before the proposal enters `EM ANÁLISE`.
    pub acceptance: Option<AcceptanceDto>,
    /// Every refund of the proposal, oldest first (empty when nothing was returned).
    pub refunds: Vec<ProposalRefundDto>,
    /// The accepted contract's last 12 charges, oldest first (empty before the acceptance and for
    /// a card sale, which `subscription` tells).
    pub charges: Vec<ChargeDto>,
    /// `null` before the acceptance and for a card sale.
    pub billing: Option<BillingDto>,
    /// The contract's ledger: always present (zeros when nothing was charged).
    pub ledger: LedgerDto,
    /// Os beneficiários indicados na rota 5, na ordem; vazio: os herdeiros legais (Lei
    /// 15.040/2024, art. 115; decisão 279).
    pub beneficiaries: Vec<BeneficiaryDto>,
    /// `null` before the premium is known (an online sale before its subscription).
    pub premium: Option<PremiumDto>,
    /// `null` before the acceptance.
    pub certificate: Option<CertificateDto>,
    /// The customer's due diligence (issue 70): always present.
    pub kyc: KycDto,
}

/// The customer's due diligence (issue 70, decision 293).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(
    description = "A devida diligência do cliente (Circular SUSEP 612/2020): `status` `pendente` enquanto o compliance não decide (a proposta não pode ser aprovada), `aprovada` ou `recusada` depois; `nao_exigida` quando a triagem da venda nada encontrou. `pep`: na lista de pessoas expostas politicamente da CGU ou autodeclarado. `reasons`: o que pediu a diligência (`pep_lista`, `pep_declarado`, `cpf_nao_verificado`)."
)]
pub struct KycDto {
    pub pep: bool,
    #[schema(example = "pendente")]
    pub status: &'static str,
    pub reasons: Vec<KycReasonDto>,
}

/// One reason for diligence.
#[derive(Debug, Serialize, ToSchema)]
pub struct KycReasonDto {
    #[schema(example = "pep_lista")]
    pub code: &'static str,
    #[schema(example = "DEPUTADO FEDERAL — CÂMARA DOS DEPUTADOS, exposta até 31/01/2031 (lista PEP da CGU)")]
    pub detail: String,
}

/// The status of a proposal whose screening called for no diligence.
pub const KYC_NOT_REQUIRED: &str = "nao_exigida";

impl From<Option<domain::kyc::screening::KycView>> for KycDto {
    fn from(view: Option<domain::kyc::screening::KycView>) -> Self {
        match view {
            None => Self {
                pep: false,
                status: KYC_NOT_REQUIRED,
                reasons: Vec::new(),
            },
            Some(v) => Self {
                pep: v.pep,
                status: v.status.as_str(),
                reasons: v
                    .reasons
                    .into_iter()
                    .map(|r| KycReasonDto {
                        code: r.code.as_str(),
                        detail: r.detail,
                    })
                    .collect(),
            },
        }
    }
}

/// The premium split into net premium and IOF (decision 281).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(
    description = "O prêmio do contrato, em centavos, dividido em prêmio líquido e IOF pela alíquota do ramo do produto (Decreto 6.306/2007, art. 22: 0,38% pessoas, 2,38% saúde, 7,38% demais ramos): `total` é o que é cobrado (o valor da proposta; numa venda da loja, o preço da assinatura na plataforma de pagamento), `net + iof = total`; `iofRate` é o percentual (`0.38` = 0,38%)."
)]
pub struct PremiumDto {
    #[schema(example = 4971)]
    pub net: i64,
    #[schema(example = 19)]
    pub iof: i64,
    #[schema(example = "0.38")]
    pub iof_rate: String,
    #[schema(example = 4990)]
    pub total: i64,
}

impl From<domain::contract::insurance::PremiumSplit> for PremiumDto {
    fn from(s: domain::contract::insurance::PremiumSplit) -> Self {
        Self {
            net: s.net,
            iof: s.iof,
            iof_rate: percent(i32::try_from(s.iof_basis_points).unwrap_or(i32::MAX)),
            total: s.total,
        }
    }
}

/// The contract's current certificate (decision 281).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(
    description = "O certificado do contrato em vigor: `number`, registrável, dado no aceite (código do produto e a sequência do produto, `101.00000001`; o de uma renovação acrescenta a vigência, `101.00000001-2`; os de contratos aceitos antes da decisão 281 guardam a forma `101-2026-00001234`); `issuedAt` e `sha256` (do PDF servido em `/proposal/{identificador}/certificate`) depois de emitido, `null` antes."
)]
pub struct CertificateDto {
    #[schema(example = "101.00000001")]
    pub number: String,
    #[schema(format = DateTime, example = "2026-11-28T12:00:00.000Z")]
    pub issued_at: Option<String>,
    #[schema(example = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08")]
    pub sha256: Option<String>,
}

/// A beneficiary of route 7 (decision 279).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BeneficiaryDto {
    #[schema(example = "João da Silva")]
    pub name: String,
    /// 11 dígitos; `null` quando não informado.
    #[schema(example = "12345678909")]
    pub cpf: Option<String>,
    /// AAAA-MM-DD; `null` quando não informada.
    #[schema(format = Date, example = "2015-03-20")]
    pub birth_date: Option<String>,
    #[schema(value_type = domain::values::Kinship)]
    pub kinship: String,
    /// Percentual inteiro do capital; as partes somam 100.
    #[schema(example = 100)]
    pub share: u8,
}

impl From<domain::proposals::beneficiaries::BeneficiaryView> for BeneficiaryDto {
    fn from(b: domain::proposals::beneficiaries::BeneficiaryView) -> Self {
        Self {
            name: b.name,
            cpf: b.cpf,
            birth_date: b.birth_date.map(|d| d.to_string()),
            kinship: b.kinship.as_str().to_owned(),
            share: b.share,
        }
    }
}

impl From<ProposalDetail> for ProposalDetailDto {
    fn from(d: ProposalDetail) -> Self {
        let premium = d.premium().map(PremiumDto::from);
        let kyc = KycDto::from(d.kyc.clone());
        let certificate = d.certificate.map(|c| CertificateDto {
            number: c.number,
            issued_at: c.issued_at.map(iso),
            sha256: c.sha256,
        });
        let p = d.proposal;
        let proposal = ProposalView {
            id: p.id,
            identifier: p.identifier.clone(),
            product: d.product_name,
            produce_code: d.product_code,
            product_id: p.product_id,
            motivation: d.motivation,
            value: p.value,
            partner_cpf_cnpj: p.partner_document,
            customer_id: p.customer_id,
            status: p.status,
            id_jave: p.jave_id,
            modified_by: p.stamp.changed_by,
            type_send: p.shipping,
            invite_id: p.invite_id,
            created_at: iso(p.stamp.created_at),
            updated_at: iso(p.stamp.updated_at),
        };
        let customer = CustomerView::of(d.customer, d.address.as_ref());
        let representative = d
            .representative
            .map(|r| RepresentativeDto {
                cpf: r.cpf,
                email: Some(r.email),
                name: r.name,
                token_atentende_servico_de_vidio: r.video_attendance_token,
            })
            .unwrap_or_default();
        let (partner, company, entities) = match d.partner {
            Some(pt) => (
                PartnerDto {
                    cpf_cnpj: Some(pt.document),
                    fantasy_name: pt.fantasy_name,
                    social_reason: Some(pt.social_reason),
                    modified_by: Some(pt.stamp.changed_by),
                    created_at: Some(iso(pt.stamp.created_at)),
                    updated_at: Some(iso(pt.stamp.updated_at)),
                },
                CompanyDto {
                    cpf_cnpj: pt.company_cnpj,
                    fantasy_name: pt.company_fantasy_name,
                    social_reason: pt.company_social_reason,
                },
                EntitiesDto {
                    association_cnpj: pt.association_cnpj,
                    association_name: pt.association_name,
                    federation_cnpj: pt.federation_cnpj,
                    federation_name: pt.federation_name,
                },
            ),
            None => Default::default(),
        };
        let sign = d
            .signature
            .map(|s| SignDto {
                id: Some(s.id),
                identifier: Some(p.identifier.clone()),
                client_key: s.client_key,
                association_key: s.association_key,
                federation_key: s.federation_key,
                enterprise_key: s.enterprise_key,
                client_status: s.client_status,
                association_status: s.association_status,
                federation_status: s.federation_status,
                enterprise_status: s.enterprise_status,
                modified_by: Some(s.stamp.changed_by),
                updated_at: Some(iso(s.stamp.updated_at)),
                created_at: Some(iso(s.stamp.created_at)),
                location: Some(LocationDto {
                    latitude: s.latitude,
                    longitude: s.longitude,
                }),
            })
            .unwrap_or_default();
        let payroll = d
            .payment
            .as_ref()
            .is_some_and(|pay| pay.payment_type == PaymentType::PayrollDiscount);
        let payment = d
            .payment
            .map(|pay| {
                let is = |kind: PaymentType| (pay.payment_type == kind).then_some(pay.id);
                PaymentDto {
                    // The stored payments are a debit or a payroll discount; a card is paid on
                    // the platform (the shop's subscription), never stored here.
                    card_id: None,
                    debit_id: is(PaymentType::AccountDebit),
                    sheet_id: is(PaymentType::PayrollDiscount),
                    payment_type: Some(pay.payment_type),
                    name: pay.card_name,
                    number: pay.card_number,
                    expiry_date: pay.card_expiry,
                    billing_day: pay.billing_day,
                    bank: pay.bank,
                    agency: pay.agency,
                    account: pay.account,
                    operation: pay.operation,
                    sheet_number: pay.sheet_number,
                    sheet_type: pay.sheet_type.map(|t| t.as_str().to_owned()),
                    specie: pay.specie,
                    issuer_body: pay.issuer_body,
                    modified_by: Some(pay.stamp.changed_by),
                    created_at: Some(iso(pay.stamp.created_at)),
                    updated_at: Some(iso(pay.stamp.updated_at)),
                    pix_automatico: (pay.payment_type == PaymentType::PixAutomatic).then(|| {
                        let recurrence = d.pix_recurrence.as_ref();
                        PixAutomaticoDto {
                            id_rec: recurrence.map(|r| r.id_rec.clone()),
                            status: recurrence.map(|r| r.status.as_str().to_owned()),
                            pix_copia_e_cola: recurrence.and_then(|r| r.pix_copia_e_cola.clone()),
                            ispb: pay.ispb,
                        }
                    }),
                }
            })
            .unwrap_or_default();
        let subscription = d.subscription.map(|sub| SubscriptionDto {
            id: sub.id,
            status: sub.status,
            current_period_end: sub.current_period_end.map(iso),
            latest_invoice_status: sub.latest_invoice_status,
        });
        // The term in the acceptance: `data`'s members are the spec's (decision 270).
        let acceptance = d.acceptance.map(|a| AcceptanceDto {
            term: d.term.map(TermDto::from),
            ..AcceptanceDto::from(a)
        });
        let refunds = d.refunds.into_iter().map(ProposalRefundDto::from).collect();
        let charges = d.charges.into_iter().map(ChargeDto::from).collect();
        let ledger = LedgerDto::from(d.ledger);
        let beneficiaries = d.beneficiaries.into_iter().map(BeneficiaryDto::from).collect();
        let averbacao = d.averbacao.as_ref();
        let billing = d.billing.map(|b| BillingDto {
            status: b.status,
            since: iso(b.since),
            averbacao: payroll.then(|| AverbacaoDto {
                id: averbacao.and_then(|a| a.id.clone()),
                status: averbacao.map(|a| a.status.as_str().to_owned()),
                margin: averbacao.and_then(|a| a.margin_cents),
                reason: averbacao.and_then(|a| a.reason.clone()),
                requested_at: averbacao.map(|a| iso(a.requested_at)),
                updated_at: averbacao.map(|a| iso(a.updated_at)),
            }),
        });
        Self {
            proposal,
            representative,
            customer,
            partner,
            company,
            entities,
            sign,
            payment,
            subscription,
            acceptance,
            refunds,
            charges,
            billing,
            ledger,
            beneficiaries,
            premium,
            certificate,
            kyc,
        }
    }
}

/// The proposal record routes 5 and 6 answer (and each of the list's records), its members under
/// the spec's names and in its order.
#[derive(Serialize, ToSchema)]
#[schema(description = "The proposal record of routes 5 and 6.")]
pub struct ProposalRecordDto {
    pub id: i64,
    #[serde(rename = "identificador")]
    pub identifier: String,
    #[serde(rename = "id_jave")]
    pub jave_id: Option<String>,
    /// Cents (0 for e-commerce proposals).
    #[serde(rename = "valor")]
    pub value: i64,
    #[serde(rename = "cpf_cnpj_parceiro")]
    pub partner_document: Option<String>,
    #[serde(rename = "id_representante")]
    pub representative_id: Option<i64>,
    #[serde(rename = "id_cliente")]
    pub customer_id: i64,
    #[serde(rename = "key_documento")]
    pub document_key: Option<String>,
    #[serde(rename = "key_assinatura_requisicao")]
    pub signature_request_key: Option<String>,
    #[serde(rename = "reenvios")]
    pub resends: i32,
    pub status: ProposalStatus,
    #[serde(rename = "alterado_por")]
    pub changed_by: String,
    #[serde(rename = "alterado_em", serialize_with = "domain::wire::serialize_timestamp")]
    #[schema(format = DateTime, value_type = String)]
    pub updated_at: DateTime<Utc>,
    #[serde(rename = "criado_em", serialize_with = "domain::wire::serialize_timestamp")]
    #[schema(format = DateTime, value_type = String)]
    pub created_at: DateTime<Utc>,
    #[serde(rename = "cnpj_associacao")]
    pub association_cnpj: Option<String>,
    #[serde(rename = "cnpj_federacao")]
    pub federation_cnpj: Option<String>,
    #[serde(rename = "tipo_envio")]
    pub shipping: ShippingType,
    #[serde(rename = "reenvio_notificacao")]
    pub notification_resends: i32,
    #[serde(rename = "fluxo")]
    pub flow: Flow,
    // Spelled so by the spec.
    #[serde(rename = "codigo_Associado")]
    pub associate_code: Option<String>,
    #[serde(rename = "id_motivacao")]
    pub motivation_id: i32,
    #[serde(rename = "id_produto")]
    pub product_id: i64,
    #[serde(rename = "id_gravacao")]
    pub recording_id: Option<String>,
    #[serde(rename = "id_convite")]
    pub invite_id: Option<String>,
    #[serde(rename = "assinatura_eletronica")]
    pub electronic_signature: Option<String>,
    #[serde(rename = "codigo_faturamento")]
    pub billing_code: i32,
}

impl From<ProposalRecord> for ProposalRecordDto {
    fn from(r: ProposalRecord) -> Self {
        ProposalRecordDto {
            id: r.id,
            identifier: r.identifier,
            jave_id: r.jave_id,
            value: r.value,
            partner_document: r.partner_document,
            representative_id: r.representative_id,
            customer_id: r.customer_id,
            document_key: r.document_key,
            signature_request_key: r.signature_request_key,
            resends: r.resends,
            status: r.status,
            changed_by: r.stamp.changed_by,
            updated_at: r.stamp.updated_at,
            created_at: r.stamp.created_at,
            association_cnpj: r.association_cnpj,
            federation_cnpj: r.federation_cnpj,
            shipping: r.shipping,
            notification_resends: r.notification_resends,
            flow: r.flow,
            associate_code: r.associate_code,
            motivation_id: r.motivation_id,
            product_id: r.product_id,
            recording_id: r.recording_id,
            invite_id: r.invite_id,
            electronic_signature: r.electronic_signature,
            billing_code: r.billing_code,
        }
    }
}
