//! The demo data set: a catalog of products with banks and billing groups, and a partner with its
//! company, association and federation. The demo users are created by the caller through the
//! domain's user-creation use case, so that they obey the same rules as any other user.

use crate::pool::{PgPool, connection, query_error};
use crate::read_model;
use crate::schema::{banks, billing_groups, partner_brokers, partners, product_banks, products, users};
use diesel::prelude::*;
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use domain::acceptance::AcceptancePolicy;
use domain::ecommerce::collection::PremiumCollection;
use domain::store::StoreError;
use sha2::Digest;

/// The partner the demo `PARCEIRO` user represents.
pub const DEMO_PARTNER_CNPJ: &str = "11222333000181";

const SEEDED_BY: &str = "seed-demo";

/// Whether the database holds no user yet (the run command seeds only then).
pub async fn is_empty(pool: &PgPool) -> Result<bool, StoreError> {
    let mut conn = connection(pool).await?;
    let count: i64 = users::table.count().get_result(&mut conn).await.map_err(query_error)?;
    Ok(count == 0)
}

/// Gives the demo representative its video-attendance token (after the user exists).
pub async fn finish_demo_representative(pool: &PgPool, email: &str) -> Result<(), StoreError> {
    use crate::schema::representatives;
    let mut conn = connection(pool).await?;
    let user_id: Option<i64> = users::table
        .filter(users::email.eq(email))
        .select(users::id)
        .first(&mut conn)
        .await
        .optional()
        .map_err(query_error)?;
    if let Some(user_id) = user_id {
        conn.transaction(async |conn| {
            let given: Vec<i64> = diesel::update(representatives::table.filter(representatives::user_id.eq(user_id)))
                .filter(representatives::video_attendance_token.is_null())
                .set(representatives::video_attendance_token.eq(format!("video-demo-{user_id}")))
                .returning(representatives::id)
                .get_results(conn)
                .await?;
            for id in given {
                read_model::write_documents_showing(conn, read_model::Shown::Representative(id)).await?;
            }
            Ok::<_, diesel::result::Error>(())
        })
        .await
        .map_err(query_error)?;
    }
    Ok(())
}

/// A product of the demo decided by a person (issues 45 and 68): its analysts' target is 10 days,
/// past which an undecided proposal is overdue for them; silence accepts it at 25 days, the law's
/// longest (Lei 15.040/2024, art. 49), and the clock may be suspended once to ask for documents.
/// With its billing group; rows already there are left as they are. `seed demo` loads it with
/// the catalog.
pub const DEMO_DECIDED_PRODUCT: i32 = 201;
/// Its billing group.
pub const DEMO_DECIDED_BILLING_GROUP: i32 = 5201;

pub async fn seed_demo_decided_product(pool: &PgPool) -> Result<(), StoreError> {
    let mut conn = connection(pool).await?;
    conn.transaction(async |conn| {
        let policy = AcceptancePolicy {
            days: 25,
            tacit: true,
            suspensions: 1,
            review_days: Some(10),
            seller_documents: true,
        };
        let product_id: i64 = diesel::insert_into(products::table)
            .values((
                products::codigo_produto.eq(DEMO_DECIDED_PRODUCT),
                products::nome.eq("Seguro Residencial Completo"),
                products::codigo_integracao.eq(9201),
                products::valor.eq(5990_i64),
                products::price_id.eq("price_sandbox_5990"),
                products::aceite_dias.eq(policy.days as i32),
                products::aceite_tacito.eq(policy.tacit),
                products::aceite_suspensoes.eq(policy.suspensions as i32),
                products::aceite_revisao_dias.eq(policy.review_days.map(|d| d as i32)),
                products::alterado_por.eq(SEEDED_BY),
            ))
            .on_conflict(products::codigo_produto)
            .do_update()
            .set(products::alterado_por.eq(products::alterado_por))
            .returning(products::id)
            .get_result(conn)
            .await?;
        take_banks(conn, product_id, &["001", "341"]).await?;
        set_demo_cover(
            conn,
            DEMO_DECIDED_PRODUCT,
            "15414.900201/2026-04",
            "Incêndio, raio e explosão da residência",
            30_000_000,
        )
        .await?;
        insert_billing_group(
            conn,
            (
                DEMO_DECIDED_BILLING_GROUP,
                "Mensal - boleto residencial",
                9201,
                DEMO_DECIDED_PRODUCT,
            ),
        )
        .await?;
        Ok::<_, diesel::result::Error>(())
    })
    .await
    .map_err(query_error)
}

/// The shop's second demo product (decision 271): it collects only at acceptance, so that the
/// shop sells both ways (the demo's 103 collects at the sale, with provisional cover). With its
/// billing group; rows already there are left as they are. `seed demo` loads it with the
/// catalog.
pub const DEMO_AT_ACCEPTANCE_PRODUCT: i32 = 104;
/// Its billing group.
pub const DEMO_AT_ACCEPTANCE_BILLING_GROUP: i32 = 5005;

pub async fn seed_demo_at_acceptance_product(pool: &PgPool) -> Result<(), StoreError> {
    let mut conn = connection(pool).await?;
    conn.transaction(async |conn| {
        let product_id: i64 = diesel::insert_into(products::table)
            .values((
                products::codigo_produto.eq(DEMO_AT_ACCEPTANCE_PRODUCT),
                products::nome.eq("Seguro Acidentes Pessoais Online"),
                products::codigo_integracao.eq(9104),
                products::valor.eq(1990_i64),
                products::price_id.eq("price_sandbox_1990"),
                products::cobranca_premio.eq(PremiumCollection::AtAcceptance.as_str()),
                products::alterado_por.eq(SEEDED_BY),
            ))
            .on_conflict(products::codigo_produto)
            .do_update()
            .set(products::alterado_por.eq(products::alterado_por))
            .returning(products::id)
            .get_result(conn)
            .await?;
        take_banks(conn, product_id, &["260", "341"]).await?;
        set_demo_cover(
            conn,
            DEMO_AT_ACCEPTANCE_PRODUCT,
            "15414.900104/2026-05",
            "Morte e invalidez por acidente",
            2_000_000,
        )
        .await?;
        insert_billing_group(
            conn,
            (
                DEMO_AT_ACCEPTANCE_BILLING_GROUP,
                "Recorrente - cartão cobrado na aceitação",
                9104,
                DEMO_AT_ACCEPTANCE_PRODUCT,
            ),
        )
        .await?;
        Ok::<_, diesel::result::Error>(())
    })
    .await
    .map_err(query_error)
}

/// What a demo product's certificate says besides the proposal (issue 45): one demo insurer.
async fn set_demo_cover(
    conn: &mut AsyncPgConnection,
    code: i32,
    process: &str,
    coverage: &str,
    capital: i64,
) -> QueryResult<()> {
    diesel::update(products::table.filter(products::codigo_produto.eq(code)))
        .set((
            products::seguradora.eq("Seguradora Exemplo S.A."),
            products::seguradora_cnpj.eq("11444777000161"),
            products::processo_susep.eq(process),
            products::cobertura.eq(coverage),
            products::capital_segurado.eq(capital),
            products::sac.eq("SAC 0800 000 1234 (24 horas) · sac@seguradora-exemplo.com.br"),
            products::ouvidoria
                .eq("Ouvidoria 0800 000 5678 (dias úteis, 8h às 18h) · ouvidoria@seguradora-exemplo.com.br"),
            products::seguradora_codigo_susep.eq(DEMO_INSURER_SUSEP_CODE),
            products::condicoes_versao.eq("1.0 (demonstração)"),
            products::condicoes_url.eq(format!("https://seguradora-exemplo.com.br/condicoes/{code}-v1.0.pdf")),
            // The demo has no file at that address: the digest of its address stands in.
            products::condicoes_sha256.eq(hex::encode(sha2::Sha256::digest(format!("condicoes-demo-{code}-v1.0")))),
            products::condicoes_exclusoes.eq(
                "Doença ou lesão preexistente não declarada; atos dolosos do(a) segurado(a) ou do beneficiário; \
                 guerra e atos de terrorismo.",
            ),
            products::condicoes_carencias
                .eq("Morte natural: 60 dias do início da vigência; eventos por acidente: sem carência."),
        ))
        .execute(conn)
        .await?;
    Ok(())
}

/// The demo insurer's SUSEP code (not a real insurer's).
pub const DEMO_INSURER_SUSEP_CODE: &str = "09991";
/// The demo partner's SUSEP broker registration (not a real broker's).
pub const DEMO_BROKER_REGISTRATION: &str = "100000001";

/// The banks a demo product takes (those already there left as they are).
async fn take_banks(conn: &mut AsyncPgConnection, product_id: i64, banks: &[&str]) -> QueryResult<()> {
    for bank in banks {
        diesel::insert_into(product_banks::table)
            .values((
                product_banks::product_id.eq(product_id),
                product_banks::codigo_banco.eq(*bank),
            ))
            .on_conflict_do_nothing()
            .execute(conn)
            .await?;
    }
    Ok(())
}

/// A demo billing group: its code, description, integration code and product (left as it is
/// when there).
async fn insert_billing_group(
    conn: &mut AsyncPgConnection,
    (code, description, integration, product): (i32, &str, i32, i32),
) -> QueryResult<()> {
    diesel::insert_into(billing_groups::table)
        .values((
            billing_groups::codigo_faturamento.eq(code),
            billing_groups::descricao.eq(description),
            billing_groups::codigo_integracao.eq(integration),
            billing_groups::codigo_produto.eq(product),
            billing_groups::alterado_por.eq(SEEDED_BY),
        ))
        .on_conflict_do_nothing()
        .execute(conn)
        .await?;
    Ok(())
}

/// Inserts the demo catalog and partner, all or nothing; rows already there are left as they are.
pub async fn seed_demo_catalog(pool: &PgPool) -> Result<(), StoreError> {
    let mut conn = connection(pool).await?;
    conn.transaction(async |conn| {
        let bank_rows = [
            ("001", "Banco do Brasil"),
            ("104", "Caixa Econômica Federal"),
            ("237", "Bradesco"),
            ("341", "Itaú Unibanco"),
            ("260", "Nu Pagamentos"),
        ];
        for (code, name) in bank_rows {
            diesel::insert_into(banks::table)
                .values((banks::codigo_banco.eq(code), banks::nome.eq(name)))
                .on_conflict_do_nothing()
                .execute(conn)
                .await?;
        }
        // Each accepts by silence after the default 15 days (the columns' defaults; issue 45).
        let product_rows = [
            (
                101,
                "Seguro de Vida Essencial",
                9101,
                4990_i64,
                vec!["001", "104", "237", "341"],
            ),
            (102, "Assistência Funeral Familiar", 9102, 2990, vec!["001", "237"]),
            // The shop's product: an insurance (a dental plan would be ANS's, not SUSEP's).
            (103, "Seguro de Vida Online", 9103, 3990, vec!["260", "341"]),
        ];
        for (code, name, integration, value, bank_codes) in product_rows {
            diesel::insert_into(products::table)
                .values((
                    products::codigo_produto.eq(code),
                    products::nome.eq(name),
                    products::codigo_integracao.eq(integration),
                    products::valor.eq(value),
                    products::price_id.eq(format!("price_sandbox_{value}")),
                    products::alterado_por.eq(SEEDED_BY),
                ))
                .on_conflict_do_nothing()
                .execute(conn)
                .await?;
            let product_id: i64 = products::table
                .filter(products::codigo_produto.eq(code))
                .select(products::id)
                .first(conn)
                .await?;
            take_banks(conn, product_id, &bank_codes).await?;
        }
        let billing_rows = [
            (5001, "Mensal - boleto consolidado", 9101, 101),
            (5002, "Mensal - desconto em folha", 9101, 101),
            (5003, "Mensal - débito em conta", 9102, 102),
            (5004, "Recorrente - cartão de crédito", 9103, 103),
        ];
        for group in billing_rows {
            insert_billing_group(conn, group).await?;
        }
        for (code, process, coverage, capital) in [
            (101, "15414.900101/2026-01", "Morte por qualquer causa", 5_000_000_i64),
            (102, "15414.900102/2026-02", "Assistência funeral familiar", 700_000),
            (103, "15414.900103/2026-03", "Morte por qualquer causa", 1_500_000),
        ] {
            set_demo_cover(conn, code, process, coverage, capital).await?;
        }
        diesel::insert_into(partners::table)
            .values((
                partners::cpf_cnpj.eq(DEMO_PARTNER_CNPJ),
                partners::fantasy_name.eq("Corretora Demonstração"),
                partners::social_reason.eq("Corretora Demonstração de Seguros Ltda"),
                partners::company_cnpj.eq("11444777000161"),
                partners::company_fantasy_name.eq("Seguradora Exemplo"),
                partners::company_social_reason.eq("Seguradora Exemplo S.A."),
                partners::association_cnpj.eq("12ABC34501DE35"),
                partners::association_name.eq("Associação Nacional dos Segurados"),
                partners::federation_cnpj.eq("45997418000153"),
                partners::federation_name.eq("Federação Brasileira das Associações"),
                partners::alterado_por.eq(SEEDED_BY),
            ))
            .on_conflict_do_nothing()
            .execute(conn)
            .await?;
        let partner_id: i64 = partners::table
            .filter(partners::cpf_cnpj.eq(DEMO_PARTNER_CNPJ))
            .select(partners::id)
            .first(conn)
            .await?;
        diesel::insert_into(partner_brokers::table)
            .values((
                partner_brokers::id_parceiro.eq(partner_id),
                partner_brokers::registro_susep.eq(DEMO_BROKER_REGISTRATION),
                partner_brokers::alterado_por.eq(SEEDED_BY),
            ))
            .on_conflict_do_nothing()
            .execute(conn)
            .await?;
        Ok::<_, diesel::result::Error>(())
    })
    .await
    .map_err(query_error)
}
