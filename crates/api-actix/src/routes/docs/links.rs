//! OpenAPI links: which answer feeds which next call (create → read → send → history). A
//! generated client's documentation shows them, and schemathesis's stateful phase follows them
//! to reach the routes that need something created first (`scripts/schemathesis.sh`).

use serde_json::{Map, Value, json};

/// Where a created proposal's identifier and customer are read in the answer of routes 5 and 6.
const PROPOSAL: &str = "$response.body#/document/0/identificador";
const PROPOSAL_CUSTOMER: &str = "$response.body#/document/0/id_cliente";

/// One link: from an operation's answer to another operation, with the values it carries.
struct Link {
    from: (&'static str, &'static str, &'static str),
    name: &'static str,
    to: &'static str,
    description: &'static str,
    parameters: &'static [(&'static str, &'static str)],
    body: &'static [(&'static str, &'static str)],
}

/// What a created proposal leads to, for both creation routes.
const fn from_proposal(path: &'static str, name: &'static str, to: &'static str, description: &'static str) -> Link {
    Link {
        from: (path, "post", "201"),
        name,
        to,
        description,
        parameters: &[("identificador", PROPOSAL)],
        body: &[],
    }
}

const CREATIONS: [&str; 2] = ["/proposal/create", "/proposal/create/ecommerce"];

/// The links that start at each proposal creation route.
fn proposal_links(path: &'static str) -> [Link; 9] {
    [
        from_proposal(
            path,
            "LerProposta",
            "proposal.get",
            "A proposta criada, pelo identificador.",
        ),
        from_proposal(
            path,
            "HistoricoDaProposta",
            "proposal.history",
            "O histórico da proposta criada.",
        ),
        from_proposal(
            path,
            "EventosDaProposta",
            "proposal.events",
            "Os eventos da proposta criada.",
        ),
        from_proposal(
            path,
            "DocumentoDaProposta",
            "proposal.document",
            "O documento da proposta criada.",
        ),
        from_proposal(
            path,
            "CancelarProposta",
            "proposal.cancel",
            "Cancela a proposta criada a pedido do cliente.",
        ),
        from_proposal(
            path,
            "MudarStatus",
            "proposal.changeStatus",
            "A retaguarda decide a proposta criada.",
        ),
        from_proposal(
            path,
            "PedirDocumentos",
            "proposal.requestDocuments",
            "A retaguarda pede documentos da proposta criada.",
        ),
        Link {
            from: (path, "post", "201"),
            name: "EnviarParaAssinatura",
            to: "signature.send",
            description: "Envia a proposta criada à assinatura eletrônica.",
            parameters: &[],
            body: &[("customerId", PROPOSAL_CUSTOMER), ("identifier", PROPOSAL)],
        },
        Link {
            from: (path, "post", "201"),
            name: "LinkDeAssinatura",
            to: "signature.signLink",
            description: "O link de assinatura da proposta criada (depois de enviada).",
            parameters: &[("identifier", PROPOSAL)],
            body: &[],
        },
    ]
}

/// Every other link, by the operation whose answer it starts at.
const LINKS: &[Link] = &[
    Link {
        from: ("/proposal/create/ecommerce", "post", "201"),
        name: "ClienteNaPlataforma",
        to: "ecommerce.createCustomer",
        description: "Cadastra o comprador da proposta na plataforma de pagamento.",
        parameters: &[],
        body: &[("cpf", "$request.body#/customer/cpf")],
    },
    Link {
        from: ("/proposal/create/ecommerce", "post", "201"),
        name: "Assinar",
        to: "ecommerce.createSubscription",
        description: "Cria a assinatura recorrente da proposta criada.",
        parameters: &[],
        body: &[("identifier", PROPOSAL)],
    },
    Link {
        from: ("/ecommerce/createCustomer", "post", "201"),
        name: "PrepararCartao",
        to: "ecommerce.createSetupIntent",
        description: "Prepara o cadastro do cartão do mesmo comprador.",
        parameters: &[],
        body: &[("cpf", "$request.body#/cpf")],
    },
    Link {
        from: ("/signer", "post", "200"),
        name: "HistoricoDaPropostaEnviada",
        to: "proposal.history",
        description: "O histórico da proposta enviada, com o envio.",
        parameters: &[("identificador", "$request.body#/identifier")],
        body: &[],
    },
    Link {
        from: ("/signer", "post", "200"),
        name: "LinkDaPropostaEnviada",
        to: "signature.signLink",
        description: "O link de assinatura da proposta enviada.",
        parameters: &[("identifier", "$request.body#/identifier")],
        body: &[],
    },
    Link {
        from: ("/proposal/{identificador}/pending", "post", "201"),
        name: "ResponderPendencia",
        to: "proposal.answerPending",
        description: "O vendedor responde ao pedido de documentos aberto.",
        parameters: &[
            ("identificador", "$response.body#/data/identifier"),
            ("id", "$response.body#/data/id"),
        ],
        body: &[],
    },
    Link {
        from: ("/customer/create", "post", "201"),
        name: "CadastrosDoCliente",
        to: "customer.registrations",
        description: "Os cadastros do cliente criado, pelo CPF.",
        parameters: &[("cpf", "$response.body#/0/cpf")],
        body: &[],
    },
    Link {
        from: ("/customer/create", "post", "201"),
        name: "ClienteDoVendedor",
        to: "customer.ownership",
        description: "Se o cliente criado é deste vendedor.",
        parameters: &[("cpf", "$response.body#/0/cpf")],
        body: &[],
    },
    Link {
        from: ("/customer/create", "post", "201"),
        name: "DadosDoTitular",
        to: "privacy.export",
        description: "Os dados do titular criado (LGPD art. 18).",
        parameters: &[("cpf", "$response.body#/0/cpf")],
        body: &[],
    },
    Link {
        from: ("/customer/create", "post", "201"),
        name: "ConsentimentoDoTitular",
        to: "privacy.consent",
        description: "Registra um consentimento do titular criado.",
        parameters: &[("cpf", "$response.body#/0/cpf")],
        body: &[],
    },
    Link {
        from: ("/privacy/requests", "post", "201"),
        name: "LerProtocolo",
        to: "customerRequest.get",
        description: "O pedido do titular registrado, pelo protocolo.",
        parameters: &[("protocolo", "$response.body#/data/protocolo")],
        body: &[],
    },
    Link {
        from: ("/product", "post", "201"),
        name: "PagamentoDoProduto",
        to: "product.payment",
        description: "As formas de pagamento do produto criado.",
        parameters: &[("productCode", "$response.body#/document/0/codigo_produto")],
        body: &[],
    },
    Link {
        from: ("/product", "post", "201"),
        name: "AlterarProduto",
        to: "product.update",
        description: "Altera o produto criado.",
        parameters: &[("productCode", "$response.body#/document/0/codigo_produto")],
        body: &[],
    },
    Link {
        from: ("/billingGroup", "post", "201"),
        name: "AlterarFaturamento",
        to: "billingGroup.update",
        description: "Altera o grupo de faturamento criado.",
        parameters: &[("billingCode", "$response.body#/document/0/codigo_faturamento")],
        body: &[],
    },
];

/// What a created subscription leads to: every operation on `/hooks/{uuid}`.
const HOOK_OPERATIONS: [(&str, &str, &str); 7] = [
    ("LerWebhook", "hook.get", "A assinatura de webhook criada."),
    ("AlterarWebhook", "hook.update", "Altera a assinatura criada."),
    (
        "EntregasDoWebhook",
        "hook.deliveries",
        "As entregas da assinatura criada.",
    ),
    (
        "TestarWebhook",
        "hook.test",
        "Envia um evento de teste à assinatura criada.",
    ),
    (
        "ReenviarEventos",
        "hook.replay",
        "Reenvia eventos passados à assinatura criada.",
    ),
    (
        "TrocarSegredo",
        "hook.rotateSecret",
        "Troca o segredo da assinatura criada.",
    ),
    ("RemoverWebhook", "hook.delete", "Remove a assinatura criada."),
];

/// Writes every link into the answers it starts at. A link to an operation the document does not
/// have is left out (a test holds that none is).
pub fn link_operations(doc: &mut Value) {
    let hooks = HOOK_OPERATIONS.map(|(name, to, description)| Link {
        from: ("/hooks", "post", "200"),
        name,
        to,
        description,
        parameters: &[("uuid", "$response.body#/data/uuid")],
        body: &[],
    });
    let proposals = CREATIONS.map(proposal_links);
    let all = LINKS.iter().chain(&hooks).chain(proposals.iter().flatten());
    let known = operation_ids(doc);
    for link in all {
        if !known.iter().any(|id| id == link.to) {
            continue;
        }
        let (path, method, status) = link.from;
        let Some(answer) = doc
            .pointer_mut(&format!("/paths/{}/{method}/responses/{status}", escape(path)))
            .and_then(Value::as_object_mut)
        else {
            continue;
        };
        let links = answer.entry("links").or_insert_with(|| Value::Object(Map::new()));
        let mut written = json!({"operationId": link.to, "description": link.description});
        if !link.parameters.is_empty() {
            written["parameters"] = pairs(link.parameters);
        }
        if !link.body.is_empty() {
            written["requestBody"] = pairs(link.body);
        }
        links[link.name] = written;
    }
}

fn pairs(pairs: &[(&str, &str)]) -> Value {
    Value::Object(pairs.iter().map(|(k, v)| ((*k).to_owned(), json!(v))).collect())
}

/// A path as one JSON pointer token (`/` is `~1`, `~` is `~0`).
fn escape(path: &str) -> String {
    path.replace('~', "~0").replace('/', "~1")
}

fn operation_ids(doc: &Value) -> Vec<String> {
    doc["paths"]
        .as_object()
        .into_iter()
        .flatten()
        .filter_map(|(_, item)| item.as_object())
        .flat_map(|item| item.values())
        .filter_map(|operation| operation["operationId"].as_str().map(str::to_owned))
        .collect()
}

/// Every link of the whole document, as (from operation, link name, to operation).
#[cfg(test)]
pub fn links_of(doc: &Value) -> Vec<(String, String, String)> {
    let mut found = Vec::new();
    for (_, item) in doc["paths"].as_object().into_iter().flatten() {
        for (_, operation) in item.as_object().into_iter().flatten() {
            let from = operation["operationId"].as_str().unwrap_or_default();
            for (_, answer) in operation["responses"].as_object().into_iter().flatten() {
                for (name, link) in answer["links"].as_object().into_iter().flatten() {
                    let to = link["operationId"].as_str().unwrap_or_default();
                    found.push((from.to_owned(), name.clone(), to.to_owned()));
                }
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The schema at `pointer` (`/document/0/identificador`) inside an instance of `schema`,
    /// through references, `allOf` and array items.
    fn schema_at<'d>(doc: &'d Value, mut schema: &'d Value, pointer: &str) -> Option<&'d Value> {
        for token in pointer.split('/').skip(1) {
            schema = resolve(doc, schema);
            schema = if token.parse::<usize>().is_ok() {
                resolve(doc, schema.get("items")?)
            } else {
                member(doc, schema, token)?
            };
        }
        Some(resolve(doc, schema))
    }

    fn member<'d>(doc: &'d Value, schema: &'d Value, name: &str) -> Option<&'d Value> {
        let schema = resolve(doc, schema);
        schema.pointer(&format!("/properties/{name}")).or_else(|| {
            schema["allOf"]
                .as_array()?
                .iter()
                .find_map(|part| member(doc, part, name))
        })
    }

    fn resolve<'d>(doc: &'d Value, schema: &'d Value) -> &'d Value {
        match schema["$ref"].as_str() {
            Some(reference) => doc
                .pointer(reference.trim_start_matches('#'))
                .map_or(schema, |target| resolve(doc, target)),
            None => schema,
        }
    }

    fn operation<'d>(doc: &'d Value, id: &str) -> Option<(&'d str, &'d Value)> {
        doc["paths"].as_object()?.iter().find_map(|(path, item)| {
            item.as_object()?
                .values()
                .find(|o| o["operationId"] == id)
                .map(|o| (path.as_str(), o))
        })
    }

    /// Where a runtime expression reads: the answer's or the request's schema and the pointer.
    fn source<'d>(doc: &'d Value, from: &'d Value, status: &str, expression: &'d str) -> Option<(&'d Value, &'d str)> {
        if let Some(pointer) = expression.strip_prefix("$response.body#") {
            let schema = from.pointer(&format!("/responses/{status}/content/application~1json/schema"))?;
            return Some((schema, pointer));
        }
        let pointer = expression.strip_prefix("$request.body#")?;
        let schema = from.pointer("/requestBody/content/application~1json/schema")?;
        Some((resolve(doc, schema), pointer))
    }

    #[test]
    fn every_link_reads_a_member_its_answer_or_request_has_into_a_parameter_or_body_member_its_target_has() {
        let doc = crate::routes::docs::document();
        let links = links_of(doc);
        assert!(links.len() >= 30, "{}", links.len());
        for (path, item) in doc["paths"].as_object().into_iter().flatten() {
            for (_, from) in item.as_object().into_iter().flatten() {
                for (status, answer) in from["responses"].as_object().into_iter().flatten() {
                    for (name, link) in answer["links"].as_object().into_iter().flatten() {
                        let target = link["operationId"].as_str().unwrap_or_default();
                        let Some((_, to)) = operation(doc, target) else {
                            panic!("{path} {name}: no operation {target}");
                        };
                        for (parameter, expression) in link["parameters"].as_object().into_iter().flatten() {
                            let declared = to["parameters"]
                                .as_array()
                                .into_iter()
                                .flatten()
                                .any(|p| p["name"] == parameter.as_str());
                            assert!(declared, "{path} {name}: {target} has no parameter {parameter}");
                            let (schema, pointer) = source(doc, from, status, expression.as_str().unwrap_or_default())
                                .unwrap_or_else(|| panic!("{path} {name}: {expression} reads nothing"));
                            assert!(schema_at(doc, schema, pointer).is_some(), "{path} {name}: {expression}");
                        }
                        for (member_name, expression) in link["requestBody"].as_object().into_iter().flatten() {
                            let body = to
                                .pointer("/requestBody/content/application~1json/schema")
                                .unwrap_or_else(|| panic!("{path} {name}: {target} takes no body"));
                            assert!(
                                member(doc, body, member_name).is_some(),
                                "{path} {name}: {target} has no {member_name}"
                            );
                            let (schema, pointer) = source(doc, from, status, expression.as_str().unwrap_or_default())
                                .unwrap_or_else(|| panic!("{path} {name}: {expression} reads nothing"));
                            assert!(schema_at(doc, schema, pointer).is_some(), "{path} {name}: {expression}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn a_created_proposal_links_to_its_reading_its_sending_and_its_history() {
        let links = links_of(crate::routes::docs::document());
        for (from, to) in [
            ("proposal.create", "proposal.get"),
            ("proposal.create", "signature.send"),
            ("proposal.create", "proposal.history"),
            ("proposal.createEcommerce", "ecommerce.createSubscription"),
            ("signature.send", "proposal.history"),
            ("hook.create", "hook.deliveries"),
            ("customer.create", "customer.registrations"),
        ] {
            assert!(
                links.iter().any(|(f, _, t)| f == from && t == to),
                "{from} → {to} missing"
            );
        }
    }
}
