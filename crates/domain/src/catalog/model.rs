//! The catalog: products with the banks they take, and billing groups; and the list queries of
//! routes 10 and the product listing (`fields`, `conditions[...]`, `limit`, `offset`).

use crate::stamp::ChangeStamp;
use crate::validation::{Violations, codes};
use chrono::{DateTime, Utc};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bank {
    pub code: String,
    pub name: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Product {
    pub id: i64,
    pub code: i32,
    pub name: String,
    pub integration_code: i32,
    pub active: bool,
    /// The value of a standard proposal of this product, in cents.
    pub value_cents: i64,
    pub banks: Vec<Bank>,
    pub price_id: Option<String>,
    /// Whether route 5 must name at least one beneficiary (decision 279).
    pub beneficiaries_required: bool,
    /// The contract text of its proposals (see [`crate::contract::terms`]), in the answers of the
    /// catalog's writes; reads leave it out (route 5 reads products on every request, documents
    /// read the terms on their own).
    pub terms: Option<String>,
    pub stamp: ChangeStamp,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BillingGroup {
    pub id: i64,
    pub billing_code: i32,
    pub description: String,
    /// The product's integration code (kept equal to it by the store).
    pub integration_code: i32,
    pub product_code: i32,
    pub stamp: ChangeStamp,
}

/// A product as the back office creates or replaces it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProductInput {
    pub code: i32,
    pub name: String,
    pub integration_code: i32,
    pub active: bool,
    pub value_cents: i64,
    pub banks: Vec<Bank>,
    /// The recurring price on the payment platform (e-commerce subscriptions).
    pub price_id: Option<String>,
    pub terms: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BillingGroupInput {
    pub billing_code: i32,
    pub description: String,
    pub product_code: i32,
}

/// How a list field's condition value is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldKind {
    Integer,
    Text,
    Timestamp,
    Boolean,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum FilterValue {
    Integer(i64),
    Text(String),
    Timestamp(DateTime<Utc>),
    Boolean(bool),
}

/// The fields a listing may return and filter on.
pub trait ListField: Copy + Eq + std::hash::Hash + std::fmt::Debug + Send + Sync + 'static {
    const ALL: &'static [Self];
    fn name(self) -> &'static str;
    fn kind(self) -> FieldKind;
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BillingGroupField {
    Id,
    UpdatedAt,
    ChangedBy,
    CreatedAt,
    BillingCode,
    Description,
    IntegrationCode,
    ProductCode,
}

impl ListField for BillingGroupField {
    const ALL: &'static [Self] = &[
        Self::Id,
        Self::UpdatedAt,
        Self::ChangedBy,
        Self::CreatedAt,
        Self::BillingCode,
        Self::Description,
        Self::IntegrationCode,
        Self::ProductCode,
    ];

    fn name(self) -> &'static str {
        match self {
            Self::Id => "id",
            Self::UpdatedAt => "alterado_em",
            Self::ChangedBy => "alterado_por",
            Self::CreatedAt => "criado_em",
            Self::BillingCode => "codigo_faturamento",
            Self::Description => "descricao",
            Self::IntegrationCode => "codigo_integracao",
            Self::ProductCode => "codigo_produto",
        }
    }

    fn kind(self) -> FieldKind {
        match self {
            Self::Id | Self::BillingCode | Self::IntegrationCode | Self::ProductCode => FieldKind::Integer,
            Self::UpdatedAt | Self::CreatedAt => FieldKind::Timestamp,
            Self::ChangedBy | Self::Description => FieldKind::Text,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ProductField {
    Id,
    ProductCode,
    Name,
    IntegrationCode,
    Active,
    Value,
    CreatedAt,
    UpdatedAt,
    ChangedBy,
}

impl ListField for ProductField {
    const ALL: &'static [Self] = &[
        Self::Id,
        Self::ProductCode,
        Self::Name,
        Self::IntegrationCode,
        Self::Active,
        Self::Value,
        Self::CreatedAt,
        Self::UpdatedAt,
        Self::ChangedBy,
    ];

    fn name(self) -> &'static str {
        match self {
            Self::Id => "id",
            Self::ProductCode => "codigo_produto",
            Self::Name => "nome",
            Self::IntegrationCode => "codigo_integracao",
            Self::Active => "ativo",
            Self::Value => "valor",
            Self::CreatedAt => "criado_em",
            Self::UpdatedAt => "alterado_em",
            Self::ChangedBy => "alterado_por",
        }
    }

    fn kind(self) -> FieldKind {
        match self {
            Self::Id | Self::ProductCode | Self::IntegrationCode | Self::Value => FieldKind::Integer,
            Self::Name | Self::ChangedBy => FieldKind::Text,
            Self::Active => FieldKind::Boolean,
            Self::CreatedAt | Self::UpdatedAt => FieldKind::Timestamp,
        }
    }
}

pub const DEFAULT_LIMIT: i64 = 100;
pub const MAX_LIMIT: i64 = 1000;

/// A checked listing request. `fields` empty means every field. Ordered by `id`; a page starts
/// after the id `after` (the previous page's cursor) or skips `offset` rows (the older style,
/// kept for the versions that list with it).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ListQuery<F> {
    pub fields: Vec<F>,
    pub conditions: Vec<(F, FilterValue)>,
    pub limit: i64,
    pub offset: i64,
    pub after: Option<i64>,
}

/// One page of a catalog listing and the cursor of the next (`None` on the last page).
#[derive(Debug, Clone, PartialEq)]
pub struct CatalogPage<T> {
    pub items: Vec<T>,
    pub next: Option<i64>,
}

impl<T> CatalogPage<T> {
    /// The page of `query` from the rows read with one more than its limit: the extra row says
    /// there is a next page, which starts after the last id kept.
    pub fn of<F>(mut rows: Vec<T>, query: &ListQuery<F>, id: impl Fn(&T) -> i64) -> Self {
        let next = crate::paging::keep_page(&mut rows, query.limit, id);
        Self { items: rows, next }
    }
}

fn field_named<F: ListField>(name: &str) -> Option<F> {
    F::ALL.iter().copied().find(|f| f.name() == name)
}

fn allowed_names<F: ListField>() -> String {
    F::ALL.iter().map(|f| f.name()).collect::<Vec<_>>().join(", ")
}

impl<F: ListField> ListQuery<F> {
    /// Reads the raw query parameters (name, value) in order. Unknown parameters and unknown
    /// field names are refused, each naming itself.
    pub fn parse(params: &[(String, String)]) -> Result<Self, Violations> {
        crate::input::bounded_query(params)?;
        let mut v = Violations::new();
        let mut query = ListQuery {
            fields: Vec::new(),
            conditions: Vec::new(),
            limit: DEFAULT_LIMIT,
            offset: 0,
            after: None,
        };
        for (name, value) in params {
            if name == "fields" {
                for requested in value.split(',').map(str::trim).filter(|s| !s.is_empty()) {
                    match field_named::<F>(requested) {
                        Some(f) if !query.fields.contains(&f) => query.fields.push(f),
                        Some(_) => {}
                        // The first unknown name only: one `fields` can list thousands.
                        None if !v.names("fields") => v.add(
                            "fields",
                            codes::UNKNOWN_FIELD,
                            format!("campo '{requested}' não permitido; use: {}", allowed_names::<F>()),
                        ),
                        None => {}
                    }
                }
            } else if let Some(field_name) = name.strip_prefix("conditions[").and_then(|rest| rest.strip_suffix(']')) {
                let Some(field) = field_named::<F>(field_name) else {
                    v.add(
                        name.clone(),
                        codes::UNKNOWN_FIELD,
                        format!("campo '{field_name}' não permitido; use: {}", allowed_names::<F>()),
                    );
                    continue;
                };
                // PostgreSQL's text cannot hold U+0000: refused here, naming the condition.
                if value.contains('\0') {
                    v.add(
                        name.clone(),
                        codes::INVALID_VALUE,
                        format!("{name} não pode conter o caractere nulo"),
                    );
                    continue;
                }
                match parse_value(field.kind(), value) {
                    Some(parsed) => query.conditions.push((field, parsed)),
                    None => v.add(
                        name.clone(),
                        codes::WRONG_TYPE,
                        format!("valor '{value}' inválido para {field_name}"),
                    ),
                }
            } else if name == "limit" {
                match value.parse::<i64>() {
                    Ok(n) if (1..=MAX_LIMIT).contains(&n) => query.limit = n,
                    _ => v.add(
                        "limit",
                        codes::INVALID_VALUE,
                        format!("limit deve ser um inteiro de 1 a {MAX_LIMIT}"),
                    ),
                }
            } else if name == "offset" {
                match value.parse::<i64>() {
                    Ok(n) if n >= 0 => query.offset = n,
                    _ => v.add(
                        "offset",
                        codes::INVALID_VALUE,
                        "offset deve ser um inteiro não negativo",
                    ),
                }
            } else if name == "cursor" {
                match value.parse::<i64>() {
                    Ok(n) if n > 0 => query.after = Some(n),
                    _ => v.add(
                        "cursor",
                        codes::INVALID_VALUE,
                        "cursor inválido; use o nextCursor da página anterior",
                    ),
                }
            } else {
                v.add(
                    name.clone(),
                    codes::UNKNOWN_FIELD,
                    "parâmetro desconhecido; use fields, conditions[campo], limit, cursor ou offset",
                );
            }
        }
        if query.after.is_some() && query.offset != 0 {
            v.add(
                "cursor",
                codes::INVALID_VALUE,
                "cursor e offset não se combinam: a página seguinte começa no cursor",
            );
        }
        v.into_result().map(|()| query)
    }

    /// The fields to return: those asked for, or all.
    pub fn selected(&self) -> Vec<F> {
        if self.fields.is_empty() {
            F::ALL.to_vec()
        } else {
            self.fields.clone()
        }
    }
}

fn parse_value(kind: FieldKind, raw: &str) -> Option<FilterValue> {
    match kind {
        FieldKind::Integer => raw.trim().parse().ok().map(FilterValue::Integer),
        FieldKind::Text => Some(FilterValue::Text(raw.to_owned())),
        FieldKind::Boolean => match raw.trim() {
            "true" => Some(FilterValue::Boolean(true)),
            "false" => Some(FilterValue::Boolean(false)),
            _ => None,
        },
        FieldKind::Timestamp => DateTime::parse_from_rfc3339(raw.trim())
            .ok()
            .map(|t| FilterValue::Timestamp(t.with_timezone(&Utc))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect()
    }

    #[test]
    fn reads_fields_conditions_and_paging() {
        let q = ListQuery::<BillingGroupField>::parse(&params(&[
            ("fields", "codigo_faturamento, descricao"),
            ("conditions[codigo_produto]", "101"),
            ("conditions[descricao]", "Mensal"),
            ("limit", "10"),
            ("offset", "20"),
        ]))
        .unwrap();
        assert_eq!(
            q.fields,
            vec![BillingGroupField::BillingCode, BillingGroupField::Description]
        );
        assert_eq!(
            q.conditions[0],
            (BillingGroupField::ProductCode, FilterValue::Integer(101))
        );
        assert_eq!((q.limit, q.offset), (10, 20));
    }

    #[test]
    fn a_cursor_starts_the_page_after_its_id_and_is_refused_when_malformed_or_with_an_offset() {
        let q = ListQuery::<BillingGroupField>::parse(&params(&[("cursor", "42"), ("limit", "2")])).unwrap();
        assert_eq!((q.after, q.limit, q.offset), (Some(42), 2, 0));
        for (given, with_offset) in [("0", false), ("-3", false), ("abc", false), ("7", true)] {
            let mut sent = vec![("cursor", given)];
            if with_offset {
                sent.push(("offset", "10"));
            }
            let refused = ListQuery::<BillingGroupField>::parse(&params(&sent)).unwrap_err();
            let named: Vec<_> = refused.errors().iter().map(|e| e.field.as_str()).collect();
            assert_eq!(named, vec!["cursor"], "{given:?} with offset: {with_offset}");
        }
    }

    #[test]
    fn a_page_read_with_one_row_more_has_a_next_cursor_and_the_last_page_none() {
        let query = ListQuery::<BillingGroupField>::parse(&params(&[("limit", "2")])).unwrap();
        let full = CatalogPage::of(vec![10_i64, 11, 12], &query, |id| *id);
        assert_eq!((full.items, full.next), (vec![10, 11], Some(11)));
        let last = CatalogPage::of(vec![13_i64, 14], &query, |id| *id);
        assert_eq!((last.items, last.next), (vec![13, 14], None));
        let empty = CatalogPage::of(Vec::<i64>::new(), &query, |id| *id);
        assert_eq!(empty.next, None);
    }

    #[test]
    fn defaults_to_every_field_and_a_hundred_rows() {
        let q = ListQuery::<BillingGroupField>::parse(&[]).unwrap();
        assert_eq!(q.selected().len(), 8);
        assert_eq!((q.limit, q.offset), (DEFAULT_LIMIT, 0));
    }

    #[test]
    fn refuses_unknown_names_bad_values_and_limits_each_by_name() {
        let err = ListQuery::<BillingGroupField>::parse(&params(&[
            ("fields", "id,senha"),
            ("conditions[1=1; DROP TABLE x]", "1"),
            ("conditions[codigo_produto]", "abc"),
            ("limit", "1001"),
            ("offset", "-1"),
            ("order", "id"),
        ]))
        .unwrap_err();
        let fields: Vec<_> = err.errors().iter().map(|e| e.field.as_str()).collect();
        assert_eq!(
            fields,
            vec![
                "fields",
                "conditions[1=1; DROP TABLE x]",
                "conditions[codigo_produto]",
                "limit",
                "offset",
                "order"
            ]
        );
    }

    #[test]
    fn product_fields_include_the_active_flag_as_a_boolean() {
        let refused = ListQuery::<ProductField>::parse(&params(&[("conditions[nome]", "a\0b")])).unwrap_err();
        assert_eq!(refused.errors()[0].field, "conditions[nome]");
        assert_eq!(refused.errors()[0].code, codes::INVALID_VALUE);
        let q = ListQuery::<ProductField>::parse(&params(&[("conditions[ativo]", "true")])).unwrap();
        assert_eq!(q.conditions, vec![(ProductField::Active, FilterValue::Boolean(true))]);
        assert!(ListQuery::<ProductField>::parse(&params(&[("conditions[ativo]", "sim")])).is_err());
    }
}
