//! The Central Bank's API Pix specification (`pix-api/openapi.yaml`, release 2.9.0, Apache 2.0, a
//! copy kept unchanged beside this crate) as a judge of requests and answers: each request body,
//! path and query parameter, and each answer's body by its status, is checked against the
//! operation's schema (JSON Schema draft 4, as OpenAPI 3.0 writes it; formats such as `date` and
//! `date-time` asserted).
//!
//! The release has a few mistakes that make its own examples fail it (a quote out of place in a
//! `required`, a CPF pattern between slashes that nothing matches, fields required that no
//! example carries). They are corrected here, each named in [`ERRATA`], and a test shows that each
//! correction is needed by an example of the specification and that every example then passes.

use serde_json::Value;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// The specification's text, as released.
pub const OPENAPI_YAML: &str = include_str!("../../pix-api/openapi.yaml");
/// The release it is.
pub const RELEASE: &str = "2.9.0";

/// One correction of the release: where, why, and what.
pub struct Erratum {
    pub pointer: &'static str,
    pub why: &'static str,
    apply: fn(&mut Value),
}

/// The corrections applied to release 2.9.0 before it judges anything.
pub const ERRATA: &[Erratum] = &[
    Erratum {
        pointer: "/components/schemas/RecNotification/required",
        why: "`[\"idRec\",\"status\",atualizacao\"]`: a quote missing makes the required field `atualizacao\"`",
        apply: |v| *v = serde_json::json!(["idRec", "status", "atualizacao"]),
    },
    Erratum {
        pointer: "/components/schemas/RecBase/required",
        why: "requires `idRec`, which a recurrence being created does not have yet, and `retentativa`, a field that does not exist (the policy is `politicaRetentativa`, required by RecConfiguracao)",
        apply: |v| *v = serde_json::json!(["calendario", "vinculo"]),
    },
    Erratum {
        pointer: "/components/schemas/PessoaFisicaRecorrencia/properties/cpf/pattern",
        why: "`/^\\d{11}$/`: the slashes of a JavaScript literal make a pattern that no CPF matches",
        apply: |v| *v = Value::from("^\\d{11}$"),
    },
    Erratum {
        pointer: "/components/schemas/CPF/properties/cpf/pattern",
        why: "`/^\\d{11}$/`: the slashes of a JavaScript literal make a pattern that no CPF matches",
        apply: |v| *v = Value::from("^\\d{11}$"),
    },
    Erratum {
        pointer: "/components/schemas/ParametrosConsultaRec/properties/cpf/pattern",
        why: "`/^\\d{11}$/`: the slashes of a JavaScript literal make a pattern that no CPF matches",
        apply: |v| *v = Value::from("^\\d{11}$"),
    },
    Erratum {
        pointer: "/paths/~1rec/get/parameters/2/schema/pattern",
        why: "the `cpf` filter of `GET /rec`: `/^\\d{11}$/`, the slashes of a JavaScript literal",
        apply: |v| *v = Value::from("^\\d{11}$"),
    },
    Erratum {
        pointer: "/components/schemas/DadosPagadorRec/properties/pagador/allOf/1/properties/codMun/pattern",
        why: "`/^\\d{7}$/`: the slashes of a JavaScript literal make a pattern that no IBGE code matches",
        apply: |v| *v = Value::from("^\\d{7}$"),
    },
    Erratum {
        pointer: "/components/schemas/DadosPagadorRec/required",
        why: "requires `ispbParticipante` beside `pagador` instead of inside it, on every recurrence, even one no payer has approved yet",
        apply: |v| *v = serde_json::json!([]),
    },
    Erratum {
        pointer: "/components/schemas/SolicRecBase/required",
        why: "requires `pagador`, a field the request does not have (the payer's account is `destinatario`)",
        apply: |v| *v = serde_json::json!(["calendario", "idRec", "destinatario"]),
    },
    Erratum {
        pointer: "/components/schemas/SolicRecCompleta/required",
        why: "requires `rec`, a field the answer does not have (the recurrence is `recPayload`)",
        apply: |v| *v = serde_json::json!([]),
    },
    Erratum {
        pointer: "/components/schemas/PayloadLocationRecGerada/properties/location",
        why: "`format: uri` on a location that the standard writes without its scheme, as the QR code carries it (`pix.example.com/qr/v2/rec/…` in every example)",
        apply: |v| {
            if let Some(location) = v.as_object_mut() {
                location.remove("format");
            }
        },
    },
    Erratum {
        pointer: "/components/schemas/PixAutomatico/properties/valor",
        why: "the amount, a text (`\"49.90\"`), must also match one of the objects that break a common Pix's amount down (`anyOf` PixValorOriginal…), which no text can",
        apply: |v| {
            if let Some(amount) = v.as_object_mut() {
                amount.remove("anyOf");
            }
        },
    },
    Erratum {
        pointer: "/components/schemas/RecEncerramento/properties/encerramento/oneOf",
        why: "a rejection or a cancellation, as `oneOf` two objects whose fields are all optional: every end matches both, so none passes",
        apply: |v| {
            *v = serde_json::json!([
                {"required": ["rejeicao"], "properties": v.pointer("/0/properties").cloned().unwrap_or_default()},
                {"required": ["cancelamento"], "properties": v.pointer("/1/properties").cloned().unwrap_or_default()},
            ])
        },
    },
];

/// The specification, corrected, ready to judge.
pub struct PixSchema {
    document: Value,
    validators: Mutex<HashMap<String, Arc<jsonschema::Validator>>>,
}

/// The HTTP methods the adapter uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    Get,
    Post,
    Put,
    Patch,
}

impl Method {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Get => "get",
            Self::Post => "post",
            Self::Put => "put",
            Self::Patch => "patch",
        }
    }
}

/// The notifications a PSP posts to the payee's webhook.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Notification {
    /// `{webhookUrl}/rec`: recurrences.
    Rec,
    /// `{webhookUrl}/cobr`: recurring charges.
    CobR,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", .0.join("; "))]
pub struct Violations(pub Vec<String>);

fn escape(segment: &str) -> String {
    segment.replace('~', "~0").replace('/', "~1")
}

impl PixSchema {
    /// The release as published, corrected by [`ERRATA`].
    pub fn load() -> Result<Self, String> {
        let mut document = Self::released()?;
        for erratum in ERRATA {
            let target = document
                .pointer_mut(erratum.pointer)
                .ok_or_else(|| format!("errata: {} não existe na especificação", erratum.pointer))?;
            (erratum.apply)(target);
        }
        Ok(Self::from_document(document))
    }

    /// The release exactly as published.
    pub fn released() -> Result<Value, String> {
        serde_norway::from_str(OPENAPI_YAML).map_err(|e| format!("openapi.yaml ilegível: {e}"))
    }

    /// A document judged as it is (the tests judge the release without its errata).
    pub fn from_document(document: Value) -> Self {
        Self {
            document,
            validators: Mutex::new(HashMap::new()),
        }
    }

    pub fn document(&self) -> &Value {
        &self.document
    }

    /// The operation's template that matches `path` (`/cobr/abc` → `/cobr/{txid}`), with the
    /// path's parameters.
    fn template(&self, path: &str) -> Option<(String, Vec<(String, String)>)> {
        let paths = self.document.get("paths")?.as_object()?;
        let given: Vec<&str> = path.trim_matches('/').split('/').collect();
        // The payloads served at a QR code's location (`/rec/{recUrlAccessToken}`,
        // `/{pixUrlAccessToken}`) are not the API's: `/rec/{x}` is `/rec/{idRec}`.
        let mut candidates: Vec<&String> = paths.keys().filter(|t| !t.contains("UrlAccessToken")).collect();
        candidates.sort_by_key(|t| t.matches('{').count());
        for template in candidates {
            let parts: Vec<&str> = template.trim_matches('/').split('/').collect();
            if parts.len() != given.len() {
                continue;
            }
            let mut parameters = Vec::new();
            let matched = parts.iter().zip(&given).all(|(part, value)| {
                if let Some(name) = part.strip_prefix('{').and_then(|p| p.strip_suffix('}')) {
                    parameters.push((name.to_owned(), (*value).to_owned()));
                    true
                } else {
                    part == value
                }
            });
            if matched {
                return Some((template.clone(), parameters));
            }
        }
        None
    }

    /// Follows a `$ref` that is not a schema (a request body, an answer, a parameter).
    fn follow<'a>(&'a self, pointer: &str) -> Option<(String, &'a Value)> {
        let mut pointer = pointer.to_owned();
        for _ in 0..4 {
            let value = self.document.pointer(&pointer)?;
            match value.get("$ref").and_then(Value::as_str) {
                Some(target) => pointer = target.trim_start_matches('#').to_owned(),
                None => return Some((pointer, value)),
            }
        }
        None
    }

    fn validator(&self, schema_pointer: &str) -> Result<Arc<jsonschema::Validator>, String> {
        let mut cache = self
            .validators
            .lock()
            .map_err(|_| "validadores envenenados".to_owned())?;
        if let Some(validator) = cache.get(schema_pointer) {
            return Ok(validator.clone());
        }
        let mut root = self.document.clone();
        if let Some(object) = root.as_object_mut() {
            // A URI fragment: the templates' braces are percent-encoded.
            let fragment = schema_pointer.replace('{', "%7B").replace('}', "%7D");
            object.insert("$ref".to_owned(), Value::from(format!("#{fragment}")));
        }
        let validator = jsonschema::options()
            .with_draft(jsonschema::Draft::Draft4)
            .should_validate_formats(true)
            .build(&root)
            .map_err(|e| format!("esquema {schema_pointer}: {e}"))?;
        let validator = Arc::new(validator);
        cache.insert(schema_pointer.to_owned(), validator.clone());
        Ok(validator)
    }

    fn judge(&self, schema_pointer: &str, value: &Value, what: &str, found: &mut Vec<String>) {
        match self.validator(schema_pointer) {
            Ok(validator) => found.extend(validator.iter_errors(value).map(|e| {
                let at = e.instance_path.to_string();
                format!(
                    "{what}{}: {e}",
                    if at.is_empty() { String::new() } else { format!(" {at}") }
                )
            })),
            Err(e) => found.push(e),
        }
    }

    /// The parameters of an operation (the path's and its own), by name and place.
    fn parameters(&self, template_pointer: &str, method: Method) -> Vec<(String, String, String)> {
        let mut found = Vec::new();
        for list in [
            format!("{template_pointer}/parameters"),
            format!("{template_pointer}/{}/parameters", method.as_str()),
        ] {
            let count = self
                .document
                .pointer(&list)
                .and_then(Value::as_array)
                .map_or(0, Vec::len);
            for index in 0..count {
                if let Some((pointer, parameter)) = self.follow(&format!("{list}/{index}")) {
                    let name = parameter.get("name").and_then(Value::as_str).unwrap_or_default();
                    let place = parameter.get("in").and_then(Value::as_str).unwrap_or_default();
                    found.push((name.to_owned(), place.to_owned(), format!("{pointer}/schema")));
                }
            }
        }
        found
    }

    /// Judges a request: its path and query parameters and its body.
    pub fn check_request(
        &self,
        method: Method,
        path: &str,
        query: &[(String, String)],
        body: Option<&Value>,
    ) -> Result<(), Violations> {
        let mut found = Vec::new();
        let Some((template, path_values)) = self.template(path) else {
            return Err(Violations(vec![format!("{path}: nenhuma operação da API Pix")]));
        };
        let template_pointer = format!("/paths/{}", escape(&template));
        let operation_pointer = format!("{template_pointer}/{}", method.as_str());
        if self.document.pointer(&operation_pointer).is_none() {
            return Err(Violations(vec![format!(
                "{} {template}: operação inexistente",
                method.as_str()
            )]));
        }
        let parameters = self.parameters(&template_pointer, method);
        for (name, place, schema) in &parameters {
            let value = match place.as_str() {
                "path" => path_values.iter().find(|(n, _)| n == name).map(|(_, v)| v),
                "query" => query.iter().find(|(n, _)| n == name).map(|(_, v)| v),
                _ => continue,
            };
            if let Some(value) = value {
                // Query parameters that are not strings (booleans, integers) are sent as text.
                let typed = match self.document.pointer(&format!("{schema}/type")).and_then(Value::as_str) {
                    Some("integer") | Some("boolean") => {
                        serde_json::from_str(value).unwrap_or(Value::from(value.as_str()))
                    }
                    _ => Value::from(value.as_str()),
                };
                self.judge(schema, &typed, &format!("parâmetro {name}"), &mut found);
            }
        }
        for (name, _) in query {
            let declared = parameters.iter().any(|(n, place, _)| n == name && place == "query");
            if !declared {
                found.push(format!("parâmetro {name}: não existe na operação"));
            }
        }
        let request_body = self.follow(&format!("{operation_pointer}/requestBody"));
        match (request_body, body) {
            (Some((pointer, _)), Some(body)) => self.judge(
                &format!("{pointer}/content/application~1json/schema"),
                body,
                "corpo",
                &mut found,
            ),
            (None, Some(_)) => found.push("corpo: a operação não tem corpo".to_owned()),
            (Some((_, declared)), None) if declared.get("required") == Some(&Value::Bool(true)) => {
                found.push("corpo: obrigatório".to_owned())
            }
            _ => {}
        }
        if found.is_empty() {
            Ok(())
        } else {
            Err(Violations(found))
        }
    }

    /// Judges an answer by its operation and status.
    pub fn check_response(
        &self,
        method: Method,
        path: &str,
        status: u16,
        body: Option<&Value>,
    ) -> Result<(), Violations> {
        let Some((template, _)) = self.template(path) else {
            return Err(Violations(vec![format!("{path}: nenhuma operação da API Pix")]));
        };
        let responses = format!("/paths/{}/{}/responses/{status}", escape(&template), method.as_str());
        let Some((pointer, response)) = self.follow(&responses) else {
            return Err(Violations(vec![format!(
                "{} {template}: resposta {status} não prevista",
                method.as_str()
            )]));
        };
        let mut found = Vec::new();
        let content = response.get("content").and_then(Value::as_object);
        match (content, body) {
            (Some(content), Some(body)) => match content.keys().next() {
                Some(kind) => self.judge(
                    &format!("{pointer}/content/{}/schema", escape(kind)),
                    body,
                    "resposta",
                    &mut found,
                ),
                None => found.push("resposta: sem conteúdo previsto".to_owned()),
            },
            (Some(_), None) => found.push("resposta: corpo ausente".to_owned()),
            (None, Some(body)) if !body.is_null() => found.push("resposta: corpo não previsto".to_owned()),
            _ => {}
        }
        if found.is_empty() {
            Ok(())
        } else {
            Err(Violations(found))
        }
    }

    /// Judges a notification a PSP posts to the payee's webhook.
    pub fn check_notification(&self, kind: Notification, body: &Value) -> Result<(), Violations> {
        let pointer = match kind {
            Notification::Rec => "/components/requestBodies/WebhookRecBody/content/application~1json/schema",
            Notification::CobR => "/components/requestBodies/WebhookCobRBody/content/application~1json/schema",
        };
        let mut found = Vec::new();
        self.judge(pointer, body, "notificação", &mut found);
        if found.is_empty() {
            Ok(())
        } else {
            Err(Violations(found))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The operations this service uses, as (method, template).
    const USED: &[(Method, &str)] = &[
        (Method::Post, "/rec"),
        (Method::Get, "/rec"),
        (Method::Get, "/rec/{idRec}"),
        (Method::Post, "/solicrec"),
        (Method::Put, "/cobr/{txid}"),
        (Method::Get, "/cobr/{txid}"),
        (Method::Post, "/cobr/{txid}/retentativa/{data}"),
        (Method::Put, "/pix/{e2eid}/devolucao/{id}"),
        (Method::Get, "/pix/{e2eid}/devolucao/{id}"),
    ];

    /// Every example the specification gives of the operations this service uses and of the
    /// notifications, as (where, schema pointer, value).
    fn examples(schema: &PixSchema) -> Vec<(String, String, Value)> {
        let mut found = Vec::new();
        let mut collect = |schema: &PixSchema, container: &str, what: String| {
            let Some(media) = schema
                .document
                .pointer(&format!("{container}/content"))
                .and_then(Value::as_object)
            else {
                return;
            };
            for (kind, content) in media {
                let schema_pointer = format!("{container}/content/{}/schema", escape(kind));
                let mut values = Vec::new();
                if let Some(examples) = content.get("examples").and_then(Value::as_object) {
                    for (name, example) in examples {
                        let resolved = match example.get("$ref").and_then(Value::as_str) {
                            Some(target) => schema.document.pointer(target.trim_start_matches('#')),
                            None => Some(example),
                        };
                        if let Some(value) = resolved.and_then(|e| e.get("value")) {
                            values.push((name.clone(), value.clone()));
                        }
                    }
                }
                for (name, value) in values {
                    found.push((format!("{what} {kind} {name}"), schema_pointer.clone(), value));
                }
            }
        };
        for (method, template) in USED {
            let operation = format!("/paths/{}/{}", escape(template), method.as_str());
            if let Some((pointer, _)) = schema.follow(&format!("{operation}/requestBody")) {
                collect(schema, &pointer, format!("{} {template} corpo", method.as_str()));
            }
            let statuses: Vec<String> = schema
                .document
                .pointer(&format!("{operation}/responses"))
                .and_then(Value::as_object)
                .map(|r| r.keys().cloned().collect())
                .unwrap_or_default();
            for status in statuses {
                if let Some((pointer, _)) = schema.follow(&format!("{operation}/responses/{status}")) {
                    collect(schema, &pointer, format!("{} {template} {status}", method.as_str()));
                }
            }
        }
        for body in ["WebhookRecBody", "WebhookCobRBody"] {
            let pointer = format!("/components/requestBodies/{body}");
            // These give one `example` beside the schema.
            if let Some(example) = schema
                .document
                .pointer(&format!("{pointer}/content/application~1json/example"))
            {
                let resolved = match example.get("$ref").and_then(Value::as_str) {
                    Some(target) => schema
                        .document
                        .pointer(target.trim_start_matches('#'))
                        .cloned()
                        .unwrap_or(Value::Null),
                    None => example.clone(),
                };
                found.push((
                    body.to_owned(),
                    format!("{pointer}/content/application~1json/schema"),
                    resolved,
                ));
            }
        }
        found
    }

    fn failures(schema: &PixSchema) -> Vec<String> {
        let mut failed = Vec::new();
        for (what, pointer, value) in examples(schema) {
            let mut found = Vec::new();
            schema.judge(&pointer, &value, &what, &mut found);
            failed.extend(found);
        }
        failed
    }

    /// The release's examples are not all valid under their own schemas (a date `2024-20-08`, a
    /// CEP with its hyphen, locations without a scheme): they show what each erratum corrects, and
    /// the corrections make no example worse.
    #[test]
    fn the_corrections_make_no_example_of_the_release_worse() {
        let corrected = failures(&PixSchema::load().unwrap());
        let released = failures(&PixSchema::from_document(PixSchema::released().unwrap()));
        assert!(examples(&PixSchema::load().unwrap()).len() >= 15);
        for failure in &corrected {
            assert!(released.contains(failure), "a correction made this fail: {failure}");
        }
        assert!(corrected.iter().all(|f| !f.starts_with("esquema")), "{corrected:#?}");
    }

    #[test]
    fn each_erratum_is_needed_by_an_example_of_the_release() {
        let corrected = PixSchema::load().unwrap();
        for (index, erratum) in ERRATA.iter().enumerate() {
            // Every correction but this one.
            let mut document = PixSchema::released().unwrap();
            for (other, e) in ERRATA.iter().enumerate() {
                if other != index {
                    (e.apply)(document.pointer_mut(e.pointer).unwrap());
                }
            }
            let without = PixSchema::from_document(document);
            if let Some(property) = erratum.pointer.strip_suffix("/pattern") {
                // A pattern: a value of its kind fails as released and passes as corrected.
                let witness = match corrected.document.pointer(erratum.pointer).and_then(Value::as_str) {
                    Some("^\\d{11}$") => "12345678909",
                    Some("^\\d{7}$") => "2673833",
                    other => panic!("no witness for the pattern {other:?}"),
                };
                let (mut before, mut after) = (Vec::new(), Vec::new());
                without.judge(property, &Value::from(witness), "", &mut before);
                corrected.judge(property, &Value::from(witness), "", &mut after);
                assert!(
                    !before.is_empty() && after.is_empty(),
                    "{}: {before:?} {after:?}",
                    erratum.pointer
                );
                continue;
            }
            // What no example shows, a value of the service's own does.
            let witnesses: &[(&str, &str, Value)] = &[
                (
                    "/components/schemas/PixAutomatico/properties/valor",
                    "/components/schemas/PixAutomatico",
                    serde_json::json!({
                        "endToEndId": "E9999900420261129011700000000001",
                        "txid": "vendas00000000000000000001cobr",
                        "valor": "49.90",
                        "horario": "2026-11-29T01:17:00.000Z"
                    }),
                ),
                (
                    "/components/schemas/RecEncerramento/properties/encerramento/oneOf",
                    "/components/schemas/RecEncerramento",
                    serde_json::json!({"encerramento": {"rejeicao": {"codigo": "AP13", "descricao": "Rejeitada"}}}),
                ),
            ];
            if let Some((_, schema, value)) = witnesses.iter().find(|(p, _, _)| *p == erratum.pointer) {
                let (mut before, mut after) = (Vec::new(), Vec::new());
                without.judge(schema, value, "", &mut before);
                corrected.judge(schema, value, "", &mut after);
                assert!(
                    !before.is_empty() && after.is_empty(),
                    "{}: {before:?} {after:?}",
                    erratum.pointer
                );
                continue;
            }
            assert!(
                failures(&without).len() > failures(&corrected).len(),
                "{} ({}) changes nothing an example shows",
                erratum.pointer,
                erratum.why
            );
        }
    }

    #[test]
    fn a_request_off_the_specification_is_named_field_by_field() {
        let schema = PixSchema::load().unwrap();
        let body = serde_json::json!({
            "idRec": "RR1234567820240115abcdefghijk",
            "calendario": {"dataDeVencimento": "15/01/2024"},
            "valor": {"original": "35"},
            "ajusteDiaUtil": true
        });
        let violations = schema
            .check_request(Method::Put, "/cobr/abcdefghijklmnopqrstuvwxyz", &[], Some(&body))
            .unwrap_err();
        let text = violations.to_string();
        assert!(
            text.contains("dataDeVencimento") || text.contains("15/01/2024"),
            "{text}"
        );
        assert!(text.contains("35"), "{text}");
        // A path parameter off its pattern, an operation that does not exist, a status not given.
        assert!(schema.check_request(Method::Get, "/cobr/a_b", &[], None).is_err());
        assert!(schema.check_request(Method::Patch, "/solicrec", &[], None).is_err());
        assert!(
            schema
                .check_response(Method::Get, "/rec/RR1234567820240115abcdefghijk", 418, None)
                .is_err()
        );
        // A query parameter the operation does not have.
        assert!(
            schema
                .check_request(Method::Get, "/rec", &[("contrato".into(), "1".into())], None)
                .is_err()
        );
    }
}
