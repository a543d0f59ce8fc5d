//! A data subject's rights (LGPD, art. 18), for the back office: the export of what is held about
//! a CPF and its anonymisation.

use crate::http::auth::AuthenticatedUser;
use crate::http::body::Body;
use crate::http::envelope::Envelope;
use crate::http::error::ApiError;
use crate::routes::dto::{AnonymizedDto, ConsentDto, PrivacyNoticeDto, SubjectRequestDto};
use crate::routes::schemas::PersonalDataEnvelope;
use crate::routes::schemas::{ErrorEnvelope, envelope_doc};
use crate::state::AppState;
use actix_web::{HttpResponse, web};
use domain::input::parameter;
use domain::privacy::consents::ConsentBody;
use domain::privacy::subject_requests::SubjectRequestBody;
use domain::values::Cpf;
use serde::Serialize;
use utoipa::ToSchema;

envelope_doc!(AnonymizedEnvelope, data = AnonymizedDto);
envelope_doc!(ConsentEnvelope, data = ConsentDto);
envelope_doc!(SubjectRequestEnvelope, data = SubjectRequestDto);
envelope_doc!(PrivacyNoticeEnvelope, data = PrivacyNoticeDto);

/// Everything held about a person, in one JSON document.
#[utoipa::path(get, path = "/privacy/customers/{cpf}", operation_id = "privacy.export", summary = "Dados do titular (LGPD)", description = "Tudo o que é mantido sobre o CPF, em um documento: `cadastros` (cada cadastro de cada vendedor, com endereço e vendedor) e `propostas` (cada proposta com sua cópia do cliente, pagamento, assinatura e signatários, documentos por SHA-256, assinaturas de pagamento, eventos, `protocolos` dos pedidos do cliente e histórico), e `bloqueio` (`base`, `ate`, `desde`, `por`) quando os dados estão bloqueados por retenção legal. Havendo dados, `basesLegais` (por categoria: `categoria`, `nome`, `finalidade`, `basesLegais`, `sensivel`, `retencao`, `destinatarios`) e `compartilhamentos` (com quem os dados foram compartilhados, LGPD art. 18, VII: `destinatario`, `nome`, `categorias` e as `propostas` ou o `parceiro`) e `retencao` (até quando e por quê: por proposta `identificador`, `ate`, `motivo` e `saudeAte`; `titular`). Cada proposta ganha no histórico uma entrada `exportacao`. Somente BACKOFFICE.", tag = "privacidade", security(("bearer" = [])),
    params(("cpf" = String, Path, description = "CPF, com ou sem máscara")),
    responses(
        (status = 200, description = "`data` com `cpf`, `cadastros` e `propostas` (listas vazias quando nada é mantido)", body = PersonalDataEnvelope),
        (status = 400, body = ErrorEnvelope), (status = 401, body = ErrorEnvelope),
        (status = 403, description = "Somente BACKOFFICE", body = ErrorEnvelope), (status = 503, body = ErrorEnvelope),
    ))]
pub async fn export(
    state: web::Data<AppState>,
    user: AuthenticatedUser,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let cpf = parameter("cpf", Cpf::parse(&path))?;
    let export = state.privacy.export(&user.0, &cpf).await?;
    Ok(HttpResponse::Ok().json(Envelope::data(
        "Dados pessoais mantidos para este CPF.",
        export.document,
    )))
}

/// Removes or replaces the person's data where no legal obligation requires keeping it.
#[utoipa::path(post, path = "/privacy/customers/{cpf}/anonymize", operation_id = "privacy.anonymize", summary = "Anonimizar titular (LGPD)", description = "Substitui os dados pessoais do CPF em cada cadastro, endereço, cópia do cliente nas propostas, pagamento e registro de assinatura (o próprio CPF por um valor que nunca é um CPF), em uma transação, com uma entrada `anonimizacao` no histórico de cada proposta. Com um contrato em vigor, ou encerrado há menos de `RETENTION_CONTRACT_YEARS` anos (5), nada é anonimizado: os dados são bloqueados (LGPD art. 16, I e art. 18, IV) e a resposta é 409 `retencao_legal`. Os documentos assinados são mantidos como prova do contrato e listados. Depois, a rota 4 responde \"não cadastrado\" para todo vendedor e a exportação não traz nada pessoal. Somente BACKOFFICE.", tag = "privacidade", security(("bearer" = [])),
    params(("cpf" = String, Path, description = "CPF, com ou sem máscara")),
    responses(
        (status = 200, description = "`data`: `cadastros`, `propostas`, `documentosMantidos`", body = AnonymizedEnvelope),
        (status = 400, body = ErrorEnvelope), (status = 401, body = ErrorEnvelope),
        (status = 403, description = "Somente BACKOFFICE", body = ErrorEnvelope),
        (status = 404, description = "Nada mantido para este CPF (`titular_sem_dados`)", body = ErrorEnvelope),
        (status = 409, description = "Propostas em andamento, nomeadas na mensagem (`anonimizacao_bloqueada`), nada mudou; ou contrato sob retenção legal (`retencao_legal`: a mensagem nomeia a base legal, os contratos e o fim da retenção), e os dados do titular ficam bloqueados: fora da lista, da busca e da rota 7 dos vendedores, recusados em novo cadastro ou proposta", body = ErrorEnvelope),
        (status = 503, body = ErrorEnvelope),
    ))]
pub async fn anonymize(
    state: web::Data<AppState>,
    user: AuthenticatedUser,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let cpf = parameter("cpf", Cpf::parse(&path))?;
    let done = state.privacy.anonymize(&user.0, &cpf).await?;
    Ok(HttpResponse::Ok().json(Envelope::data(
        "Dados pessoais anonimizados; os documentos assinados foram mantidos como prova do contrato.",
        AnonymizedDto::from(done),
    )))
}

/// Records a consent given or revoked, beside the earlier ones.
#[utoipa::path(post, path = "/privacy/customers/{cpf}/consents", operation_id = "privacy.consent", summary = "Registrar consentimento (LGPD)", description = "Registra o consentimento do titular para uma finalidade cuja base legal é o consentimento (LGPD art. 7º, I e art. 8º): `ofertas` (ofertas de outros produtos por e-mail, SMS ou WhatsApp) ou `ofertas_parceiro` (contato compartilhado com o parceiro da venda, para ofertas dele). `granted: false` é a revogação (art. 8º, § 5º). Cada registro se soma aos anteriores, que nunca mudam; a exportação lista em `consentimentos` o que vale hoje e o histórico. O que a venda exige repousa em outras bases (`basesLegais` da exportação) e não depende disto. Com os dados bloqueados por retenção legal, só a revogação é aceita. A retaguarda registra aqui o que o titular fez em outro canal, com a prova: `evidence` (`channel` e `reference`, o que encontra a gravação, o formulário ou a conversa) é obrigatório para um consentimento e opcional para uma revogação, que vale como quer que chegue (art. 8º, §§ 2º e 5º). O próprio titular consente ou revoga pela página `/privacidade`, com um link enviado ao seu e-mail. Somente BACKOFFICE.", tag = "privacidade", security(("bearer" = [])),
    params(("cpf" = String, Path, description = "CPF, com ou sem máscara")),
    request_body(content = ConsentBody, example = json!({"purpose": "ofertas", "granted": true, "evidence": {"channel": "telefone", "reference": "Gravação SAC 2026-000123"}})),
    responses(
        (status = 201, description = "Registrado: a finalidade, se consentiu, quando, por quem e a base legal", body = ConsentEnvelope),
        (status = 400, description = "`purpose` fora da lista, `granted` ausente ou não booleano, `evidence` ausente num consentimento ou com `channel` ou `reference` inválidos; CPF inválido", body = ErrorEnvelope),
        (status = 401, body = ErrorEnvelope),
        (status = 403, description = "Somente BACKOFFICE", body = ErrorEnvelope),
        (status = 404, description = "Nada mantido para este CPF (`titular_sem_dados`)", body = ErrorEnvelope),
        (status = 409, description = "Consentimento dado a titular bloqueado por retenção legal (`titular_bloqueado`); a revogação é aceita", body = ErrorEnvelope),
        (status = 413, body = ErrorEnvelope), (status = 415, body = ErrorEnvelope), (status = 422, body = ErrorEnvelope),
        (status = 503, body = ErrorEnvelope),
    ))]
pub async fn consent(
    state: web::Data<AppState>,
    user: AuthenticatedUser,
    path: web::Path<String>,
    body: Body<ConsentBody>,
) -> Result<HttpResponse, ApiError> {
    let cpf = parameter("cpf", Cpf::parse(&path))?;
    let consent = body.into_inner().read()?;
    let record = state.privacy.record_consent(&user.0, &cpf, consent).await?;
    let message = if record.granted {
        "Consentimento registrado."
    } else {
        "Revogação do consentimento registrada."
    };
    Ok(HttpResponse::Created().json(Envelope::data(message, ConsentDto::from(record))))
}

/// Files a data subject's request under a protocol, with its deadline.
#[utoipa::path(post, path = "/privacy/requests", operation_id = "privacy.request", summary = "Registrar pedido do titular (LGPD)", description = "Registra um pedido do titular (LGPD art. 18) recebido pela retaguarda: `kind` é `acesso`, `correcao`, `anonimizacao`, `portabilidade`, `eliminacao`, `compartilhamento` ou `revogacao_consentimento`; `channel`, por onde chegou (`telefone`, `email`, `chat`, `carta`, `presencial`); `note`, o que o titular disse (opcional, até 1000 caracteres). Responde com o `protocolo` (numerado com os demais pedidos de clientes) e o `prazo` da resposta completa: 15 dias (art. 19, II). O pedido entra na fila do console (`/console`, Pedidos LGPD), vencidos primeiro; a resposta é registrada lá (o quê, quando, por quem e, para acesso, portabilidade e compartilhamento, o arquivo com os dados enviado ao e-mail do titular, por SHA-256). O CPF não precisa ter dados mantidos: a resposta pode ser justamente que nada é mantido. Somente BACKOFFICE.", tag = "privacidade", security(("bearer" = [])),
    request_body(content = SubjectRequestBody, example = json!({"cpf": "529.982.247-25", "kind": "acesso", "channel": "telefone", "note": "Pediu cópia dos dados"})),
    responses(
        (status = 201, description = "Registrado: `protocolo` e `prazo`", body = SubjectRequestEnvelope),
        (status = 400, description = "`cpf`, `kind`, `channel` ou `note` inválidos, todos nomeados", body = ErrorEnvelope),
        (status = 401, body = ErrorEnvelope),
        (status = 403, description = "Somente BACKOFFICE", body = ErrorEnvelope),
        (status = 413, body = ErrorEnvelope), (status = 415, body = ErrorEnvelope), (status = 422, body = ErrorEnvelope),
        (status = 503, body = ErrorEnvelope),
    ))]
pub async fn file_request(
    state: web::Data<AppState>,
    user: AuthenticatedUser,
    body: Body<SubjectRequestBody>,
) -> Result<HttpResponse, ApiError> {
    let request = body.into_inner().read()?;
    let filed = state.subject_requests.file(&user.0, request).await?;
    let message = format!(
        "Pedido registrado sob o protocolo {}: resposta completa devida em até 15 dias.",
        filed.protocol
    );
    Ok(HttpResponse::Created().json(Envelope::data(message, SubjectRequestDto::from(filed))))
}

/// The privacy notice in force, for the shop's and the partners' pages.
#[utoipa::path(get, path = "/privacy/notice", operation_id = "privacy.notice", summary = "Aviso de privacidade", description = "O aviso de privacidade em vigor (LGPD art. 9º): `versao`, `sha256` e `texto` (um parágrafo por linha), as versões já publicadas, quem responde pelos dados — o `controlador` (nome, CNPJ, endereço) e o `encarregado` (LGPD art. 41: nome, e-mail e o canal do titular), configurados por `PRIVACY_CONTROLLER_*` e `PRIVACY_DPO_*` — e a `transferenciaInternacional` (LGPD art. 33: a quem e com que base). O documento de cada proposta imprime o texto e os três. É o texto que o documento de cada proposta enviada para assinatura imprime; a versão, o SHA-256, o dos termos do produto, quando e por qual canal ficam registrados com o selo do documento (`avisos` de cada proposta na exportação do titular). Público, sem token.", tag = "privacidade",
    responses(
        (status = 200, description = "O aviso em vigor", body = PrivacyNoticeEnvelope),
    ))]
pub async fn notice(state: web::Data<AppState>) -> HttpResponse {
    HttpResponse::Ok().json(Envelope::data(
        "Aviso de privacidade em vigor.",
        PrivacyNoticeDto::current(&state.signing.privacy_contacts),
    ))
}

/// Under `/privacy`.
pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.service(web::resource("/notice").route(web::get().to(notice)))
        .service(web::resource("/customers/{cpf}").route(web::get().to(export)))
        .service(web::resource("/customers/{cpf}/anonymize").route(web::post().to(anonymize)))
        .service(web::resource("/customers/{cpf}/consents").route(web::post().to(consent)))
        .service(web::resource("/requests").route(web::post().to(file_request)));
}
