//! Routes 3 to 9: customers and proposals.

use crate::http::auth::AuthenticatedUser;
use crate::http::body::Body;
use crate::http::envelope::{Envelope, Nothing};
use crate::http::error::ApiError;
use crate::http::idempotency::idempotent;
use crate::routes::dto::{
    CustomerRecordDto, HistoryDto, HistoryEntryDto, IsValidDto, ListPageDto, OwnershipItemDto, ProposalDetailDto,
    ProposalRecordDto, RegistrationDto,
};
use crate::routes::schemas::{
    ErrorEnvelope, HistoryEnvelope, IsValidEnvelope, OwnershipEnvelope, ProposalCreatedEnvelope,
    ProposalDetailEnvelope, ProposalListEnvelope, RegistrationsEnvelope,
};
use crate::state::AppState;
use actix_web::middleware::from_fn;
use actix_web::{HttpResponse, web};
use domain::input::parameter;
use domain::proposals::bodies::{AvailabilityQuery, ProposalBody, RegistrationBody, ShopProposalBody};
use domain::proposals::search::ProposalSearch;
use domain::proposals::service::Ownership;
use domain::values::Cpf;

/// Route 3: creates (or updates, by CPF) a customer; `endereco` is optional.
#[utoipa::path(post, path = "/customer/create", operation_id = "customer.create", summary = "Cadastrar cliente (rota 3)", description = "Cria (ou atualiza, pelo CPF) o cadastro do cliente do parceiro do chamador; `endereco` é opcional.", tag = "clientes", security(("bearer" = [])),
    request_body(content = RegistrationBody, example = json!({
        "cliente": {"nome_completo": "Maria da Silva", "cpf": "123.456.789-09", "data_nascimento": "1990-05-15T00:00:00.000Z",
            "sexo": "Feminino", "estado_civil": "Solteiro", "nacionalidade": "Brasileira", "celular": "(11) 91234-5678",
            "telefone_fixo": null, "email": "maria@exemplo.com.br", "profissao": "Professora", "salario": 250000,
            "trabalhando": true, "servidor_publico": false, "pep": false, "afastado": false, "medicamento": false, "e_analfabeto": false},
        "endereco": {"cep": "01310100", "endereco": "Avenida Paulista", "numero": 1000, "bairro": "Bela Vista", "cidade": "São Paulo", "estado": "SP", "complemento": null}
    })),
    responses(
        (status = 201, description = "Um elemento: o cliente", body = [CustomerRecordDto]),
        (status = 400, description = "Campos inválidos", body = ErrorEnvelope),
        (status = 401, description = "Sem token válido", body = ErrorEnvelope),
        (status = 403, description = "Aplicação sem permissão", body = ErrorEnvelope),
        (status = 409, description = "Dados do titular bloqueados por retenção legal (`titular_bloqueado`)", body = ErrorEnvelope),
        (status = 413, body = ErrorEnvelope), (status = 415, body = ErrorEnvelope), (status = 422, body = ErrorEnvelope),
        (status = 503, body = ErrorEnvelope),
    ))]
pub async fn create_customer(
    state: web::Data<AppState>,
    user: AuthenticatedUser,
    body: Body<RegistrationBody>,
) -> Result<HttpResponse, ApiError> {
    let record = state.proposals.create_customer(&user.0, body.into_inner()).await?;
    Ok(HttpResponse::Created().json([CustomerRecordDto::from(record)]))
}

/// Route 4: whether the customer belongs to the caller's seller, and for which products.
#[utoipa::path(get, path = "/customer/validCustomer/{cpf}", operation_id = "customer.ownership", summary = "Cliente do vendedor? (rota 4)", description = "Se o cliente é do vendedor do chamador, e de quais produtos ele tem propostas.", tag = "clientes", security(("bearer" = [])),
    params(("cpf" = String, Path, description = "CPF, com ou sem máscara")),
    responses(
        (status = 200, description = "document: itens {id_cliente, codigo_produto}; rowsAffected [1] se cadastrado, [0] se não", body = OwnershipEnvelope),
        (status = 400, body = ErrorEnvelope), (status = 401, body = ErrorEnvelope), (status = 403, body = ErrorEnvelope), (status = 503, body = ErrorEnvelope),
    ))]
pub async fn valid_customer(
    state: web::Data<AppState>,
    user: AuthenticatedUser,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let cpf = parameter("cpf", Cpf::parse(&path))?;
    let envelope = match state.proposals.customer_ownership(&user.0, &cpf).await? {
        Ownership::NotRegistered => Envelope::list("Cliente não cadastrado para este parceiro.", Vec::new(), vec![0]),
        Ownership::Registered(items) => {
            let document = items.into_iter().map(OwnershipItemDto::from).collect();
            Envelope::list("Cliente cadastrado para este parceiro.", document, vec![1])
        }
    };
    Ok(HttpResponse::Ok().json(envelope))
}

/// Back office: every seller's registration of a CPF, each with its address and its seller.
#[utoipa::path(get, path = "/customer/registrations/{cpf}", operation_id = "customer.registrations", summary = "Cadastros de um CPF (retaguarda)", description = "Cada cadastro do CPF feito por cada vendedor, com seu endereço e seu vendedor.", tag = "clientes", security(("bearer" = [])),
    params(("cpf" = String, Path, description = "CPF, com ou sem máscara")),
    responses(
        (status = 200, description = "document: um cadastro por vendedor (o registro da rota 3, `endereco` e `vendedor`), do mais antigo ao mais novo; rowsAffected [n]", body = RegistrationsEnvelope),
        (status = 400, body = ErrorEnvelope), (status = 401, body = ErrorEnvelope),
        (status = 403, description = "Somente BACKOFFICE", body = ErrorEnvelope), (status = 503, body = ErrorEnvelope),
    ))]
pub async fn registrations(
    state: web::Data<AppState>,
    user: AuthenticatedUser,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let cpf = parameter("cpf", Cpf::parse(&path))?;
    let found = state.proposals.registrations(&user.0, &cpf).await?;
    let count = i64::try_from(found.len()).unwrap_or(i64::MAX);
    let message = if count == 0 {
        "Nenhum vendedor cadastrou este CPF."
    } else {
        "Cadastros deste CPF, por vendedor."
    };
    let document: Vec<RegistrationDto> = found.into_iter().map(RegistrationDto::from).collect();
    Ok(HttpResponse::Ok().json(Envelope::list(message, document, vec![count])))
}

/// Route 5: creates or updates the customer and its address and creates the proposal, all or nothing.
#[utoipa::path(post, path = "/proposal/create", operation_id = "proposal.create", summary = "Criar proposta (rota 5)", description = "Cadastro do cliente, endereço e proposta (com sua cópia do cliente) em uma transação: tudo ou nada.", tag = "propostas", security(("bearer" = [])),
    request_body(content = ProposalBody, example = json!({
        "billingCode": 5002, "productCode": 101, "typeOfPayments": "DESCONTO EM FOLHA", "shippingType": "whatsapp",
        "customer": {"fullName": "Maria da Silva", "cpf": "12345678909", "birthDate": "1990-05-15", "gender": "Feminino",
            "maritalStatus": "Casado", "nationality": "Brasileira", "cellPhone": "(11) 91234-5678", "phone": null,
            "email": "maria@exemplo.com.br", "profession": "Professora", "salary": 141200, "working": true, "publicServer": true,
            "pep": false, "absent": false, "medication": false, "medicationDescription": null, "isIlliterate": false},
        "address": {"zipCode": "01310100", "address": "Avenida Paulista", "number": "1000", "neighborhood": "Bela Vista",
            "city": "São Paulo", "state": "SP", "complement": null},
        "discountOnSheet": {"number": "1234567890", "specie": 41, "type": "BENEFÍCIO"}
    })),
    responses(
        (status = 201, description = "Proposta criada (status NOVO, reenvios 0)", body = ProposalCreatedEnvelope),
        (status = 400, description = "Campos inválidos, referência inexistente, ou proposta em andamento para o CPF e produto", body = ErrorEnvelope),
        (status = 401, body = ErrorEnvelope), (status = 403, body = ErrorEnvelope),
        (status = 409, description = "Dados do titular bloqueados por retenção legal (`titular_bloqueado`)", body = ErrorEnvelope),
        (status = 413, body = ErrorEnvelope), (status = 415, body = ErrorEnvelope),
        (status = 422, description = "Corpo malformado, ou CPF do cliente não REGULAR na Receita Federal (`cpf_irregular`, a situação na mensagem; nada gravado)", body = ErrorEnvelope),
        (status = 503, body = ErrorEnvelope),
    ))]
pub async fn create_proposal(
    state: web::Data<AppState>,
    user: AuthenticatedUser,
    body: Body<ProposalBody>,
) -> Result<HttpResponse, ApiError> {
    let record = state.proposals.create_proposal(&user.0, body.into_inner()).await?;
    Ok(proposal_created(record))
}

/// Route 6: the online shop's proposal (reduced customer; value 0).
#[utoipa::path(post, path = "/proposal/create/ecommerce", operation_id = "proposal.createEcommerce", summary = "Criar proposta de e-commerce (rota 6)", description = "A proposta da loja online (cliente reduzido; valor 0).", tag = "propostas", security(("bearer" = [])),
    request_body(content = ShopProposalBody, example = json!({
        "billingCode": 5004, "productCode": 103, "shippingType": "sms",
        "customer": {"fullName": "João Souza", "cpf": "52998224725", "birthDate": "1985-03-10", "gender": "Masculino",
            "maritalStatus": "Solteiro", "cellPhone": "(21) 99876-5432", "email": "joao@exemplo.com.br"},
        "address": {"zipCode": "20040002", "address": "Rua da Assembleia", "number": 10, "neighborhood": "Centro",
            "city": "Rio de Janeiro", "state": "RJ", "complement": "Sala 501"}
    })),
    responses(
        (status = 201, description = "Proposta criada", body = ProposalCreatedEnvelope),
        (status = 400, body = ErrorEnvelope), (status = 401, body = ErrorEnvelope), (status = 403, body = ErrorEnvelope),
        (status = 409, description = "Dados do titular bloqueados por retenção legal (`titular_bloqueado`)", body = ErrorEnvelope),
        (status = 413, body = ErrorEnvelope), (status = 415, body = ErrorEnvelope),
        (status = 422, description = "Corpo malformado, ou CPF do cliente não REGULAR na Receita Federal (`cpf_irregular`, a situação na mensagem; nada gravado)", body = ErrorEnvelope),
        (status = 503, body = ErrorEnvelope),
    ))]
pub async fn create_ecommerce_proposal(
    state: web::Data<AppState>,
    user: AuthenticatedUser,
    body: Body<ShopProposalBody>,
) -> Result<HttpResponse, ApiError> {
    let record = state
        .proposals
        .create_ecommerce_proposal(&user.0, body.into_inner())
        .await?;
    Ok(proposal_created(record))
}

/// The answer of routes 5 and 6.
fn proposal_created(record: domain::proposals::model::ProposalRecord) -> HttpResponse {
    let document = vec![ProposalRecordDto::from(record)];
    HttpResponse::Created().json(Envelope::list("Proposta criada com sucesso.", document, vec![1]))
}

/// Route 7: the proposal with its customer, seller, signature and payment.
#[utoipa::path(get, path = "/proposal/byIdentifier/{identificador}", operation_id = "proposal.get", summary = "Proposta por identificador (rota 7)", description = "A proposta com seu cliente, vendedor, assinatura e pagamento.", tag = "propostas", security(("bearer" = [])),
    params(("identificador" = String, Path, description = "Identificador da proposta")),
    responses(
        (status = 200, description = "Detalhe da proposta", body = ProposalDetailEnvelope),
        (status = 401, body = ErrorEnvelope), (status = 403, body = ErrorEnvelope),
        (status = 404, description = "Não encontrada (ou de outro parceiro)", body = ErrorEnvelope), (status = 503, body = ErrorEnvelope),
    ))]
pub async fn by_identifier(
    state: web::Data<AppState>,
    user: AuthenticatedUser,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let detail = state.proposals.detail(&user.0, &path).await?;
    Ok(HttpResponse::Ok().json(Envelope::data("Proposta encontrada.", ProposalDetailDto::from(detail))))
}

/// Every change of the proposal, oldest first.
#[utoipa::path(get, path = "/proposal/{identificador}/history", operation_id = "proposal.history", summary = "Histórico da proposta", description = "Cada alteração da proposta e dos dados do cliente que ela usa, da mais antiga à mais nova: quando (`at`), por quem (`by`), o tipo (`action`) e, por campo alterado, o valor anterior e o novo (`changes`), com os dados pessoais mascarados. Escrito na mesma transação de cada alteração; nunca alterado nem apagado. Visível a quem vê a proposta (como a rota 7).", tag = "propostas", security(("bearer" = [])),
    params(("identificador" = String, Path, description = "Identificador da proposta")),
    responses(
        (status = 200, description = "`data.entries`", body = HistoryEnvelope),
        (status = 401, body = ErrorEnvelope), (status = 403, body = ErrorEnvelope),
        (status = 404, description = "Não encontrada (ou de outro parceiro)", body = ErrorEnvelope), (status = 503, body = ErrorEnvelope),
    ))]
pub async fn history(
    state: web::Data<AppState>,
    user: AuthenticatedUser,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let entries = state.proposals.history(&user.0, &path).await?;
    let history = HistoryDto {
        entries: entries.into_iter().map(HistoryEntryDto::from).collect(),
    };
    Ok(HttpResponse::Ok().json(Envelope::data("Histórico da proposta.", history)))
}

/// The back office's list: proposals in the caller's scope, newest first, a page at a time.
#[utoipa::path(get, path = "/proposal/list", operation_id = "proposal.list", summary = "Listar propostas", description = "As propostas que o chamador pode ver (o representante, as do seu parceiro; a loja, as de e-commerce; a retaguarda, todas), da mais nova à mais antiga, uma página por vez. Condições de igualdade em `conditions[campo]`; `q` busca um CPF ou palavras do nome do cliente (sem diferenciar maiúsculas nem acentos); `createdFrom`/`createdTo` são dias de Brasília (inclusive). A próxima página vem de `cursor` = `data.nextCursor`. Um parâmetro vazio vale como não enviado.", tag = "propostas", security(("bearer" = [])),
    params(
        ("conditions[status]" = Option<String>, Query, description = "NOVO, AGUARDANDO ASSINATURA, EM ANÁLISE, APROVADO, REPROVADO, CANCELADO ou EXPIRADO"),
        ("conditions[id_produto]" = Option<i64>, Query, description = "id interno do produto (o `id_produto` do registro)"),
        ("conditions[codigo_faturamento]" = Option<i32>, Query),
        ("conditions[cpf_cnpj_parceiro]" = Option<String>, Query, description = "CPF ou CNPJ do parceiro, com ou sem máscara"),
        ("conditions[tipo_envio]" = Option<String>, Query, description = "sms ou whatsapp"),
        ("conditions[id_cliente]" = Option<i64>, Query),
        ("q" = Option<String>, Query, description = "Um CPF, ou palavras do nome do cliente (ao menos 3 letras)"),
        ("createdFrom" = Option<String>, Query, description = "AAAA-MM-DD: criadas a partir deste dia (Brasília)"),
        ("createdTo" = Option<String>, Query, description = "AAAA-MM-DD: criadas até este dia, inclusive (Brasília)"),
        ("overdue" = Option<bool>, Query, description = "`true`: só as propostas com o prazo de aceitação vencido sem decisão (produto sem aceite tácito); `false`: nenhuma delas"),
        ("limit" = Option<i64>, Query, description = "Tamanho da página: 1 a 200 (padrão 50)"),
        ("cursor" = Option<String>, Query, description = "O `data.nextCursor` da página anterior"),
    ),
    responses(
        (status = 200, description = "Uma página: `document` com os registros da rota 5; `rowsAffected` [quantos]; `data.nextCursor` (null na última)", body = ProposalListEnvelope),
        (status = 400, description = "Parâmetro desconhecido ou valor inválido, nomeado em `errors`", body = ErrorEnvelope),
        (status = 401, body = ErrorEnvelope), (status = 403, body = ErrorEnvelope), (status = 503, body = ErrorEnvelope),
    ))]
pub async fn list(
    state: web::Data<AppState>,
    user: AuthenticatedUser,
    query: web::Query<Vec<(String, String)>>,
) -> Result<HttpResponse, ApiError> {
    let search = ProposalSearch::parse(&query)?;
    let page = state.proposals.list(&user.0, &search).await?;
    let count = i64::try_from(page.records.len()).unwrap_or(i64::MAX);
    let message = if count == 0 {
        "Nenhuma proposta encontrada."
    } else {
        "Propostas encontradas."
    };
    let document: Vec<ProposalRecordDto> = page.records.into_iter().map(|listed| listed.record.into()).collect();
    let envelope = Envelope::list(message, document, vec![count])
        .with_data(ListPageDto::before(page.next.map(|cursor| cursor.encode())));
    Ok(HttpResponse::Ok().json(envelope))
}

/// The answer of routes 8 and 9.
async fn availability(
    state: &AppState,
    user: &AuthenticatedUser,
    query: AvailabilityQuery,
) -> Result<HttpResponse, ApiError> {
    let is_valid = state.proposals.availability(&user.0, &query).await?;
    let (what, message) = (query.holder.noun(), if is_valid { "Não há" } else { "Já existe" });
    let envelope: Envelope<Nothing, IsValidDto> = Envelope {
        rows_affected: vec![0],
        ..Envelope::data(
            format!("{message} proposta em andamento para este {what} e produto."),
            IsValidDto { is_valid },
        )
    };
    Ok(HttpResponse::Ok().json(envelope))
}

/// Route 8: `isValid` is true when no unfinished proposal exists for the CPF and product.
#[utoipa::path(get, path = "/proposal/cpfValidtoProduct/{cpf}/{integrationCode}", operation_id = "proposal.openByCpf", summary = "CPF disponível para o produto? (rota 8)", description = "`isValid` é verdadeiro quando não há proposta em andamento para o CPF e o produto.", tag = "propostas", security(("bearer" = [])),
    params(("cpf" = String, Path), ("integrationCode" = String, Path, description = "Código de integração do produto")),
    responses(
        (status = 200, body = IsValidEnvelope),
        (status = 400, body = ErrorEnvelope), (status = 401, body = ErrorEnvelope), (status = 403, body = ErrorEnvelope),
        (status = 404, description = "Produto não encontrado", body = ErrorEnvelope), (status = 503, body = ErrorEnvelope),
    ))]
pub async fn cpf_valid_to_product(
    state: web::Data<AppState>,
    user: AuthenticatedUser,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (cpf, code) = path.into_inner();
    availability(&state, &user, AvailabilityQuery::by_cpf(&cpf, &code)?).await
}

/// Route 9: the same by cell phone (formatted or digits).
#[utoipa::path(get, path = "/proposal/cellPhoneValidtoProduct/{celular}/{integrationCode}", operation_id = "proposal.openByCellPhone", summary = "Celular disponível para o produto? (rota 9)", description = "O mesmo pelo celular (formatado ou só dígitos).", tag = "propostas", security(("bearer" = [])),
    params(("celular" = String, Path), ("integrationCode" = String, Path)),
    responses(
        (status = 200, body = IsValidEnvelope),
        (status = 400, body = ErrorEnvelope), (status = 401, body = ErrorEnvelope), (status = 403, body = ErrorEnvelope),
        (status = 404, description = "Produto não encontrado", body = ErrorEnvelope), (status = 503, body = ErrorEnvelope),
    ))]
pub async fn cell_phone_valid_to_product(
    state: web::Data<AppState>,
    user: AuthenticatedUser,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (phone, code) = path.into_inner();
    availability(&state, &user, AvailabilityQuery::by_cell_phone(&phone, &code)?).await
}

/// Under `/customer`: routes 3 and 4 and the back office's registrations.
pub fn customer_routes(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::resource("/create")
            .wrap(from_fn(idempotent))
            .route(web::post().to(create_customer)),
    )
    .service(web::resource("/validCustomer/{cpf}").route(web::get().to(valid_customer)))
    .service(web::resource("/registrations/{cpf}").route(web::get().to(registrations)));
}

/// Under `/proposal`: routes 5 to 9 (the lifecycle's routes follow them, from `signing`).
pub fn proposal_routes(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::resource("/create")
            .wrap(from_fn(idempotent))
            .route(web::post().to(create_proposal)),
    )
    .service(
        web::resource("/create/ecommerce")
            .wrap(from_fn(idempotent))
            .route(web::post().to(create_ecommerce_proposal)),
    )
    .service(web::resource("/list").route(web::get().to(list)))
    .service(web::resource("/{identificador}/history").route(web::get().to(history)))
    .service(web::resource("/byIdentifier/{identificador}").route(web::get().to(by_identifier)))
    .service(web::resource("/cpfValidtoProduct/{cpf}/{integrationCode}").route(web::get().to(cpf_valid_to_product)))
    .service(
        web::resource("/cellPhoneValidtoProduct/{celular}/{integrationCode}")
            .route(web::get().to(cell_phone_valid_to_product)),
    );
}
