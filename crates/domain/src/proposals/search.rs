//! The back office's proposal list (`GET /proposal/list`): which query parameters it takes, how
//! each is checked, and the keyset cursor that pages it newest first.

use crate::contract::formats::brasilia;
use crate::proposals::model::ProposalRecord;
use crate::validation::{Violations, codes};
use crate::values::{Cnpj, Cpf, ProposalStatus, ShippingType};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use chrono::{DateTime, Days, NaiveDate, TimeZone, Utc};
use std::collections::HashSet;

/// A page holds this many proposals unless `limit` says otherwise.
pub const DEFAULT_PAGE_SIZE: i64 = 50;
/// The largest `limit` taken.
pub const MAX_PAGE_SIZE: i64 = 200;
/// Each word of a name searched must have at least this many letters (shorter ones match too
/// much to be served by the trigram index: one letter is a scan of every name).
pub const MIN_NAME_LETTERS: usize = 3;
/// A name searched has at most this many words (each is one more pattern on every candidate).
pub const MAX_NAME_WORDS: usize = 5;
/// `q` longer than this is refused.
pub const MAX_QUERY_CHARS: usize = 120;

/// The equality conditions the list takes, each named as the proposal record names its field.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProposalConditions {
    pub status: Option<ProposalStatus>,
    pub product_id: Option<i64>,
    pub billing_code: Option<i32>,
    /// The partner's CPF or CNPJ, digits only (as stored).
    pub partner_document: Option<String>,
    pub shipping: Option<ShippingType>,
    pub customer_id: Option<i64>,
}

/// What `q` searches: a CPF (exactly), or words each found in the customer's name, whatever
/// their case and accents.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SearchText {
    Cpf(Cpf),
    /// The words as typed (trimmed); the store compares them case- and accent-insensitively.
    NameWords(Vec<String>),
}

/// Where the previous page stopped: the last proposal it held, by creation time and id (the
/// list's order, newest first).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ListCursor {
    pub created_at: DateTime<Utc>,
    pub id: i64,
}

impl ListCursor {
    /// An opaque token: the position, base64url-encoded.
    pub fn encode(&self) -> String {
        URL_SAFE_NO_PAD.encode(format!("{}:{}", self.created_at.timestamp_micros(), self.id))
    }

    /// `None` for anything [`Self::encode`] did not write.
    pub fn decode(token: &str) -> Option<Self> {
        let bytes = URL_SAFE_NO_PAD.decode(token.trim()).ok()?;
        let text = String::from_utf8(bytes).ok()?;
        let (micros, id) = text.split_once(':')?;
        let created_at = DateTime::from_timestamp_micros(micros.parse().ok()?)?;
        let id = id.parse().ok().filter(|id: &i64| *id > 0)?;
        Some(Self { created_at, id })
    }
}

/// A checked listing request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProposalSearch {
    pub conditions: ProposalConditions,
    pub text: Option<SearchText>,
    /// Created at or after this instant (the start of `createdFrom`, Brasília time).
    pub created_from: Option<DateTime<Utc>>,
    /// Created before this instant (the end of `createdTo`, Brasília time).
    pub created_before: Option<DateTime<Utc>>,
    /// `overdue=true`: only the proposals past their acceptance deadline undecided on a product
    /// without tacit acceptance; `false`: none of them (issue 45).
    pub overdue: Option<bool>,
    pub limit: i64,
    pub after: Option<ListCursor>,
}

impl Default for ProposalSearch {
    fn default() -> Self {
        Self {
            conditions: ProposalConditions::default(),
            text: None,
            created_from: None,
            created_before: None,
            overdue: None,
            limit: DEFAULT_PAGE_SIZE,
            after: None,
        }
    }
}

/// A proposal as the list finds it: its record (route 5's) and who the customer is (from the
/// proposal's own copy), for the people reading the list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListedProposal {
    pub record: ProposalRecord,
    pub customer_name: Option<String>,
    pub customer_cpf: Option<String>,
}

/// One page of the list and the cursor of the next (none on the last page).
#[derive(Debug, Clone, PartialEq)]
pub struct ProposalPage {
    pub records: Vec<ListedProposal>,
    pub next: Option<ListCursor>,
}

/// The names `conditions[...]` takes.
pub const CONDITION_FIELDS: [&str; 6] = [
    "status",
    "id_produto",
    "codigo_faturamento",
    "cpf_cnpj_parceiro",
    "tipo_envio",
    "id_cliente",
];

const PARAMETERS: &str = "conditions[campo], q, createdFrom, createdTo, overdue, limit, cursor";

/// The first instant of a Brasília calendar day, in UTC.
fn start_of_day(day: NaiveDate) -> Option<DateTime<Utc>> {
    brasilia()
        .from_local_datetime(&day.and_hms_opt(0, 0, 0)?)
        .single()
        .map(|t| t.with_timezone(&Utc))
}

fn read_day(v: &mut Violations, name: &str, raw: &str) -> Option<NaiveDate> {
    let parsed = NaiveDate::parse_from_str(raw.trim(), "%Y-%m-%d").ok();
    if parsed.is_none() {
        v.add(
            name,
            codes::INVALID_VALUE,
            format!("{name} deve ser uma data no formato AAAA-MM-DD"),
        );
    }
    parsed
}

fn positive<T: std::str::FromStr + PartialOrd + Default>(v: &mut Violations, name: &str, raw: &str) -> Option<T> {
    match raw.trim().parse::<T>() {
        Ok(n) if n > T::default() => Some(n),
        _ => {
            v.add(name, codes::WRONG_TYPE, format!("{name} deve ser um inteiro positivo"));
            None
        }
    }
}

fn read_text(v: &mut Violations, raw: &str) -> Option<SearchText> {
    let text = raw.trim();
    if text.chars().count() > MAX_QUERY_CHARS {
        v.add(
            "q",
            codes::INVALID_VALUE,
            format!("q deve ter no máximo {MAX_QUERY_CHARS} caracteres"),
        );
        return None;
    }
    // Only digits and a CPF's punctuation: a CPF, which must then be valid.
    if text.chars().all(|c| c.is_ascii_digit() || matches!(c, '.' | '-' | ' ')) {
        return v.check("q", Cpf::parse(text)).map(SearchText::Cpf);
    }
    if text.contains('\0') {
        v.add("q", codes::INVALID_VALUE, "q não pode conter o caractere nulo");
        return None;
    }
    let words: Vec<&str> = text.split_whitespace().collect();
    if words.len() > MAX_NAME_WORDS {
        v.add(
            "q",
            codes::INVALID_VALUE,
            format!("q deve ter no máximo {MAX_NAME_WORDS} palavras"),
        );
        return None;
    }
    // Letters whatever their script's width or accents: the store's normalisation (lower case,
    // accents and full-width forms folded) keeps a letter a letter, so this count holds after it.
    if words
        .iter()
        .any(|word| word.chars().filter(|c| c.is_alphabetic()).count() < MIN_NAME_LETTERS)
    {
        v.add(
            "q",
            codes::INVALID_VALUE,
            format!("q deve ser um CPF ou palavras do nome com ao menos {MIN_NAME_LETTERS} letras cada"),
        );
        return None;
    }
    Some(SearchText::NameWords(words.into_iter().map(str::to_owned).collect()))
}

impl ProposalSearch {
    /// Reads the raw query parameters in order. Unknown parameters, unknown conditions, repeated
    /// parameters and bad values are refused, each naming itself; a parameter sent empty (as an
    /// HTML form sends an unused filter) counts as not sent.
    pub fn parse(params: &[(String, String)]) -> Result<Self, Violations> {
        crate::input::bounded_query(params)?;
        let mut v = Violations::new();
        let mut search = ProposalSearch::default();
        let mut seen: HashSet<&str> = HashSet::new();
        let mut repeated: HashSet<&str> = HashSet::new();
        let (mut from_day, mut to_day) = (None, None);
        for (name, raw) in params {
            if raw.trim().is_empty() {
                continue;
            }
            if !seen.insert(name.as_str()) {
                // Named once however often it repeats.
                if repeated.insert(name.as_str()) {
                    v.add(
                        name.clone(),
                        codes::DUPLICATE,
                        format!("{name} informado mais de uma vez"),
                    );
                }
                continue;
            }
            let c = &mut search.conditions;
            match name.as_str() {
                "conditions[status]" => c.status = v.check(name, ProposalStatus::parse(raw.trim())),
                "conditions[id_produto]" => c.product_id = positive(&mut v, name, raw),
                "conditions[codigo_faturamento]" => c.billing_code = positive(&mut v, name, raw),
                "conditions[tipo_envio]" => c.shipping = v.check(name, ShippingType::parse(raw.trim())),
                "conditions[id_cliente]" => c.customer_id = positive(&mut v, name, raw),
                "conditions[cpf_cnpj_parceiro]" => {
                    let digits: String = raw.chars().filter(char::is_ascii_digit).collect();
                    c.partner_document = if digits.len() == 11 {
                        v.check(name, Cpf::parse(raw)).map(|cpf| cpf.as_str().to_owned())
                    } else {
                        v.check(name, Cnpj::parse(raw)).map(|cnpj| cnpj.as_str().to_owned())
                    };
                }
                "q" => search.text = read_text(&mut v, raw),
                "createdFrom" => from_day = read_day(&mut v, name, raw),
                "createdTo" => to_day = read_day(&mut v, name, raw),
                "overdue" => match raw.trim() {
                    "true" => search.overdue = Some(true),
                    "false" => search.overdue = Some(false),
                    _ => v.add("overdue", codes::INVALID_VALUE, "overdue deve ser true ou false"),
                },
                "limit" => match raw.trim().parse::<i64>() {
                    Ok(n) if (1..=MAX_PAGE_SIZE).contains(&n) => search.limit = n,
                    _ => v.add(
                        "limit",
                        codes::INVALID_VALUE,
                        format!("limit deve ser um inteiro de 1 a {MAX_PAGE_SIZE}"),
                    ),
                },
                "cursor" => {
                    search.after = ListCursor::decode(raw);
                    if search.after.is_none() {
                        v.add(
                            "cursor",
                            codes::INVALID_VALUE,
                            "cursor inválido: use o data.nextCursor de uma página anterior",
                        );
                    }
                }
                other => match other.strip_prefix("conditions[").and_then(|r| r.strip_suffix(']')) {
                    Some(field) => v.add(
                        name.clone(),
                        codes::UNKNOWN_FIELD,
                        format!("condição '{field}' não permitida; use: {}", CONDITION_FIELDS.join(", ")),
                    ),
                    None => v.add(
                        name.clone(),
                        codes::UNKNOWN_FIELD,
                        format!("parâmetro desconhecido; use {PARAMETERS}"),
                    ),
                },
            }
        }
        if let (Some(from), Some(to)) = (from_day, to_day)
            && from > to
        {
            v.add(
                "createdTo",
                codes::INVALID_VALUE,
                "createdTo deve ser igual ou posterior a createdFrom",
            );
        }
        search.created_from = from_day.and_then(start_of_day);
        search.created_before = to_day
            .and_then(|d| d.checked_add_days(Days::new(1)))
            .and_then(start_of_day);
        v.into_result().map(|()| search)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overdue_is_true_or_false_and_named_when_it_is_neither() {
        let read = |raw: &str| ProposalSearch::parse(&params(&[("overdue", raw)])).map(|s| s.overdue);
        assert_eq!(read("true").unwrap(), Some(true));
        assert_eq!(read("false").unwrap(), Some(false));
        assert_eq!(refused(&[("overdue", "sim")]), ["overdue"]);
    }

    fn params(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect()
    }

    fn refused(list: &[(&str, &str)]) -> Vec<String> {
        ProposalSearch::parse(&params(list))
            .unwrap_err()
            .errors()
            .iter()
            .map(|e| e.field.clone())
            .collect()
    }

    #[test]
    fn reads_every_condition() {
        let s = ProposalSearch::parse(&params(&[
            ("conditions[status]", "EM ANÁLISE"),
            ("conditions[id_produto]", "7"),
            ("conditions[codigo_faturamento]", "5002"),
            ("conditions[cpf_cnpj_parceiro]", "11.222.333/0001-81"),
            ("conditions[tipo_envio]", "whatsapp"),
            ("conditions[id_cliente]", "42"),
        ]))
        .unwrap();
        assert_eq!(
            s.conditions,
            ProposalConditions {
                status: Some(ProposalStatus::InAnalysis),
                product_id: Some(7),
                billing_code: Some(5002),
                partner_document: Some("11222333000181".into()),
                shipping: Some(ShippingType::Whatsapp),
                customer_id: Some(42),
            }
        );
        assert_eq!(s.limit, DEFAULT_PAGE_SIZE);
    }

    #[test]
    fn a_partner_document_may_be_a_cpf() {
        let s = ProposalSearch::parse(&params(&[("conditions[cpf_cnpj_parceiro]", "529.982.247-25")])).unwrap();
        assert_eq!(s.conditions.partner_document.as_deref(), Some("52998224725"));
    }

    #[test]
    fn q_is_a_cpf_or_name_words() {
        let s = ProposalSearch::parse(&params(&[("q", "529.982.247-25")])).unwrap();
        assert_eq!(s.text, Some(SearchText::Cpf(Cpf::parse("52998224725").unwrap())));
        let s = ProposalSearch::parse(&params(&[("q", "  joão   SOUZA ")])).unwrap();
        assert_eq!(s.text, Some(SearchText::NameWords(vec!["joão".into(), "SOUZA".into()])));
    }

    #[test]
    fn dates_are_brasilia_days_to_is_inclusive() {
        let s = ProposalSearch::parse(&params(&[("createdFrom", "2026-11-01"), ("createdTo", "2026-11-01")])).unwrap();
        assert_eq!(s.created_from.unwrap().to_rfc3339(), "2026-11-01T03:00:00+00:00");
        assert_eq!(s.created_before.unwrap().to_rfc3339(), "2026-11-02T03:00:00+00:00");
    }

    #[test]
    fn the_cursor_round_trips_and_refuses_anything_else() {
        let cursor = ListCursor {
            created_at: DateTime::from_timestamp_micros(1_795_000_000_123_456).unwrap(),
            id: 981,
        };
        assert_eq!(ListCursor::decode(&cursor.encode()), Some(cursor));
        let s = ProposalSearch::parse(&params(&[("cursor", &cursor.encode()), ("limit", "200")])).unwrap();
        assert_eq!((s.after, s.limit), (Some(cursor), 200));
        for bad in ["abc", "MTIzOmFiYw", "MTIzOi0x", "!!"] {
            assert_eq!(ListCursor::decode(bad), None, "{bad}");
        }
    }

    #[test]
    fn empty_parameters_count_as_not_sent() {
        let s = ProposalSearch::parse(&params(&[("q", " "), ("conditions[status]", ""), ("cursor", "")])).unwrap();
        assert_eq!(s, ProposalSearch::default());
    }

    #[test]
    fn every_bad_parameter_is_named() {
        assert_eq!(
            refused(&[
                ("conditions[nome]", "x"),
                ("conditions[status]", "PERDIDO"),
                ("conditions[id_produto]", "abc"),
                ("conditions[codigo_faturamento]", "-1"),
                ("conditions[cpf_cnpj_parceiro]", "123"),
                ("conditions[tipo_envio]", "email"),
                ("conditions[id_cliente]", "0"),
                ("ordem", "asc"),
                ("limit", "201"),
                ("cursor", "nope"),
                ("createdFrom", "01/11/2026"),
            ]),
            vec![
                "conditions[nome]",
                "conditions[status]",
                "conditions[id_produto]",
                "conditions[codigo_faturamento]",
                "conditions[cpf_cnpj_parceiro]",
                "conditions[tipo_envio]",
                "conditions[id_cliente]",
                "ordem",
                "limit",
                "cursor",
                "createdFrom",
            ]
        );
        assert_eq!(refused(&[("limit", "0")]), vec!["limit"]);
        assert_eq!(refused(&[("q", "123.456.789-00")]), vec!["q"]);
        assert_eq!(refused(&[("q", "ab")]), vec!["q"]);
        assert_eq!(refused(&[("q", &"a".repeat(MAX_QUERY_CHARS + 1))]), vec!["q"]);
        assert_eq!(
            refused(&[("createdFrom", "2026-11-02"), ("createdTo", "2026-11-01")]),
            vec!["createdTo"]
        );
        assert_eq!(refused(&[("limit", "10"), ("limit", "20")]), vec!["limit"]);
    }
}
