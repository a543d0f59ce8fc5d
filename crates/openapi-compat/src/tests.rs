use serde_json::{Value, json};

use super::*;

/// A small released contract: a creating route with a body, an answer and an error, and one
/// webhook.
fn released() -> Value {
    json!({
        "openapi": "3.1.0",
        "info": {"title": "t", "version": "1.4.0"},
        "paths": {
            "/proposal/create": {"post": {
                "parameters": [{"in": "header", "name": "Idempotency-Key", "required": false, "schema": {"type": "string"}}],
                "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ProposalBody"}}}},
                "responses": {
                    "201": {"description": "ok", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Proposal"}}}},
                    "400": {"description": "bad", "content": {"application/json": {"schema": {"allOf": [
                        {"$ref": "#/components/schemas/ErrorEnvelope"},
                        {"type": "object", "properties": {"code": {"type": "string", "enum": ["dados_invalidos", "regra"]}}}
                    ]}}}}
                }
            }},
            "/proposal/list": {"get": {"responses": {"200": {"description": "ok"}}}}
        },
        "webhooks": {"STATUS": {"post": {"requestBody": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Event"}}}}, "responses": {"200": {"description": "ok"}}}}},
        "components": {"schemas": {
            "ProposalBody": {"type": "object", "required": ["productCode"], "properties": {
                "productCode": {"type": "string"},
                "shippingType": {"$ref": "#/components/schemas/ShippingType"},
                "customer": {"$ref": "#/components/schemas/Customer"}
            }},
            "Customer": {"type": "object", "properties": {"name": {"type": "string"}, "parent": {"$ref": "#/components/schemas/Customer"}}},
            "ShippingType": {"type": "string", "enum": ["sms", "whatsapp"]},
            "Proposal": {"type": "object", "required": ["identificador"], "properties": {"identificador": {"type": "string"}, "status": {"type": "string"}}},
            "ErrorEnvelope": {"type": "object", "properties": {"code": {"type": "string"}, "message": {"type": "string"}}},
            "Event": {"type": "object", "properties": {"data": {"oneOf": [{"$ref": "#/components/schemas/Proposal"}, {"$ref": "#/components/schemas/Customer"}]}}}
        }}
    })
}

fn kinds(changes: &[BreakingChange]) -> Vec<&ChangeKind> {
    changes.iter().map(|c| &c.kind).collect()
}

#[test]
fn the_same_document_breaks_nothing() {
    assert_eq!(verdict(&released(), &released()), Ok(Verdict::Compatible));
}

#[test]
fn additions_break_nothing() {
    let mut current = released();
    current["paths"]["/proposal/new"] = json!({"get": {"responses": {"200": {"description": "ok"}}}});
    current["components"]["schemas"]["ProposalBody"]["properties"]["note"] = json!({"type": "string"});
    current["components"]["schemas"]["ShippingType"]["enum"] = json!(["sms", "whatsapp", "email"]);
    current["components"]["schemas"]["Proposal"]["required"] = json!(["identificador", "status"]);
    current["paths"]["/proposal/create"]["post"]["responses"]["404"] = json!({"description": "x"});
    assert_eq!(breaking_changes(&released(), &current), vec![]);
}

#[test]
fn an_inline_error_answer_moved_into_a_named_component_breaks_nothing() {
    let mut current = released();
    let answer =
        &mut current["paths"]["/proposal/create"]["post"]["responses"]["400"]["content"]["application/json"]["schema"];
    let inline = answer.take();
    *answer = json!({"$ref": "#/components/schemas/BadRequestError"});
    current["components"]["schemas"]["BadRequestError"] = inline;
    assert_eq!(breaking_changes(&released(), &current), vec![]);
}

#[test]
fn a_removed_operation_path_or_webhook_breaks() {
    let mut current = released();
    current["paths"].as_object_mut().unwrap().remove("/proposal/list");
    current["webhooks"] = json!({});
    let changes = breaking_changes(&released(), &current);
    assert_eq!(
        changes,
        vec![
            BreakingChange {
                location: "GET /proposal/list".into(),
                kind: ChangeKind::RemovedOperation
            },
            BreakingChange {
                location: "webhook STATUS".into(),
                kind: ChangeKind::RemovedOperation
            },
        ]
    );
}

#[test]
fn a_member_removed_from_a_request_an_answer_or_a_nested_schema_breaks() {
    let mut current = released();
    let schemas = &mut current["components"]["schemas"];
    schemas["ProposalBody"]["properties"]
        .as_object_mut()
        .unwrap()
        .remove("shippingType");
    schemas["Proposal"]["properties"]
        .as_object_mut()
        .unwrap()
        .remove("status");
    schemas["Customer"]["properties"]
        .as_object_mut()
        .unwrap()
        .remove("name");
    let changes = breaking_changes(&released(), &current);
    let removed: Vec<String> = changes.iter().map(ToString::to_string).collect();
    assert!(
        removed.contains(&"POST /proposal/create request: membro shippingType removido".to_owned()),
        "{removed:?}"
    );
    assert!(
        removed.contains(&"POST /proposal/create 201: membro status removido".to_owned()),
        "{removed:?}"
    );
    assert!(
        removed.contains(&"POST /proposal/create request.customer: membro name removido".to_owned()),
        "{removed:?}"
    );
}

#[test]
fn a_removed_enum_value_breaks_inline_or_named() {
    let mut current = released();
    current["components"]["schemas"]["ShippingType"]["enum"] = json!(["sms"]);
    let codes = &mut current["paths"]["/proposal/create"]["post"]["responses"]["400"]["content"]["application/json"]["schema"]
        ["allOf"][1]["properties"]["code"]["enum"];
    *codes = json!(["dados_invalidos"]);
    assert_eq!(
        kinds(&breaking_changes(&released(), &current)),
        vec![
            &ChangeKind::RemovedEnumValue(json!("whatsapp")),
            &ChangeKind::RemovedEnumValue(json!("regra")),
        ]
    );
}

#[test]
fn a_new_required_member_parameter_or_body_of_a_request_breaks() {
    let mut current = released();
    current["components"]["schemas"]["ProposalBody"]["required"] = json!(["productCode", "shippingType"]);
    let operation = &mut current["paths"]["/proposal/create"]["post"];
    operation["parameters"][0]["required"] = json!(true);
    operation["parameters"]
        .as_array_mut()
        .unwrap()
        .push(json!({"in": "query", "name": "dryRun", "required": true, "schema": {"type": "boolean"}}));
    current["paths"]["/proposal/list"]["get"]["requestBody"] =
        json!({"required": true, "content": {"application/json": {"schema": {"type": "object"}}}});
    let changes: Vec<String> = breaking_changes(&released(), &current)
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        changes,
        [
            "POST /proposal/create: parâmetro Idempotency-Key (header) passou a ser obrigatório",
            "POST /proposal/create: parâmetro dryRun (query) passou a ser obrigatório",
            "POST /proposal/create request: membro shippingType passou a ser obrigatório",
            "GET /proposal/list: corpo passou a ser obrigatório",
        ]
    );
}

#[test]
fn a_removed_parameter_or_media_type_breaks() {
    let mut current = released();
    let operation = &mut current["paths"]["/proposal/create"]["post"];
    operation["parameters"] = json!([]);
    let content = &mut operation["responses"]["201"]["content"];
    *content = json!({"application/pdf": {"schema": {"type": "string"}}});
    assert_eq!(
        kinds(&breaking_changes(&released(), &current)),
        vec![
            &ChangeKind::RemovedParameter("Idempotency-Key (header)".into()),
            &ChangeKind::RemovedMediaType("application/json".into()),
        ]
    );
}

#[test]
fn a_webhook_body_is_read_by_the_subscriber_so_a_new_required_member_there_breaks_nothing() {
    let mut current = released();
    current["components"]["schemas"]["Event"]["required"] = json!(["data"]);
    assert_eq!(breaking_changes(&released(), &current), vec![]);
    current["components"]["schemas"]["Event"]["properties"]["data"]["oneOf"] =
        json!([{"$ref": "#/components/schemas/Proposal"}]);
    assert_eq!(
        kinds(&breaking_changes(&released(), &current)),
        vec![&ChangeKind::RemovedEnumValue(json!("Customer"))]
    );
}

#[test]
fn a_breaking_change_passes_only_when_the_major_version_moves() {
    let mut current = released();
    current["paths"].as_object_mut().unwrap().remove("/proposal/list");
    current["info"]["version"] = json!("1.5.0");
    assert!(matches!(verdict(&released(), &current), Ok(Verdict::Breaking(c)) if c.len() == 1));
    current["info"]["version"] = json!("2.0.0");
    assert!(matches!(verdict(&released(), &current), Ok(Verdict::BreakingWithNewMajor(c)) if c.len() == 1));
    current["info"]["version"] = json!("dois");
    assert_eq!(verdict(&released(), &current), Err(BadVersion("dois".into())));
}

#[test]
fn what_breaks_generated_code_is_seen_a_removed_component_a_new_answer_value_a_changed_type() {
    let mut current = released();
    current["components"]["schemas"]
        .as_object_mut()
        .unwrap()
        .remove("Customer");
    current["components"]["schemas"]["ProposalBody"]["properties"]
        .as_object_mut()
        .unwrap()
        .remove("customer");
    current["components"]["schemas"]["Event"]["properties"]["data"] = json!({"$ref": "#/components/schemas/Proposal"});
    current["components"]["schemas"]["Proposal"]["properties"]["status"] = json!({"type": "string", "enum": ["NOVO"]});
    current["components"]["schemas"]["Proposal"]["properties"]["identificador"] =
        json!({"type": "string", "format": "uuid"});
    let mut answer_codes = current["paths"]["/proposal/create"]["post"]["responses"]["400"]["content"]["application/json"]
        ["schema"]["allOf"][1]["properties"]["code"]["enum"]
        .as_array()
        .unwrap()
        .clone();
    answer_codes.push(json!("versao_desconhecida"));
    current["paths"]["/proposal/create"]["post"]["responses"]["400"]["content"]["application/json"]["schema"]["allOf"]
        [1]["properties"]["code"]["enum"] = json!(answer_codes);
    let changes = breaking_changes(&released(), &current);
    let found = kinds(&changes);
    assert!(
        found.contains(&&ChangeKind::RemovedSchema("Customer".into())),
        "{changes:?}"
    );
    assert!(
        found.contains(&&ChangeKind::NewEnumValue(json!("versao_desconhecida"))),
        "{changes:?}"
    );
    assert!(
        found.contains(&&ChangeKind::ChangedType {
            from: "string".into(),
            to: "string/uuid".into()
        }),
        "{changes:?}"
    );
    // A request's enum may grow: a client sends only the values it knows.
    let mut request_grows = released();
    request_grows["components"]["schemas"]["ShippingType"]["enum"] = json!(["sms", "whatsapp", "email"]);
    assert_eq!(breaking_changes(&released(), &request_grows), vec![]);
}

#[test]
fn what_breaks_generated_code_fails_a_release_before_dated_versions_as_it_fails_a_versioned_one() {
    let mut current = released();
    current["components"]["schemas"]["Proposal"]["properties"]["identificador"] = json!({"type": "integer"});
    let mut versioned = released();
    versioned["info"]["x-sales-version"] = json!("2026-12-01");
    for release in [released(), versioned] {
        let judged = verdict(&release, &current).unwrap();
        assert!(matches!(judged, Verdict::Breaking(ref c) if c.len() == 1), "{judged:?}");
    }
}
