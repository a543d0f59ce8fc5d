//! The one place where failures become HTTP answers. Every code, its status and its message are
//! one row of the `error_codes!` table; `docs/errors.md` lists the same, checked by a test.

use actix_web::http::StatusCode;
use actix_web::http::header::{self, HeaderValue};
use actix_web::{HttpResponse, ResponseError};
use domain::acceptance::SuspendRefusal;
use domain::acceptance::ports::PendingStoreError;
use domain::acceptance::service::PendingError;
use domain::access::AccessError;
use domain::auth::ports::{HashError, TokenError};
use domain::auth::sign_in::{AuthenticationError, RefreshError, SignInError};
use domain::catalog::CatalogError;
use domain::catalog::ports::CatalogWriteError;
use domain::certificates::CertificateError;
use domain::ecommerce::{EcommerceError, PaymentError, PaymentEventError};
use domain::hooks::HookError;
use domain::hooks::bodies::HookPatchRefusal;
use domain::input::NotAnObject;
use domain::privacy::PrivacyError;
use domain::privacy::person_channel::PersonLinkError;
use domain::privacy::subject_requests::SubjectRequestError;
use domain::proposals::operations::OperationKind;
use domain::proposals::service::ProposalError;
use domain::proposals::settlement::SettlementError;
use domain::proposals::signing::SigningError;
use domain::proposals::withdrawal::WithdrawalError;
use domain::recovery::{RecoveryError, ResetError};
use domain::signature::CallbackError;
use domain::store::StoreError;
use domain::users::AdministerUserError;
use domain::validation::{FieldError, Violations, codes};
use domain::values::ProposalStatus;
use serde::Serialize;
use std::fmt;
use utoipa::ToSchema;

/// Declares every error code once: its variant, its stable text, its HTTP status and its default
/// message. `ErrorCode::ALL`, `code()`, `status()`, `message()` and the list in `docs/errors.md`
/// (checked by a test) all come from this one table, so none can miss a code.
macro_rules! error_codes {
    ($($variant:ident => ($code:literal, $status:ident, $message:literal),)+) => {
        /// The stable codes of error answers (beside the per-field codes of validation failures).
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum ErrorCode {
            $($variant,)+
        }

        impl ErrorCode {
            pub const ALL: &'static [ErrorCode] = &[$(ErrorCode::$variant,)+];

            /// The code, its status and its default message.
            const fn row(self) -> (&'static str, StatusCode, &'static str) {
                match self {
                    $(ErrorCode::$variant => ($code, StatusCode::$status, $message),)+
                }
            }
        }
    };
}

error_codes! {
    ValidationFailed => ("dados_invalidos", BAD_REQUEST, "Dados inválidos: verifique os campos indicados em errors."),
    BadRequest => ("requisicao_invalida", BAD_REQUEST, "Requisição inválida."),
    UnknownVersion => ("versao_desconhecida", BAD_REQUEST, "Versão do contrato desconhecida em Sales-Version."),
    MalformedBody => ("corpo_malformado", UNPROCESSABLE_ENTITY, "Corpo da requisição malformado: envie um objeto JSON válido."),
    UnsupportedMediaType => ("tipo_conteudo_invalido", UNSUPPORTED_MEDIA_TYPE, "Content-Type deve ser application/json."),
    BodyTimeout => ("corpo_atrasado", REQUEST_TIMEOUT, "O corpo da requisição não chegou a tempo: envie-o de uma vez."),
    PayloadTooLarge => ("corpo_muito_grande", PAYLOAD_TOO_LARGE, "Corpo da requisição excede o tamanho máximo permitido."),
    NotFound => ("nao_encontrado", NOT_FOUND, "Recurso não encontrado."),
    MethodNotAllowed => ("metodo_nao_permitido", METHOD_NOT_ALLOWED, "Método não permitido para este recurso."),
    Unauthorized => ("nao_autenticado", UNAUTHORIZED, "Token de acesso ausente, inválido ou expirado."),
    SessionEnded => ("sessao_encerrada", UNAUTHORIZED, "Sessão encerrada: entre novamente."),
    Forbidden => ("sem_permissao", FORBIDDEN, "Sem permissão para acessar este recurso com a aplicação do token."),
    WrongPassword => ("credenciais_invalidas", UNAUTHORIZED, "E-mail ou senha incorretos."),
    UnknownUser => ("usuario_nao_encontrado", NOT_FOUND, "Usuário não encontrado."),
    ApplicationNotAllowed => ("aplicacao_nao_permitida", FORBIDDEN, "Usuário sem permissão para a aplicação informada."),
    UserDisabled => ("usuario_desativado", FORBIDDEN, "Usuário desativado."),
    InvalidRefreshToken => ("refresh_token_invalido", UNAUTHORIZED, "Refresh token inválido, expirado ou já utilizado."),
    TooManyRequests => ("muitas_tentativas", TOO_MANY_REQUESTS, "Muitas tentativas. Tente novamente mais tarde."),
    RateLimited => ("limite_requisicoes", TOO_MANY_REQUESTS, "Limite de requisições por minuto atingido. Tente novamente mais tarde."),
    ServiceUnavailable => ("servico_indisponivel", SERVICE_UNAVAILABLE, "Serviço temporariamente indisponível. Tente novamente em instantes."),
    Internal => ("erro_interno", INTERNAL_SERVER_ERROR, "Erro interno. Tente novamente mais tarde."),
    PartnerMissing => ("parceiro_nao_vinculado", FORBIDDEN, "Usuário PARCEIRO sem parceiro vinculado."),
    OpenProposalExists => ("proposta_em_andamento", BAD_REQUEST, "Cliente já possui proposta em andamento para este produto."),
    ProposalNotFound => ("proposta_nao_encontrada", NOT_FOUND, "Proposta não encontrada."),
    ProductNotFound => ("produto_nao_encontrado", NOT_FOUND, "Produto não encontrado."),
    RecoveryTokenUnknown => ("token_recuperacao_nao_encontrado", NOT_FOUND, "Token de recuperação não encontrado."),
    RecoveryTokenInvalid => ("token_recuperacao_invalido", UNAUTHORIZED, "Token de recuperação expirado ou já utilizado."),
    PasswordPolicy => ("senha_fora_da_politica", UNPROCESSABLE_ENTITY, "A senha não atende aos critérios mínimos."),
    TransitionRefused => ("transicao_invalida", BAD_REQUEST, "Mudança de status não permitida."),
    ResendLimit => ("limite_reenvios", BAD_REQUEST, "Limite de reenvios do link de assinatura atingido."),
    DocumentRemoved => ("documento_removido", NOT_FOUND, "O documento desta proposta foi apagado na anonimização do titular: a proposta não chegou a ser contratada."),
    SignatureNotSent => ("assinatura_nao_enviada", NOT_FOUND, "A proposta ainda não foi enviada para assinatura."),
    NotCancellable => ("cancelamento_nao_permitido", CONFLICT, "A proposta não pode mais ser cancelada."),
    ProposalCancelled => ("proposta_cancelada", CONFLICT, "A proposta foi cancelada: o link de assinatura não vale mais."),
    ProtocolNotFound => ("protocolo_nao_encontrado", NOT_FOUND, "Protocolo não encontrado."),
    NotWithdrawable => ("arrependimento_nao_permitido", CONFLICT, "O arrependimento vale para a venda concluída (assinada ou paga) e ainda não encerrada."),
    WithdrawalDeadlinePassed => ("prazo_arrependimento_encerrado", CONFLICT, "O prazo de arrependimento (7 dias corridos após a conclusão da venda) terminou."),
    OperationInProgress => ("operacao_em_andamento", CONFLICT, "Outra operação está em andamento nesta proposta: aguarde que termine e tente novamente."),
    RefundRefused => ("reembolso_recusado", CONFLICT, "A plataforma de pagamento recusou o reembolso; nada mudou."),
    NoDebitAuthorization => ("autorizacao_debito_inexistente", CONFLICT, "A proposta não tem autorização de débito em conta: só um contrato aceito pago por DÉBITO EM CONTA a tem."),
    DebitAuthorizationInactive => ("autorizacao_debito_inativa", CONFLICT, "A autorização de débito em conta não está mais ativa: nada a revogar."),
    ProposalExpired => ("proposta_expirada", CONFLICT, "O prazo de assinatura desta proposta venceu: o link de assinatura não vale mais."),
    SignatureProviderFailed => ("provedor_assinatura_indisponivel", BAD_GATEWAY, "O provedor de assinatura falhou; a proposta não mudou. Tente novamente mais tarde."),
    CallbackUnauthenticated => ("callback_nao_autenticado", UNAUTHORIZED, "Assinatura do callback inválida."),
    UnknownSignatureKey => ("chave_assinatura_desconhecida", NOT_FOUND, "Chave de assinatura desconhecida."),
    ProviderCopyMissing => ("copia_provedor_inexistente", NOT_FOUND, "O provedor de assinatura ainda não entregou a cópia assinada."),
    CustomerNotFound => ("cliente_nao_encontrado", NOT_FOUND, "Cliente não encontrado."),
    PlatformCustomerMissing => ("cliente_sem_plataforma", BAD_REQUEST, "Cliente sem cadastro na plataforma de pagamento: chame /ecommerce/createCustomer antes."),
    PaymentMethodMissing => ("forma_pagamento_ausente", BAD_REQUEST, "Cliente sem forma de pagamento salva: conclua o SetupIntent de /ecommerce/createSetupIntent antes."),
    ProductWithoutPrice => ("produto_sem_preco", BAD_REQUEST, "Produto sem preço na plataforma de pagamento."),
    SubscriptionAlreadyActive => ("assinatura_ja_ativa", BAD_REQUEST, "Assinatura já ativa para o cliente e o produto."),
    PaymentDeclined => ("pagamento_recusado", BAD_REQUEST, "Pagamento recusado."),
    PaymentInvalid => ("pagamento_invalido", BAD_REQUEST, "A plataforma de pagamento recusou a requisição."),
    PaymentUnavailable => ("plataforma_pagamento_indisponivel", SERVICE_UNAVAILABLE, "Plataforma de pagamento indisponível; nada foi cobrado. Tente novamente em instantes."),
    PaymentTimeout => ("plataforma_pagamento_sem_resposta", GATEWAY_TIMEOUT, "A plataforma de pagamento não respondeu a tempo. Tente novamente em instantes."),
    PaymentEventUnauthenticated => ("evento_pagamento_nao_autenticado", UNAUTHORIZED, "Assinatura do evento de pagamento inválida."),
    PixPspUnavailable => ("psp_pix_indisponivel", SERVICE_UNAVAILABLE, "O PSP do Pix falhou; nada mudou. Tente novamente: nada é feito duas vezes."),
    PixNotificationUnauthenticated => ("notificacao_pix_nao_autenticada", UNAUTHORIZED, "Notificação Pix sem o certificado verificado de um PSP autorizado."),
    HookNotFound => ("webhook_nao_encontrado", NOT_FOUND, "Assinatura de eventos não encontrada."),
    DeliveryNotFound => ("entrega_nao_encontrada", NOT_FOUND, "Entrega não encontrada nesta assinatura de eventos."),
    HookInactive => ("webhook_inativo", BAD_REQUEST, "Assinatura de eventos inativa: ative-a antes de pedir um evento de teste ou um reenvio."),
    HookLimit => ("limite_webhooks", CONFLICT, "Limite de assinaturas de eventos atingido: apague uma antes de criar outra."),
    HookTestInFlight => ("teste_em_andamento", CONFLICT, "Um evento de teste desta assinatura está sendo enviado: aguarde o resultado antes de pedir outro."),
    HookReplayRunning => ("reenvio_em_andamento", CONFLICT, "Um reenvio desta assinatura ainda tem entregas aguardando: aguarde que terminem antes de pedir outro."),
    IdempotencyKeyReused => ("idempotencia_outra_requisicao", UNPROCESSABLE_ENTITY, "Idempotency-Key já usada com outra requisição."),
    IdempotentAnswerForgotten => ("idempotencia_esquecida", CONFLICT, "A resposta desta Idempotency-Key foi apagada (anonimização) e não pode ser repetida."),
    IdempotentRequestInFlight => ("requisicao_em_andamento", CONFLICT, "Uma requisição com esta Idempotency-Key está em andamento. Tente novamente em instantes."),
    AnonymizationBlocked => ("anonimizacao_bloqueada", CONFLICT, "Há propostas em andamento para este CPF: conclua-as ou cancele-as antes de anonimizar."),
    NoPersonalData => ("titular_sem_dados", NOT_FOUND, "Nenhum dado pessoal mantido para este CPF."),
    RetentionHold => ("retencao_legal", CONFLICT, "Há contrato cuja guarda a lei exige: os dados do titular foram bloqueados, não anonimizados."),
    SubjectRequestNotFound => ("pedido_titular_nao_encontrado", NOT_FOUND, "Nenhum pedido de titular com este protocolo."),
    SubjectRequestAnswered => ("pedido_titular_respondido", CONFLICT, "Este pedido já foi respondido: a primeira resposta fica registrada."),
    SubjectWithoutEmail => ("titular_sem_email", CONFLICT, "Nenhum e-mail mantido para o titular: responda por outro meio, sem enviar os dados."),
    DataNotTheAnswer => ("pedido_sem_envio_de_dados", CONFLICT, "Este tipo de pedido não se responde com os dados do titular."),
    PersonalDataNotSent => ("dados_nao_enviados", BAD_GATEWAY, "O servidor de e-mail não aceitou o envio dos dados; nada foi registrado. Tente de novo."),
    PersonLinkUnknown => ("link_titular_nao_encontrado", NOT_FOUND, "Link não encontrado: peça outro na página de privacidade."),
    PersonLinkSpent => ("link_titular_invalido", GONE, "Link expirado ou já utilizado: peça outro na página de privacidade."),
    PersonLinkOtherPurpose => ("link_titular_outra_finalidade", CONFLICT, "Este link foi enviado para outro pedido."),
    DocumentsLinkUnknown => ("link_documentos_nao_encontrado", NOT_FOUND, "Link não encontrado: confira o endereço recebido por e-mail."),
    DocumentsLinkSpent => ("link_documentos_invalido", GONE, "Este link já foi usado ou o pedido de documentos não está mais aberto."),
    PersonBlocked => ("titular_bloqueado", CONFLICT, "Os dados deste titular estão bloqueados por retenção legal: não podem ser usados em novo cadastro ou proposta."),
    PendingNotFound => ("pendencia_nao_encontrada", NOT_FOUND, "Pedido de documentos não encontrado nesta proposta."),
    NotInAnalysis => ("proposta_fora_de_analise", CONFLICT, "A proposta não está em análise."),
    PendingOpen => ("pendencia_em_aberto", CONFLICT, "Há um pedido de documentos em aberto nesta proposta: aguarde a resposta do vendedor."),
    SuspensionsExhausted => ("suspensoes_esgotadas", CONFLICT, "O produto não permite outra suspensão do prazo de aceitação."),
    PendingAnswered => ("pendencia_respondida", CONFLICT, "Este pedido de documentos já foi respondido."),
    NotAccepted => ("proposta_nao_aceita", CONFLICT, "A proposta ainda não foi aceita: o certificado é emitido na aceitação (APROVADO)."),
    CoverIncomplete => ("produto_sem_dados_certificado", CONFLICT, "O produto não tem os dados do certificado no catálogo (sales-api catalog cover)."),
    CpfIrregular => ("cpf_irregular", UNPROCESSABLE_ENTITY, "O CPF do cliente (campo cpf) não está REGULAR na Receita Federal: a venda não pode seguir."),
    IndexUnavailable => ("indice_correcao_indisponivel", SERVICE_UNAVAILABLE, "A fonte do IPCA, que corrige os reembolsos, não respondeu; nada mudou. Tente novamente em instantes."),
}

impl ErrorCode {
    /// The codes only the person's HTML pages answer (`/privacidade`, decision 287; `/documentos`,
    /// decision 289): no route of
    /// the OpenAPI document carries them, so its error bodies leave them out.
    pub const PAGES_ONLY: &'static [ErrorCode] = &[
        ErrorCode::PersonLinkUnknown,
        ErrorCode::PersonLinkSpent,
        ErrorCode::PersonLinkOtherPurpose,
        ErrorCode::DocumentsLinkUnknown,
        ErrorCode::DocumentsLinkSpent,
    ];

    pub fn code(self) -> &'static str {
        self.row().0
    }

    pub fn status(self) -> StatusCode {
        self.row().1
    }

    /// The default message; some answers give a more precise one.
    pub fn message(self) -> &'static str {
        self.row().2
    }
}

/// An error answer: its code, message, the invalid fields (for validation failures) and, for 429,
/// the seconds to wait.
#[derive(Debug)]
pub struct ApiError {
    pub code: ErrorCode,
    pub message: String,
    pub fields: Vec<FieldError>,
    pub retry_after_secs: Option<u64>,
    /// Route 2 answers `success` in errors too.
    pub success_member: bool,
}

impl ApiError {
    pub fn new(code: ErrorCode) -> Self {
        Self {
            code,
            message: code.message().to_owned(),
            fields: Vec::new(),
            retry_after_secs: None,
            success_member: false,
        }
    }

    pub fn with_message(code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            ..Self::new(code)
        }
    }

    /// 400 `versao_desconhecida`: the version named in `place` (the `Sales-Version` header, the
    /// document's `version` query) is none of these, which the message names.
    pub fn unknown_version(place: &str, unknown: &contract_versions::UnknownVersion) -> Self {
        Self::with_message(
            ErrorCode::UnknownVersion,
            format!(
                "Versão do contrato desconhecida em {place}: {:?}. As conhecidas são {}.",
                unknown.given,
                contract_versions::ApiVersion::known()
            ),
        )
    }

    pub fn with_success_member(self) -> Self {
        Self {
            success_member: true,
            ..self
        }
    }

    pub fn invalid(violations: Violations) -> Self {
        Self {
            fields: violations.errors().to_vec(),
            ..Self::new(ErrorCode::ValidationFailed)
        }
    }
}

impl fmt::Display for ApiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code.code(), self.message)
    }
}

/// `Retry-After` of a 503: about the pool's wait for a connection, so that a retry finds the
/// database back after a restart or a fail-over.
pub const UNAVAILABLE_RETRY_AFTER_SECS: u64 = 5;

/// Every error answer: the spec's envelope with a stable `code` and, for validation failures,
/// `errors`. The OpenAPI document describes this very type (each answer's `code`s enumerated from
/// the table above, in `routes::docs`).
#[derive(Serialize, ToSchema)]
#[schema(
    description = "Toda resposta de erro: o envelope da especificação com um `code` estável e, em falhas de validação, `errors`.",
    example = json!({
        "status": "error", "message": "Dados inválidos: verifique os campos indicados em errors.",
        "code": "dados_invalidos", "document": [], "rowsAffected": [],
        "errors": [{"field": "customer.cpf", "code": "cpf_digito", "message": "CPF inválido: dígitos verificadores não conferem"}]
    })
)]
pub struct ErrorEnvelope<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    /// Somente nas respostas de `PUT /passwordReset`, sempre `false` (a forma da rota 2).
    #[schema(nullable = false)]
    success: Option<bool>,
    #[schema(example = "error")]
    status: &'static str,
    message: &'a str,
    /// Código estável do erro; veja docs/errors.md.
    code: &'static str,
    #[schema(value_type = Vec<Object>, max_items = 0)]
    document: [(); 0],
    #[serde(rename = "rowsAffected")]
    #[schema(value_type = Vec<i64>, max_items = 0)]
    rows_affected: [(); 0],
    #[serde(skip_serializing_if = "<[FieldError]>::is_empty")]
    /// Em falhas de validação: cada campo inválido.
    #[schema(value_type = Option<Vec<FieldError>>, nullable = false)]
    errors: &'a [FieldError],
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        self.code.status()
    }

    fn error_response(&self) -> HttpResponse {
        let mut response = HttpResponse::build(self.status_code());
        // A 503 is the database or a pool away for a moment: say when to try again.
        let retry_after = self.retry_after_secs.or_else(|| {
            (self.status_code() == StatusCode::SERVICE_UNAVAILABLE).then_some(UNAVAILABLE_RETRY_AFTER_SECS)
        });
        if let Some(secs) = retry_after {
            response.insert_header((header::RETRY_AFTER, HeaderValue::from(secs)));
        }
        response.json(ErrorEnvelope {
            success: self.success_member.then_some(false),
            status: "error",
            message: &self.message,
            code: self.code.code(),
            document: [],
            rows_affected: [],
            errors: &self.fields,
        })
    }
}

impl From<Violations> for ApiError {
    fn from(v: Violations) -> Self {
        ApiError::invalid(v)
    }
}

impl From<NotAnObject> for ApiError {
    fn from(_: NotAnObject) -> Self {
        ApiError::with_message(ErrorCode::MalformedBody, "Corpo da requisição deve ser um objeto JSON.")
    }
}

impl From<HookPatchRefusal> for ApiError {
    fn from(refusal: HookPatchRefusal) -> Self {
        match refusal {
            HookPatchRefusal::Invalid(v) => ApiError::invalid(v),
            HookPatchRefusal::Empty => ApiError::with_message(ErrorCode::BadRequest, refusal.to_string()),
        }
    }
}

impl From<StoreError> for ApiError {
    fn from(error: StoreError) -> Self {
        match error {
            StoreError::Unavailable(cause) => {
                tracing::warn!(%cause, "database unavailable");
                ApiError::new(ErrorCode::ServiceUnavailable)
            }
            StoreError::Unexpected(cause) => {
                tracing::error!(%cause, "database failure");
                ApiError::new(ErrorCode::Internal)
            }
        }
    }
}

impl From<HashError> for ApiError {
    fn from(error: HashError) -> Self {
        match error {
            HashError::Busy => ApiError::new(ErrorCode::ServiceUnavailable),
            HashError::Failed(cause) => {
                tracing::error!(%cause, "password hashing failed");
                ApiError::new(ErrorCode::Internal)
            }
        }
    }
}

impl From<TokenError> for ApiError {
    fn from(error: TokenError) -> Self {
        match error {
            TokenError::Invalid => ApiError::new(ErrorCode::Unauthorized),
            TokenError::Signing(cause) => {
                tracing::error!(%cause, "token signing failed");
                ApiError::new(ErrorCode::Internal)
            }
        }
    }
}

impl From<SignInError> for ApiError {
    fn from(error: SignInError) -> Self {
        match error {
            SignInError::Throttled { until } => throttled(until),
            SignInError::UnknownUser => ApiError::new(ErrorCode::UnknownUser),
            SignInError::WrongPassword => ApiError::new(ErrorCode::WrongPassword),
            SignInError::ApplicationNotAllowed => ApiError::new(ErrorCode::ApplicationNotAllowed),
            SignInError::Disabled => ApiError::new(ErrorCode::UserDisabled),
            SignInError::Hash(e) => e.into(),
            SignInError::Token(e) => e.into(),
            SignInError::Store(e) => e.into(),
        }
    }
}

impl From<AccessError> for ApiError {
    fn from(error: AccessError) -> Self {
        match error {
            AccessError::Forbidden => ApiError::new(ErrorCode::Forbidden),
            AccessError::NoPartner => ApiError::new(ErrorCode::PartnerMissing),
        }
    }
}

impl From<AdministerUserError> for ApiError {
    fn from(error: AdministerUserError) -> Self {
        match error {
            AdministerUserError::Access(access) => access.into(),
            AdministerUserError::Invalid(violations) => violations.into(),
            AdministerUserError::NotFound => ApiError::new(ErrorCode::UnknownUser),
            AdministerUserError::NoPartner => ApiError::new(ErrorCode::PartnerMissing),
            AdministerUserError::Store(store) => store.into(),
        }
    }
}

impl From<ProposalError> for ApiError {
    fn from(error: ProposalError) -> Self {
        match error {
            ProposalError::Access(e) => e.into(),
            ProposalError::Invalid(v) => ApiError::invalid(v),
            ProposalError::DuplicateOpen => ApiError::new(ErrorCode::OpenProposalExists),
            ProposalError::PersonBlocked => ApiError::new(ErrorCode::PersonBlocked),
            ProposalError::NotFound => ApiError::new(ErrorCode::ProposalNotFound),
            ProposalError::UnknownProduct => ApiError::new(ErrorCode::ProductNotFound),
            ProposalError::CpfIrregular(situation) => ApiError::with_message(
                ErrorCode::CpfIrregular,
                format!(
                    "O CPF do cliente (campo cpf) está com situação {} na Receita Federal: a venda não pode seguir. Nada foi gravado.",
                    situation.as_str()
                ),
            ),
            ProposalError::Store(e) => e.into(),
        }
    }
}

impl From<SubjectRequestError> for ApiError {
    fn from(error: SubjectRequestError) -> Self {
        match error {
            SubjectRequestError::Access(e) => e.into(),
            SubjectRequestError::NotFound => ApiError::new(ErrorCode::SubjectRequestNotFound),
            SubjectRequestError::AlreadyAnswered(first) => ApiError::with_message(
                ErrorCode::SubjectRequestAnswered,
                format!(
                    "O pedido {} já foi respondido por {}: a primeira resposta fica registrada.",
                    first.protocol,
                    first.answer.map(|a| a.by).unwrap_or_default()
                ),
            ),
            SubjectRequestError::NoEmail => ApiError::new(ErrorCode::SubjectWithoutEmail),
            SubjectRequestError::NotAnsweredWithData(kind) => ApiError::with_message(
                ErrorCode::DataNotTheAnswer,
                format!(
                    "Um pedido de {} não se responde com os dados do titular: registre a resposta sem enviá-los.",
                    kind.label()
                ),
            ),
            SubjectRequestError::NotSent(error) => {
                tracing::warn!(%error, "personal data not sent");
                ApiError::new(ErrorCode::PersonalDataNotSent)
            }
            SubjectRequestError::Privacy(e) => e.into(),
            SubjectRequestError::Store(e) => e.into(),
        }
    }
}

impl From<PersonLinkError> for ApiError {
    fn from(error: PersonLinkError) -> Self {
        match error {
            PersonLinkError::Throttled { until } => throttled(until),
            PersonLinkError::Unknown => ApiError::new(ErrorCode::PersonLinkUnknown),
            PersonLinkError::Spent => ApiError::new(ErrorCode::PersonLinkSpent),
            PersonLinkError::OtherPurpose => ApiError::new(ErrorCode::PersonLinkOtherPurpose),
            PersonLinkError::Privacy(e) => e.into(),
            PersonLinkError::Store(e) => e.into(),
        }
    }
}

impl From<PrivacyError> for ApiError {
    fn from(error: PrivacyError) -> Self {
        match error {
            PrivacyError::Access(e) => e.into(),
            PrivacyError::Blocked(open) => ApiError::with_message(
                ErrorCode::AnonymizationBlocked,
                format!(
                    "Há propostas em andamento para este CPF: {}. Conclua-as ou cancele-as antes de anonimizar.",
                    open.join(", ")
                ),
            ),
            PrivacyError::NothingHeld => ApiError::new(ErrorCode::NoPersonalData),
            PrivacyError::PersonBlocked => ApiError::with_message(
                ErrorCode::PersonBlocked,
                "Os dados deste titular estão bloqueados por retenção legal: não podem servir a uma nova finalidade. \
                 A revogação de um consentimento é aceita.",
            ),
            PrivacyError::Held { hold, policy } => {
                ApiError::with_message(ErrorCode::RetentionHold, hold.erasure_answer(policy))
            }
            PrivacyError::Store(e) => e.into(),
        }
    }
}

impl From<CatalogError> for ApiError {
    fn from(error: CatalogError) -> Self {
        let field_error = |field: &str, code: &'static str, message: &str| {
            let mut v = Violations::new();
            v.add(field, code, message);
            ApiError::invalid(v)
        };
        match error {
            CatalogError::Access(e) => e.into(),
            CatalogError::ProductNotFound => ApiError::new(ErrorCode::ProductNotFound),
            CatalogError::Write(CatalogWriteError::Duplicate { field }) => {
                field_error(field, codes::DUPLICATE, &format!("{field} já cadastrado"))
            }
            CatalogError::Write(CatalogWriteError::UnknownProduct) => {
                field_error("codigo_produto", codes::UNKNOWN_REFERENCE, "produto não encontrado")
            }
            CatalogError::Write(CatalogWriteError::NotFound) => ApiError::new(ErrorCode::NotFound),
            CatalogError::Write(CatalogWriteError::Store(e)) | CatalogError::Store(e) => e.into(),
        }
    }
}

impl From<EcommerceError> for ApiError {
    fn from(error: EcommerceError) -> Self {
        match error {
            EcommerceError::Access(e) => e.into(),
            EcommerceError::CustomerNotFound => ApiError::new(ErrorCode::CustomerNotFound),
            EcommerceError::ProposalNotFound => ApiError::with_message(
                ErrorCode::ProposalNotFound,
                "Proposta não encontrada para o identificador informado.",
            ),
            EcommerceError::MissingPlatformCustomer => ApiError::new(ErrorCode::PlatformCustomerMissing),
            EcommerceError::MissingPaymentMethod => ApiError::new(ErrorCode::PaymentMethodMissing),
            EcommerceError::MissingPrice => ApiError::new(ErrorCode::ProductWithoutPrice),
            EcommerceError::AlreadyActive => ApiError::new(ErrorCode::SubscriptionAlreadyActive),
            EcommerceError::NotNew { status } => ApiError::with_message(
                ErrorCode::TransitionRefused,
                format!("A proposta está {status}: a assinatura só é criada para proposta NOVO."),
            ),
            EcommerceError::OperationInProgress { kind } => in_progress(kind),
            EcommerceError::Payment(PaymentError::Declined(reason)) => {
                ApiError::with_message(ErrorCode::PaymentDeclined, format!("Pagamento recusado: {reason}"))
            }
            EcommerceError::Payment(PaymentError::Invalid(reason)) => {
                tracing::warn!(%reason, "payment platform refused a request");
                ApiError::new(ErrorCode::PaymentInvalid)
            }
            EcommerceError::Payment(PaymentError::RateLimited | PaymentError::Unavailable(_)) => {
                ApiError::new(ErrorCode::PaymentUnavailable)
            }
            EcommerceError::Payment(PaymentError::Timeout) => ApiError::new(ErrorCode::PaymentTimeout),
            EcommerceError::Event(PaymentEventError::BadSignature) => {
                ApiError::new(ErrorCode::PaymentEventUnauthenticated)
            }
            EcommerceError::Event(PaymentEventError::Stale) => {
                ApiError::with_message(ErrorCode::BadRequest, "Evento fora da tolerância de tempo.")
            }
            EcommerceError::Event(PaymentEventError::Malformed(why)) => {
                ApiError::with_message(ErrorCode::BadRequest, format!("Evento ilegível: {why}."))
            }
            EcommerceError::Store(e) => e.into(),
        }
    }
}

impl From<PendingError> for ApiError {
    fn from(error: PendingError) -> Self {
        match error {
            PendingError::Access(e) => e.into(),
            PendingError::Recorded(e) => match e {
                PendingStoreError::ProposalNotFound => ApiError::new(ErrorCode::ProposalNotFound),
                PendingStoreError::RequestNotFound => ApiError::new(ErrorCode::PendingNotFound),
                PendingStoreError::NotInAnalysis(status) => ApiError::with_message(
                    ErrorCode::NotInAnalysis,
                    format!("A proposta está {status}: só uma proposta EM ANÁLISE tem prazo de aceitação."),
                ),
                PendingStoreError::Refused(SuspendRefusal::Decided) => ApiError::new(ErrorCode::NotInAnalysis),
                PendingStoreError::Refused(SuspendRefusal::AlreadySuspended) => ApiError::new(ErrorCode::PendingOpen),
                PendingStoreError::Refused(e @ SuspendRefusal::NoSuspensionsLeft { .. }) => {
                    ApiError::with_message(ErrorCode::SuspensionsExhausted, capitalised(&e))
                }
                PendingStoreError::AlreadyAnswered => ApiError::new(ErrorCode::PendingAnswered),
                PendingStoreError::NotAnAnalyst(email) => {
                    let mut v = domain::validation::Violations::new();
                    v.add(
                        "analyst",
                        domain::validation::codes::UNKNOWN_REFERENCE,
                        format!("{email} não é um usuário ativo da retaguarda"),
                    );
                    ApiError::invalid(v)
                }
                PendingStoreError::FileNotFound => {
                    ApiError::with_message(ErrorCode::PendingNotFound, "Arquivo não encontrado nesta proposta.")
                }
                PendingStoreError::ProponentAnswers => ApiError::with_message(
                    ErrorCode::Forbidden,
                    "Este pedido de documentos é respondido pelo proponente, pelo link enviado ao seu e-mail: o vendedor não lê nem envia esses documentos.",
                ),
                PendingStoreError::LinkNotFound => ApiError::new(ErrorCode::DocumentsLinkUnknown),
                PendingStoreError::LinkSpent => ApiError::new(ErrorCode::DocumentsLinkSpent),
                PendingStoreError::Store(e) => e.into(),
            },
        }
    }
}

impl From<WithdrawalError> for ApiError {
    fn from(error: WithdrawalError) -> Self {
        match error {
            WithdrawalError::Access(e) => e.into(),
            WithdrawalError::NotFound => ApiError::new(ErrorCode::ProposalNotFound),
            WithdrawalError::NotWithdrawable { status } => ApiError::with_message(
                ErrorCode::NotWithdrawable,
                match status {
                    ProposalStatus::New | ProposalStatus::AwaitingSignature => format!(
                        "A proposta está {status}: o arrependimento vale para a venda concluída (EM ANÁLISE ou APROVADO); antes da assinatura, cancele."
                    ),
                    _ => format!(
                        "A proposta está {status}: a venda já foi encerrada e não há arrependimento a registrar."
                    ),
                },
            ),
            WithdrawalError::OperationInProgress { kind } => in_progress(kind),
            e @ WithdrawalError::NotConcluded => ApiError::with_message(ErrorCode::NotWithdrawable, capitalised(&e)),
            e @ WithdrawalError::DeadlinePassed { .. } => {
                ApiError::with_message(ErrorCode::WithdrawalDeadlinePassed, capitalised(&e))
            }
            e @ WithdrawalError::RefundRefused { .. } => ApiError::with_message(
                ErrorCode::RefundRefused,
                format!("{}; a proposta e a assinatura recorrente não mudaram.", capitalised(&e)),
            ),
            WithdrawalError::Payment(PaymentError::Timeout) => ApiError::new(ErrorCode::PaymentTimeout),
            WithdrawalError::Payment(e) => {
                tracing::warn!(error = %e, "payment platform failed during a withdrawal");
                ApiError::with_message(
                    ErrorCode::PaymentUnavailable,
                    "A plataforma de pagamento falhou; a proposta não mudou. Tente novamente: nenhum reembolso é feito duas vezes.",
                )
            }
            WithdrawalError::Pix(e) => {
                tracing::warn!(error = %e, "Pix PSP failed during a withdrawal");
                ApiError::with_message(
                    ErrorCode::PixPspUnavailable,
                    "O PSP do Pix falhou ao encerrar a recorrência; a proposta não mudou. Tente novamente: nada é feito duas vezes.",
                )
            }
            WithdrawalError::Index(e) => {
                tracing::warn!(error = %e, "IPCA source failed: nothing refunded");
                ApiError::new(ErrorCode::IndexUnavailable)
            }
            WithdrawalError::Store(e) => e.into(),
        }
    }
}

impl From<CertificateError> for ApiError {
    fn from(error: CertificateError) -> Self {
        match error {
            CertificateError::Access(e) => e.into(),
            CertificateError::NotFound => ApiError::new(ErrorCode::ProposalNotFound),
            e @ CertificateError::NotAccepted { .. } => ApiError::with_message(ErrorCode::NotAccepted, capitalised(&e)),
            CertificateError::IncompleteCover(e) => {
                tracing::warn!(error = %e, "certificate not issued: the product's cover is incomplete");
                ApiError::with_message(ErrorCode::CoverIncomplete, format!("{}.", capitalised(&e)))
            }
            CertificateError::Render(e) => {
                tracing::error!(error = %e, "certificate rendering failed");
                ApiError::new(ErrorCode::Internal)
            }
            CertificateError::Mail(e) => {
                tracing::warn!(error = %e, "certificate not mailed");
                ApiError::new(ErrorCode::ServiceUnavailable)
            }
            CertificateError::Store(e) => e.into(),
        }
    }
}

impl From<domain::billing::pix_collection::PixCollectionError> for ApiError {
    fn from(error: domain::billing::pix_collection::PixCollectionError) -> Self {
        use domain::billing::pix_collection::PixCollectionError;
        match error {
            PixCollectionError::Store(e) => e.into(),
            PixCollectionError::NotPix => ApiError::new(ErrorCode::NotFound),
            PixCollectionError::Psp(domain::billing::pix::PixError::NotFound(_)) => ApiError::new(ErrorCode::NotFound),
            PixCollectionError::Psp(e @ domain::billing::pix::PixError::Refused(_)) => {
                ApiError::with_message(ErrorCode::BadRequest, capitalised(&e))
            }
            PixCollectionError::Psp(e) => {
                tracing::warn!(error = %e, "Pix PSP failed");
                ApiError::new(ErrorCode::PixPspUnavailable)
            }
        }
    }
}

impl From<domain::billing::revocation::RevocationError> for ApiError {
    fn from(error: domain::billing::revocation::RevocationError) -> Self {
        use domain::billing::revocation::RevocationError;
        match error {
            RevocationError::Access(e) => e.into(),
            RevocationError::NotFound => ApiError::new(ErrorCode::ProposalNotFound),
            RevocationError::NoAuthorization => ApiError::new(ErrorCode::NoDebitAuthorization),
            e @ RevocationError::NotActive(_) => ApiError::with_message(
                ErrorCode::DebitAuthorizationInactive,
                format!("{}: nenhum débito é enviado; nada a revogar.", capitalised(&e)),
            ),
            RevocationError::Store(e) => e.into(),
        }
    }
}

impl From<domain::refunds::destinations::DestinationError> for ApiError {
    fn from(error: domain::refunds::destinations::DestinationError) -> Self {
        use domain::refunds::destinations::DestinationError;
        match error {
            DestinationError::Access(e) => e.into(),
            DestinationError::NotFound => ApiError::new(ErrorCode::ProposalNotFound),
            DestinationError::Invalid(v) => ApiError::invalid(v),
            DestinationError::Store(e) => e.into(),
        }
    }
}

impl From<SettlementError> for ApiError {
    fn from(error: SettlementError) -> Self {
        match error {
            SettlementError::Signing(e) => e.into(),
            SettlementError::Access(e) => e.into(),
            SettlementError::NotFound => ApiError::new(ErrorCode::ProposalNotFound),
            SettlementError::Transition(e) => SigningError::Transition(e).into(),
            SettlementError::Invalid(v) => ApiError::invalid(v),
            SettlementError::NotCancellable { status } => ApiError::with_message(
                ErrorCode::NotCancellable,
                format!("A proposta está {status}: o contrato já terminou e não há o que cancelar."),
            ),
            e @ SettlementError::WithinRegret { .. } => ApiError::with_message(
                ErrorCode::NotCancellable,
                format!(
                    "{}: registre-o em POST /proposal/{{identificador}}/withdraw. O cancelamento com devolução proporcional vale depois desse prazo.",
                    capitalised(&e)
                ),
            ),
            SettlementError::OperationInProgress { kind } => in_progress(kind),
            e @ SettlementError::RefundRefused { .. } => ApiError::with_message(
                ErrorCode::RefundRefused,
                format!("{}; a proposta e a assinatura recorrente não mudaram.", capitalised(&e)),
            ),
            SettlementError::Index(e) => {
                tracing::warn!(error = %e, "IPCA source failed: nothing refunded");
                ApiError::new(ErrorCode::IndexUnavailable)
            }
            SettlementError::Payment(PaymentError::Timeout) => ApiError::new(ErrorCode::PaymentTimeout),
            SettlementError::Payment(e) => {
                tracing::warn!(error = %e, "payment platform failed during a refusal or cancellation");
                ApiError::with_message(
                    ErrorCode::PaymentUnavailable,
                    "A plataforma de pagamento falhou; a proposta não mudou. Tente novamente: nenhum reembolso é feito duas vezes.",
                )
            }
            SettlementError::Pix(e) => {
                tracing::warn!(error = %e, "Pix PSP failed during a refusal or cancellation");
                ApiError::with_message(
                    ErrorCode::PixPspUnavailable,
                    "O PSP do Pix falhou ao devolver o pagamento; a proposta não mudou. Tente novamente: nenhuma devolução é feita duas vezes.",
                )
            }
            SettlementError::Store(e) => e.into(),
        }
    }
}

/// Another operation with an outside effect holds the proposal: named, so that the caller knows
/// what it waits for.
fn in_progress(kind: OperationKind) -> ApiError {
    ApiError::with_message(
        ErrorCode::OperationInProgress,
        format!(
            "Outra operação está em andamento nesta proposta ({}): aguarde que termine e tente novamente.",
            kind.label()
        ),
    )
}

/// A domain error's message as a sentence.
fn capitalised(error: &impl std::fmt::Display) -> String {
    let text = error.to_string();
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => format!("{}{}.", first.to_uppercase(), chars.as_str()),
        None => text,
    }
}

impl From<SigningError> for ApiError {
    fn from(error: SigningError) -> Self {
        match error {
            SigningError::Access(e) => e.into(),
            SigningError::NotFound => ApiError::new(ErrorCode::ProposalNotFound),
            SigningError::WrongCustomer => {
                let mut v = Violations::new();
                v.add(
                    "customerId",
                    codes::UNKNOWN_REFERENCE,
                    "o cliente informado não é o cliente da proposta",
                );
                ApiError::invalid(v)
            }
            SigningError::Transition(e) => ApiError::with_message(
                ErrorCode::TransitionRefused,
                format!("Mudança de status não permitida: {e}."),
            ),
            SigningError::ResendLimit { max } => ApiError::with_message(
                ErrorCode::ResendLimit,
                format!("Limite de {max} reenvios do link de assinatura atingido."),
            ),
            SigningError::NotSent => ApiError::new(ErrorCode::SignatureNotSent),
            SigningError::NotCancellable { status } => ApiError::with_message(
                ErrorCode::NotCancellable,
                format!("A proposta está {status} e não pode mais ser cancelada."),
            ),
            SigningError::Cancelled => ApiError::new(ErrorCode::ProposalCancelled),
            SigningError::OperationInProgress { kind } => in_progress(kind),
            SigningError::Expired => ApiError::new(ErrorCode::ProposalExpired),
            SigningError::UnknownProtocol => ApiError::new(ErrorCode::ProtocolNotFound),
            SigningError::DocumentRemoved => ApiError::new(ErrorCode::DocumentRemoved),
            SigningError::NoProviderCopy => ApiError::new(ErrorCode::ProviderCopyMissing),
            SigningError::Provider(e) => {
                tracing::warn!(error = %e, "signature provider failed");
                ApiError::new(ErrorCode::SignatureProviderFailed)
            }
            SigningError::Render(e) => {
                tracing::error!(error = %e, "document rendering failed");
                ApiError::new(ErrorCode::Internal)
            }
            SigningError::Callback(CallbackError::BadSignature) => ApiError::new(ErrorCode::CallbackUnauthenticated),
            SigningError::Callback(CallbackError::Malformed(why)) => {
                ApiError::with_message(ErrorCode::BadRequest, format!("Callback ilegível: {why}."))
            }
            SigningError::Callback(CallbackError::Stale) => {
                ApiError::with_message(ErrorCode::BadRequest, "Evento fora da tolerância de tempo.")
            }
            SigningError::UnknownKey => ApiError::new(ErrorCode::UnknownSignatureKey),
            SigningError::Store(e) => e.into(),
        }
    }
}

impl From<RecoveryError> for ApiError {
    fn from(error: RecoveryError) -> Self {
        match error {
            RecoveryError::Throttled { until } => throttled(until),
            RecoveryError::Store(e) => e.into(),
        }
    }
}

impl From<ResetError> for ApiError {
    fn from(error: ResetError) -> Self {
        match error {
            ResetError::UnknownToken => ApiError::new(ErrorCode::RecoveryTokenUnknown),
            ResetError::ExpiredOrUsed => ApiError::new(ErrorCode::RecoveryTokenInvalid),
            ResetError::WeakPassword(rejection) => {
                let mut v = Violations::new();
                v.add("password", rejection.code, rejection.message);
                ApiError {
                    fields: v.errors().to_vec(),
                    ..ApiError::new(ErrorCode::PasswordPolicy)
                }
            }
            ResetError::Hash(e) => e.into(),
            ResetError::Store(e) => e.into(),
        }
    }
}

/// A 429 with the seconds to wait.
fn throttled(until: chrono::DateTime<chrono::Utc>) -> ApiError {
    // Whole seconds, rounded up: a client that waits as told is not refused again.
    let wait = ((until - chrono::Utc::now()).num_milliseconds() + 999)
        .div_euclid(1000)
        .max(1);
    ApiError {
        retry_after_secs: u64::try_from(wait).ok(),
        ..ApiError::new(ErrorCode::TooManyRequests)
    }
}

impl From<HookError> for ApiError {
    fn from(error: HookError) -> Self {
        match error {
            HookError::Access(e) => e.into(),
            HookError::Invalid(v) => ApiError::invalid(v),
            HookError::NotFound => ApiError::new(ErrorCode::HookNotFound),
            HookError::DeliveryNotFound => ApiError::new(ErrorCode::DeliveryNotFound),
            HookError::Inactive => ApiError::new(ErrorCode::HookInactive),
            HookError::AtLimit { max } => ApiError::with_message(
                ErrorCode::HookLimit,
                format!("Limite de {max} assinaturas de eventos atingido: apague uma antes de criar outra."),
            ),
            HookError::TestInFlight => ApiError::new(ErrorCode::HookTestInFlight),
            HookError::ReplayRunning => ApiError::new(ErrorCode::HookReplayRunning),
            HookError::Store(e) => e.into(),
        }
    }
}

impl From<AuthenticationError> for ApiError {
    fn from(error: AuthenticationError) -> Self {
        match error {
            AuthenticationError::InvalidToken => ApiError::new(ErrorCode::Unauthorized),
            AuthenticationError::SessionEnded => ApiError::new(ErrorCode::SessionEnded),
            AuthenticationError::Store(e) => e.into(),
        }
    }
}

impl From<RefreshError> for ApiError {
    fn from(error: RefreshError) -> Self {
        match error {
            RefreshError::InvalidToken => ApiError::new(ErrorCode::InvalidRefreshToken),
            RefreshError::ApplicationNotAllowed => ApiError::new(ErrorCode::ApplicationNotAllowed),
            RefreshError::Token(e) => e.into(),
            RefreshError::Store(e) => e.into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rows of the markdown table that follows `heading` in docs/errors.md, as cells.
    fn table_after(doc: &str, heading: &str) -> Vec<Vec<String>> {
        doc.split(heading)
            .nth(1)
            .unwrap_or_default()
            .lines()
            .skip_while(|l| !l.starts_with('|'))
            .take_while(|l| l.starts_with('|'))
            .skip(2)
            .map(|l| {
                l.trim_matches('|')
                    .split('|')
                    .map(|c| c.trim().trim_matches('`').to_owned())
                    .collect()
            })
            .collect()
    }

    #[test]
    fn docs_errors_md_lists_every_code() {
        let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/errors.md")).unwrap();
        let documented = table_after(&doc, "## Answer codes");
        let expected: Vec<Vec<String>> = ErrorCode::ALL
            .iter()
            .map(|c| {
                vec![
                    c.code().to_owned(),
                    c.status().as_u16().to_string(),
                    c.message().to_owned(),
                ]
            })
            .collect();
        assert_eq!(documented, expected);

        let documented_fields = table_after(&doc, "## Field codes");
        let expected_fields: Vec<Vec<String>> = domain::field_codes::all()
            .iter()
            .map(|(code, meaning)| vec![(*code).to_owned(), (*meaning).to_owned()])
            .collect();
        assert_eq!(documented_fields, expected_fields);
    }

    #[test]
    fn a_503_says_when_to_retry_and_other_errors_do_not() {
        let unavailable = ApiError::new(ErrorCode::ServiceUnavailable).error_response();
        assert_eq!(unavailable.status(), StatusCode::SERVICE_UNAVAILABLE);
        let retry = unavailable
            .headers()
            .get(header::RETRY_AFTER)
            .and_then(|v| v.to_str().ok());
        assert_eq!(retry, Some(UNAVAILABLE_RETRY_AFTER_SECS.to_string().as_str()));
        let invalid = ApiError::new(ErrorCode::ValidationFailed).error_response();
        assert!(invalid.headers().get(header::RETRY_AFTER).is_none());
    }

    #[test]
    fn codes_are_unique() {
        let mut codes: Vec<&str> = ErrorCode::ALL.iter().map(|c| c.code()).collect();
        codes.extend(domain::field_codes::all().iter().map(|(c, _)| *c));
        let count = codes.len();
        codes.sort_unstable();
        codes.dedup();
        assert_eq!(codes.len(), count);
    }

    /// A caller of `2026-11-21` reads each code added since release 0.1.0 as a code of the same
    /// status (`contract_versions::changes::NewerErrorCodes`).
    #[test]
    fn every_code_added_since_release_0_1_0_reads_as_a_code_of_its_status() {
        let of = |code: &str| ErrorCode::ALL.iter().find(|c| c.code() == code).copied();
        for (newer, older) in contract_versions::changes::AS_RELEASE_0_1_0 {
            let (Some(newer_code), Some(older_code)) = (of(newer), of(older)) else {
                panic!("{newer} → {older}: not a code of the table");
            };
            assert_eq!(newer_code.status(), older_code.status(), "{newer} → {older}");
        }
    }
}
