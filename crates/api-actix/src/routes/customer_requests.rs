//! A customer's requests about a proposal, each under a protocol: the cancellation by the seller
//! that owns the proposal or by the back office, and the back office's lookup by protocol.

use crate::http::auth::AuthenticatedUser;
use crate::http::body::Body;
use crate::http::envelope::Envelope;
use crate::http::error::ApiError;
use crate::http::idempotency::idempotent;
use crate::routes::dto::{
    CancellationDto, CustomerRequestDto, DebitRevocationDto, RefundDestinationDto, WithdrawalDto,
};
use crate::routes::schemas::{ErrorEnvelope, envelope_doc};
use crate::state::AppState;
use actix_web::middleware::from_fn;
use actix_web::{HttpResponse, web};
use domain::proposals::bodies::{CancelBody, DebitRevocationBody, WithdrawBody};
use domain::proposals::requests::Protocol;
use domain::refunds::destination::RefundDestinationBody;
use domain::validation::{Violations, codes};
use serde::Serialize;
use utoipa::ToSchema;

envelope_doc!(CancellationEnvelope, data = CancellationDto);
envelope_doc!(CustomerRequestEnvelope, data = CustomerRequestDto);
envelope_doc!(WithdrawalEnvelope, data = WithdrawalDto);
envelope_doc!(DebitRevocationEnvelope, data = DebitRevocationDto);
envelope_doc!(RefundDestinationEnvelope, data = RefundDestinationDto);

/// Cancels a proposal at the customer's request: before it is signed, or after, at any time.
#[utoipa::path(post, path = "/proposal/{identificador}/cancel", operation_id = "proposal.cancel", summary = "Cancelar a pedido do cliente", description = "O vendedor dono da proposta (o parceiro dela, ou a loja para as do e-commerce) ou a retaguarda cancela a proposta a pedido do cliente, a qualquer tempo (Decreto 7.962/2013, art. 4). Em `NOVO` ou `AGUARDANDO ASSINATURA`, o envelope do provedor de assinatura é cancelado antes (ninguém assina depois; se o provedor falhar, nada muda: 502), e a rota 13 passa a responder 409 `proposta_cancelada`. Depois da venda (`EM ANÁLISE` ou `APROVADO`), o cancelamento vale na hora: a assinatura recorrente é cancelada, a parte não usada de cada período efetivamente pago volta proporcional aos dias (pro rata die) e corrigida pelo IPCA (`data.refunds` da rota 7; nada recebido, nada a devolver), as cobranças em aberto são canceladas e o cliente recebe a confirmação por e-mail com o protocolo; dentro dos 7 dias do arrependimento, este prevalece (devolução integral): 409 `cancelamento_nao_permitido` nomeando o último dia e a rota `/withdraw`. Em todos os casos a proposta vai para `CANCELADO` com o motivo no evento `ALTERAÇÃO_STATUS` e no histórico (registrado pela retaguarda, o vendedor lê só a categoria `a_pedido`), e o pedido recebe um protocolo (`data.protocol`), que a retaguarda encontra em `GET /protocol/{protocolo}`.", tag = "assinatura", security(("bearer" = [])),
    params(("identificador" = String, Path, description = "Identificador da proposta")),
    request_body(content = CancelBody, example = json!({"reason": "Cliente desistiu da contratação"})),
    responses(
        (status = 200, description = "Cancelada: o protocolo e a mudança de status", body = CancellationEnvelope),
        (status = 400, description = "`reason` ausente, com menos de 3 ou mais de 500 caracteres", body = ErrorEnvelope),
        (status = 401, body = ErrorEnvelope), (status = 403, body = ErrorEnvelope),
        (status = 404, description = "Proposta não encontrada (ou de outro vendedor)", body = ErrorEnvelope),
        (status = 409, description = "A proposta terminou (nomeia o estado), está no prazo de arrependimento ou o reembolso foi recusado", body = ErrorEnvelope),
        (status = 413, body = ErrorEnvelope), (status = 415, body = ErrorEnvelope), (status = 422, body = ErrorEnvelope),
        (status = 502, description = "O provedor de assinatura não cancelou o envelope; a proposta não mudou", body = ErrorEnvelope),
        (status = 503, body = ErrorEnvelope),
    ))]
pub async fn cancel(
    state: web::Data<AppState>,
    user: AuthenticatedUser,
    path: web::Path<String>,
    body: Body<CancelBody>,
) -> Result<HttpResponse, ApiError> {
    let reason = body.into_inner().read()?;
    let cancellation = state.settlement.cancel(&user.0, &path, reason).await?;
    Ok(HttpResponse::Ok().json(Envelope::data(
        "Proposta cancelada a pedido do cliente.",
        CancellationDto::from(cancellation),
    )))
}

/// The right of regret: a concluded sale undone within 7 days, every amount paid refunded.
#[utoipa::path(post, path = "/proposal/{identificador}/withdraw", operation_id = "proposal.withdraw", summary = "Arrependimento (CDC, art. 49)", description = "O vendedor dono da proposta ou a retaguarda registra o arrependimento do cliente em até 7 dias corridos (horário de Brasília) após a conclusão da venda: a última assinatura ou, na venda online, o início da assinatura recorrente. Tudo o que foi recebido volta corrigido pelo IPCA pro rata die desde o pagamento (CDC, art. 49, parágrafo único): cada fatura paga é reembolsada no cartão até o valor cobrado e cada Pix pago, por devolução (`data.refunds`, valores em centavos); a correção acima do cobrado e o que foi pago por desconto em folha ou débito em conta ficam como reembolso a pagar pelo financeiro (`data.refunds` da rota 7). A cobrança para na hora (a assinatura recorrente, ou as cobranças e a recorrência do Pix no PSP), a proposta vai para `CANCELADO` com o motivo `ARREPENDIMENTO`, sob um protocolo (`data.protocol`), e o cliente recebe a confirmação por e-mail. Um reembolso recusado pela plataforma não muda nada (409 `reembolso_recusado`, com o motivo); depois do 7º dia, 409 `prazo_arrependimento_encerrado` com a data em que o prazo terminou; a fonte do IPCA fora do ar, 503 `indice_correcao_indisponivel`.", tag = "assinatura", security(("bearer" = [])),
    params(("identificador" = String, Path, description = "Identificador da proposta")),
    request_body(content = WithdrawBody, example = json!({"reason": "Encontrei um plano mais barato"})),
    responses(
        (status = 200, description = "Desfeita: o protocolo, a mudança de status e os reembolsos", body = WithdrawalEnvelope),
        (status = 400, description = "`reason` com menos de 3 ou mais de 500 caracteres", body = ErrorEnvelope),
        (status = 401, body = ErrorEnvelope), (status = 403, body = ErrorEnvelope),
        (status = 404, description = "Proposta não encontrada (ou de outro vendedor)", body = ErrorEnvelope),
        (status = 409, description = "Venda não concluída ou já encerrada, prazo de 7 dias terminado, ou reembolso recusado pela plataforma", body = ErrorEnvelope),
        (status = 413, body = ErrorEnvelope), (status = 415, body = ErrorEnvelope), (status = 422, body = ErrorEnvelope),
        (status = 503, description = "A plataforma de pagamento ou a fonte do IPCA falhou; a proposta não mudou", body = ErrorEnvelope),
        (status = 504, body = ErrorEnvelope),
    ))]
pub async fn withdraw(
    state: web::Data<AppState>,
    user: AuthenticatedUser,
    path: web::Path<String>,
    body: Body<WithdrawBody>,
) -> Result<HttpResponse, ApiError> {
    let reason = body.into_inner().read()?;
    let withdrawal = state.withdrawal.withdraw(&user.0, &path, reason).await?;
    Ok(HttpResponse::Ok().json(Envelope::data(
        "Arrependimento registrado: venda desfeita e valores pagos reembolsados.",
        WithdrawalDto::from(withdrawal),
    )))
}

/// The customer revokes the authorisation of the debits (Resolução CMN 4.790/2020, art. 9).
#[utoipa::path(post, path = "/proposal/{identificador}/debit-authorization/revoke", operation_id = "proposal.revokeDebitAuthorization", summary = "Revogar a autorização de débito em conta", description = "O vendedor dono da proposta ou a retaguarda registra que o cliente revogou a autorização de débito em conta do contrato (Resolução CMN 4.790/2020, art. 9: o cliente pode cancelá-la com o banco ou com a empresa). A autorização passa a `revogada` na hora: nenhuma remessa leva outro débito do contrato, e um débito já enviado ao banco tem o retorno que o banco der. O contrato continua: as cobranças seguem em aberto e a régua de cobrança vale (em atraso, suspenso) até que o cliente pague por outro meio. O pedido recebe um protocolo (`data.protocol`), que a retaguarda encontra em `GET /protocol/{protocolo}`; o histórico registra o pedido e a mudança da autorização (`autorizacao_debito`). Sem autorização (outro meio de pagamento, ou contrato ainda não aceito): 409 `autorizacao_debito_inexistente`; já recusada pelo banco ou revogada: 409 `autorizacao_debito_inativa`.", tag = "assinatura", security(("bearer" = [])),
    params(("identificador" = String, Path, description = "Identificador da proposta")),
    request_body(content = DebitRevocationBody, example = json!({"reason": "Cliente vai pagar por outro meio"})),
    responses(
        (status = 200, description = "Revogada: o protocolo e a situação da autorização", body = DebitRevocationEnvelope),
        (status = 400, description = "`reason` ausente, com menos de 3 ou mais de 500 caracteres", body = ErrorEnvelope),
        (status = 401, body = ErrorEnvelope), (status = 403, body = ErrorEnvelope),
        (status = 404, description = "Proposta não encontrada (ou de outro vendedor)", body = ErrorEnvelope),
        (status = 409, description = "Sem autorização de débito em conta, ou ela não está mais ativa", body = ErrorEnvelope),
        (status = 413, body = ErrorEnvelope), (status = 415, body = ErrorEnvelope), (status = 422, body = ErrorEnvelope),
        (status = 503, body = ErrorEnvelope),
    ))]
pub async fn revoke_debit_authorization(
    state: web::Data<AppState>,
    user: AuthenticatedUser,
    path: web::Path<String>,
    body: Body<DebitRevocationBody>,
) -> Result<HttpResponse, ApiError> {
    let reason = body.into_inner().read()?;
    let revocation = state.debit_revocation.revoke(&user.0, &path, reason).await?;
    Ok(HttpResponse::Ok().json(Envelope::data(
        "Autorização de débito em conta revogada a pedido do cliente.",
        DebitRevocationDto::from(revocation),
    )))
}

/// Where the contract's refunds to pay go: the customer's Pix key or account.
#[utoipa::path(put, path = "/proposal/{identificador}/refund-destination", operation_id = "proposal.setRefundDestination", summary = "Destino dos reembolsos a pagar", description = "O vendedor dono da proposta ou a retaguarda registra onde o cliente recebe os reembolsos a pagar do contrato (os que a plataforma ou o PSP não devolvem: desconto em folha, débito em conta, a correção acima do cobrado no cartão): exatamente um de `pixKey` (CPF — o do próprio cliente —, e-mail, celular `+55…` ou chave aleatória; chave de CNPJ não) ou `refundAccount` `{bank, agency, account, type}` (`corrente`, `poupanca` ou `pagamento`). Substitui o destino anterior. O cliente recebe por e-mail o destino (a chave ou a conta só em parte), cada valor a receber com a data até a qual será pago (`REFUND_DUE_DAYS` depois do reembolso) e o aviso de que, se o pagamento atrasar, o valor é corrigido de novo pelo IPCA até o dia do pagamento; o financeiro vê o destino em `sales-api refunds pending`. A resposta mostra o destino só em parte e os reembolsos ainda a pagar (`owed`).", tag = "assinatura", security(("bearer" = [])),
    params(("identificador" = String, Path, description = "Identificador da proposta")),
    request_body(content = RefundDestinationBody, example = json!({"pixKey": "cliente@exemplo.com.br"})),
    responses(
        (status = 200, description = "Registrado: o destino, em parte, e o que será pago ali", body = RefundDestinationEnvelope),
        (status = 400, description = "Nenhum ou os dois destinos, chave Pix fora do formato, de CNPJ ou com o CPF de outra pessoa, conta fora do formato (o campo é nomeado)", body = ErrorEnvelope),
        (status = 401, body = ErrorEnvelope), (status = 403, body = ErrorEnvelope),
        (status = 404, description = "Proposta não encontrada (ou de outro vendedor)", body = ErrorEnvelope),
        (status = 413, body = ErrorEnvelope), (status = 415, body = ErrorEnvelope), (status = 422, body = ErrorEnvelope),
        (status = 503, body = ErrorEnvelope),
    ))]
pub async fn set_refund_destination(
    state: web::Data<AppState>,
    user: AuthenticatedUser,
    path: web::Path<String>,
    body: Body<RefundDestinationBody>,
) -> Result<HttpResponse, ApiError> {
    let destination = body.into_inner().read()?;
    let recorded = state.refund_destinations.record(&user.0, &path, destination).await?;
    Ok(HttpResponse::Ok().json(Envelope::data(
        "Destino dos reembolsos registrado; o cliente foi avisado por e-mail.",
        RefundDestinationDto::from(recorded),
    )))
}

/// The back office finds a customer's request by its protocol.
#[utoipa::path(get, path = "/protocol/{protocolo}", operation_id = "customerRequest.get", summary = "Pedido do cliente por protocolo", description = "A retaguarda encontra um pedido do cliente (um cancelamento ou um arrependimento) pelo protocolo que ele recebeu: o que pediu, de qual proposta, por quê, quem registrou e quando.", tag = "assinatura", security(("bearer" = [])),
    params(("protocolo" = String, Path, description = "O protocolo: o dia (AAAAMMDD) e ao menos oito dígitos", example = "2026112600001234")),
    responses(
        (status = 200, body = CustomerRequestEnvelope),
        (status = 400, description = "`protocolo` fora do formato", body = ErrorEnvelope),
        (status = 401, body = ErrorEnvelope), (status = 403, body = ErrorEnvelope),
        (status = 404, description = "Nenhum pedido com este protocolo", body = ErrorEnvelope),
        (status = 503, body = ErrorEnvelope),
    ))]
pub async fn by_protocol(
    state: web::Data<AppState>,
    user: AuthenticatedUser,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let Some(protocol) = Protocol::parse(&path) else {
        let mut v = Violations::new();
        v.add(
            "protocolo",
            codes::INVALID_VALUE,
            "protocolo deve ter o dia (AAAAMMDD) seguido de ao menos oito dígitos",
        );
        return Err(ApiError::invalid(v));
    };
    let request = state.signing.customer_request(&user.0, &protocol).await?;
    Ok(HttpResponse::Ok().json(Envelope::data("Pedido encontrado.", CustomerRequestDto::from(request))))
}

/// Under `/proposal`: the cancellation, the withdrawal, the revocation of the debits and the
/// refunds' destination.
pub fn proposal_routes(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::resource("/{identifier}/cancel")
            .wrap(from_fn(idempotent))
            .route(web::post().to(cancel)),
    )
    .service(
        web::resource("/{identifier}/withdraw")
            .wrap(from_fn(idempotent))
            .route(web::post().to(withdraw)),
    )
    .service(
        web::resource("/{identifier}/debit-authorization/revoke")
            .wrap(from_fn(idempotent))
            .route(web::post().to(revoke_debit_authorization)),
    )
    .service(web::resource("/{identifier}/refund-destination").route(web::put().to(set_refund_destination)));
}

/// `/protocol/{protocolo}`.
pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.service(web::resource("/protocol/{protocol}").route(web::get().to(by_protocol)));
}
