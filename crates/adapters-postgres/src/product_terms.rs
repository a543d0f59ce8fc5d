//! What a product's documents are printed with, read only when one is made: its terms' text and
//! rules (payment, term, collection, acceptance), its cover, line and general conditions, and the
//! selling partner's SUSEP registration (decision 280). The proposals' store reads it for the
//! contract, the certificates' store for the certificate.

use crate::pool::query_error;
use crate::schema::{partner_brokers, partners, products};
use diesel::prelude::*;
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use domain::billing::term::{Renewal, TermPolicy};
use domain::contract::certificate::{IncompleteCover, ProductCover};
use domain::contract::insurance::{CollectivePolicy, GeneralConditions, InsuranceLine};
use domain::contract::terms::{PaymentRules, ProductTerms};
use domain::store::StoreError;
use domain::values::StoredValueError;

/// A product's grace, suspension and end days and its first instalment's rule, as stored.
pub(crate) type RulesColumns = (i32, i32, i32, String);

/// The payment rules a product's terms print, from its stored columns.
pub(crate) fn payment_rules((grace, suspension, end, first): RulesColumns) -> Result<PaymentRules, StoreError> {
    let days = |value: i32| u32::try_from(value).unwrap_or_default();
    Ok(PaymentRules {
        grace_days: days(grace),
        suspension_days: days(suspension),
        end_days: days(end),
        first_instalment: domain::billing::arrears::FirstInstalment::parse(&first)
            .ok_or_else(|| StoredValueError::new("products", "cobranca_primeira_parcela", &first))?,
    })
}

/// A product's term, from its stored months and renewal (decision 270).
pub(crate) fn term_policy((months, renewal): (i32, String)) -> Result<TermPolicy, StoreError> {
    Ok(TermPolicy {
        months: u32::try_from(months)
            .map_err(|_| StoredValueError::new("products", "vigencia_meses", &months.to_string()))?,
        renewal: Renewal::parse(&renewal).ok_or_else(|| StoredValueError::new("products", "renovacao", &renewal))?,
    })
}

/// A product's terms as its documents print them (the default terms when the product is unknown).
pub(crate) async fn product_terms(
    conn: &mut AsyncPgConnection,
    product_id: i64,
    partner_document: Option<&str>,
) -> Result<ProductTerms, StoreError> {
    type AcceptanceColumns = (i32, bool, i32, Option<i32>);
    type TermsRow = (Option<String>, RulesColumns, (i32, String), String, AcceptanceColumns);
    let found: Option<TermsRow> = products::table
        .find(product_id)
        .select((
            products::termos,
            (
                products::cobranca_carencia_dias,
                products::cobranca_suspensao_dias,
                products::cobranca_encerramento_dias,
                products::cobranca_primeira_parcela,
            ),
            (products::vigencia_meses, products::renovacao),
            products::cobranca_premio,
            (
                products::aceite_dias,
                products::aceite_tacito,
                products::aceite_suspensoes,
                products::aceite_revisao_dias,
            ),
        ))
        .first(conn)
        .await
        .optional()
        .map_err(query_error)?;
    Ok(match found {
        Some((text, rules, term, collection, (days, tacit, suspensions, review))) => ProductTerms {
            text,
            payment: payment_rules(rules)?,
            term: term_policy(term)?,
            collection: crate::ecommerce::premium_collection(&collection)?,
            acceptance: domain::acceptance::AcceptancePolicy {
                days: u32::try_from(days).unwrap_or_default(),
                tacit,
                suspensions: u32::try_from(suspensions).unwrap_or_default(),
                review_days: review.and_then(|d| u32::try_from(d).ok()),
                // Who collects documents is read when they are asked; the terms do not print it.
                ..Default::default()
            },
            ..facts_of(conn, product_id, partner_document).await?
        },
        None => ProductTerms::default(),
    })
}

/// What a product's documents print besides its terms text: its premium, line and cover (when
/// complete), and the selling partner's SUSEP registration.
async fn facts_of(
    conn: &mut AsyncPgConnection,
    product_id: i64,
    partner_document: Option<&str>,
) -> Result<ProductTerms, StoreError> {
    let facts = product_facts(conn, product_id).await?;
    let broker_registration = broker_registration(conn, partner_document).await?;
    Ok(ProductTerms {
        premium: facts.premium,
        line: facts.line,
        cover: facts.cover.ok().map(|cover| ProductCover {
            broker_registration: broker_registration.clone(),
            ..cover
        }),
        broker_registration,
        ..ProductTerms::default()
    })
}

type CoverRow = (
    (i32, i64),
    (
        Option<String>,
        Option<String>,
        Option<String>,
        Option<String>,
        Option<i64>,
        Option<String>,
        Option<String>,
    ),
    RulesColumns,
    (Option<String>, String),
    (bool, Option<String>, Option<String>, Option<String>),
    ConditionsColumns,
);

/// A product's general conditions' columns: version, address, digest, exclusions, waiting periods.
pub(crate) type ConditionsColumns = (
    Option<String>,
    Option<String>,
    Option<String>,
    Option<String>,
    Option<String>,
);

pub(crate) const CONDITIONS_COLUMNS: (
    products::condicoes_versao,
    products::condicoes_url,
    products::condicoes_sha256,
    products::condicoes_exclusoes,
    products::condicoes_carencias,
) = (
    products::condicoes_versao,
    products::condicoes_url,
    products::condicoes_sha256,
    products::condicoes_exclusoes,
    products::condicoes_carencias,
);

/// The general conditions registered, if all their columns are (a CHECK keeps them all or none).
pub(crate) fn conditions_of(columns: ConditionsColumns) -> Option<GeneralConditions> {
    match columns {
        (Some(version), Some(url), Some(sha256), Some(exclusions), Some(waiting_periods)) => Some(GeneralConditions {
            version,
            url,
            sha256,
            exclusions,
            waiting_periods,
        }),
        _ => None,
    }
}

/// What a product's documents print besides the proposal: its cover (or what of it is missing),
/// its line and its premium.
pub(crate) struct ProductFacts {
    pub cover: Result<ProductCover, IncompleteCover>,
    pub line: InsuranceLine,
    pub premium: i64,
}

/// Reads a product's cover, line, premium, general conditions and collective policy in one query.
pub(crate) async fn product_facts(conn: &mut AsyncPgConnection, product_id: i64) -> Result<ProductFacts, StoreError> {
    let row: CoverRow = products::table
        .find(product_id)
        .select((
            (products::codigo_produto, products::valor),
            (
                products::seguradora,
                products::seguradora_cnpj,
                products::processo_susep,
                products::cobertura,
                products::capital_segurado,
                products::sac,
                products::ouvidoria,
            ),
            (
                products::cobranca_carencia_dias,
                products::cobranca_suspensao_dias,
                products::cobranca_encerramento_dias,
                products::cobranca_primeira_parcela,
            ),
            (products::seguradora_codigo_susep, products::ramo_iof),
            (
                products::seguro_coletivo_vida,
                products::estipulante_nome,
                products::estipulante_cnpj,
                products::apolice_mestre,
            ),
            CONDITIONS_COLUMNS,
        ))
        .first(conn)
        .await
        .map_err(query_error)?;
    let (
        (code, premium),
        (insurer, cnpj, process, coverage, capital, sac, ombudsman),
        rules,
        (insurer_susep_code, line),
        (collective, policyholder, policyholder_cnpj, master_policy),
        conditions,
    ) = row;
    let payment = payment_rules(rules)?;
    let line = InsuranceLine::parse(&line).ok_or_else(|| StoredValueError::new("products", "ramo_iof", &line))?;
    let conditions = conditions_of(conditions);
    let collective = match (collective, policyholder) {
        (true, Some(policyholder)) => Some(CollectivePolicy {
            policyholder,
            policyholder_cnpj,
            master_policy,
        }),
        _ => None,
    };
    let mut missing = Vec::new();
    for (name, given) in [
        ("--insurer", insurer.is_some()),
        ("--insurer-cnpj", cnpj.is_some()),
        ("--susep-process", process.is_some()),
        ("--coverage", coverage.is_some()),
        ("--capital", capital.is_some()),
        ("--sac", sac.is_some()),
        ("--ombudsman", ombudsman.is_some()),
    ] {
        if !given {
            missing.push(name);
        }
    }
    let cover = match (insurer, cnpj, process, coverage, capital, sac, ombudsman) {
        (
            Some(insurer),
            Some(insurer_cnpj),
            Some(susep_process),
            Some(coverage),
            Some(capital),
            Some(sac),
            Some(ombudsman),
        ) => Ok(ProductCover {
            insurer,
            insurer_cnpj,
            susep_process,
            coverage,
            capital,
            premium,
            sac,
            ombudsman,
            payment,
            insurer_susep_code,
            line,
            conditions,
            collective,
            broker_registration: None,
        }),
        _ => Err(IncompleteCover { product: code, missing }),
    };
    Ok(ProductFacts { cover, line, premium })
}

/// The SUSEP broker registration of the partner with this document, when recorded.
pub(crate) async fn broker_registration(
    conn: &mut AsyncPgConnection,
    partner_document: Option<&str>,
) -> Result<Option<String>, StoreError> {
    let Some(document) = partner_document else {
        return Ok(None);
    };
    partner_brokers::table
        .inner_join(partners::table)
        .filter(partners::cpf_cnpj.eq(document))
        .select(partner_brokers::registro_susep)
        .first(conn)
        .await
        .optional()
        .map_err(query_error)
}
